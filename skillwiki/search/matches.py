"""BM25's best matches of a query's terms, as SQLite's FTS5 ranks them with weighted columns."""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

from skillwiki.kinds import RETIRED
from skillwiki.search.filters import Filters, filter_sql

# BM25 weights per column: title >> tags, headings > summary (and prevention rule) > body.
WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.0)


class Match(NamedTuple):
    """One of BM25's best matches."""

    id: int
    path: str
    title: str
    type: str
    bm25: float


def best_matches(
    db: sqlite3.Connection, match: str, filters: Filters, wanted: int, *, fast: bool = True
) -> list[Match]:
    """The `wanted` best matches by weighted BM25 that pass the filters (ties by path).

    Asking FTS5 alone for its best (then reading those few rows of docs) is the fast way;
    joining docs to every match is the exact one, and is taken whenever the fast answer could
    differ from it: a filter on type or tag, a hidden article among the best, or a tie in
    BM25 at the cut.
    """
    weights = ", ".join(str(weight) for weight in WEIGHTS)
    if fast and filters.kind is None and not filters.tags:
        best = db.execute(
            f"SELECT rowid, -bm25(fts, {weights}) AS score FROM fts WHERE fts MATCH ? "
            "ORDER BY score DESC LIMIT ?",
            (match, wanted + 1),
        ).fetchall()
        if not best:
            return []
        cut = len(best) > wanted
        if not (cut and best[wanted - 1][1] == best[wanted][1]):
            found = _docs(db, best[:wanted])
            if found is not None:
                visible = [
                    row for row, status in found if filters.include_hidden or status not in RETIRED
                ]
                if len(visible) == len(found) or not cut:
                    return sorted(visible, key=lambda row: (-row.bm25, row.path))
    where, params = filter_sql(filters, "docs.")
    where.insert(0, "fts MATCH ?")
    params.insert(0, match)
    sql = (
        f"SELECT docs.id, docs.path, docs.title, docs.type, -bm25(fts, {weights}) AS score "
        f"FROM fts JOIN docs ON docs.id = fts.rowid WHERE {' AND '.join(where)} "
        "ORDER BY score DESC, docs.path LIMIT ?"
    )
    return [Match._make(row) for row in db.execute(sql, (*params, wanted))]


def _docs(db: sqlite3.Connection, best: list[Any]) -> list[tuple[Match, str]] | None:
    """These (rowid, bm25) matches, each with its status; None if one has no row in docs."""
    score = dict(best)
    found = db.execute(
        f"SELECT id, path, title, type, status FROM docs WHERE id IN ({','.join('?' * len(best))})",
        list(score),
    ).fetchall()
    if len(found) != len(best):
        return None
    return [
        (Match(rowid, rel, title, kind, score[rowid]), status)
        for rowid, rel, title, kind, status in found
    ]
