"""Which articles a search may return, and the SQL conditions that say so."""

from __future__ import annotations

from typing import Any, NamedTuple

from skillwiki.kinds import RETIRED


class Filters(NamedTuple):
    """Which articles a search may return."""

    kind: str | None = None
    tags: tuple[str, ...] = ()
    include_hidden: bool = False


def filter_sql(filters: Filters, table: str = "") -> tuple[list[str], list[Any]]:
    """The conditions on the docs table (as `table`) that the filters make, with parameters."""
    where: list[str] = []
    params: list[Any] = []
    if filters.kind is not None:
        where.append(f"{table}type = ?")
        params.append(filters.kind)
    for tag in filters.tags:
        where.append(f"instr(char(31) || {table}tags || char(31), char(31) || ? || char(31)) > 0")
        params.append(tag.lower())
    if not filters.include_hidden:
        where.append(f"{table}status NOT IN ({', '.join('?' for _ in RETIRED)})")
        params.extend(RETIRED)
    return where, params
