"""Each article's inbound count in the index: how many other articles refer to it (its
centrality prior, references.boost), kept in step at each sync."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from skillwiki.search.schema import in_chunks

# An article's inbound count: the distinct other articles referring to one of its names.
_COUNT_INBOUND = (
    "INSERT INTO prior(id, inbound) SELECT names.doc, count(DISTINCT refs.src) FROM names"
    " JOIN refs ON refs.key = names.key AND refs.src != names.doc {where} GROUP BY names.doc"
)


def count_inbound(db: sqlite3.Connection, named: Collection[str], *, everything: bool) -> None:
    """Count again the inbound references of every article one of these keys names (each
    a name of an article gone or come, or a key one referred to: only their counts can have
    changed), or with `everything`, of every article."""
    if everything:
        db.execute("DELETE FROM prior")
        db.execute(_COUNT_INBOUND.format(where=""))
        return
    docs: set[int] = set()
    for marks, chunk in in_chunks(sorted(named)):
        docs.update(
            row[0] for row in db.execute(f"SELECT doc FROM names WHERE key IN ({marks})", chunk)
        )
    for marks, ids in in_chunks(sorted(docs)):
        db.execute(f"DELETE FROM prior WHERE id IN ({marks})", ids)
        db.execute(_COUNT_INBOUND.format(where=f"WHERE names.doc IN ({marks})"), ids)
