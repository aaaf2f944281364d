"""Semantic search's side of a query: the articles whose vectors are nearest the query's, of
each kind (embedders.py: WordLlama's words, MiniLM's sentences), with the vectors read once and
kept by a cache that the owner of the index's connection holds."""

from __future__ import annotations

import bisect
import sqlite3
from typing import Any, NamedTuple

from skillwiki.search import semantic, sentences
from skillwiki.search.embedders import SENTENCES, WORDS, Embedder
from skillwiki.search.filters import Filters, filter_sql
from skillwiki.search.schema import Damaged, in_chunks


class _Read(NamedTuple):
    """The ids of the articles with vectors, in order, and their vectors: the rows of the
    matrix, an article's one after another from its place in `starts` (one row an article,
    when there are as many rows as ids)."""

    ids: list[int]
    matrix: Any
    starts: Any


class _Vectors(NamedTuple):
    """The vectors a search read last: of which connection and in what state of it (nothing
    to read again while that holds), of which index (`source`: ids mean the same articles in
    any connection to it while this holds, since an id is never given again), and what was
    read."""

    db: sqlite3.Connection
    state: tuple[int, int]
    source: tuple[str, str] | None
    read: _Read


class Nearest(NamedTuple):
    """An article whose vector is among the nearest the query's."""

    id: int
    similarity: float
    path: str
    title: str
    type: str


_CHANGED_AT_MOST = 64  # articles gone or come since the last read, to read only those


class VectorCache:
    """The last vectors read, so that asking again of an unchanged index does not read every
    vector again, and after a change reads only those of the articles that changed: WordLlama's
    (`read`, `nearest`; `nearest_words` when on), and beside them, in a cache of their own, the
    sentence encoder's (`nearest_sentences`).

    Held by whoever holds the index's connection (a server's kept-open workspace holds one
    for the life of its connection); searches that bring none share `SHARED`. `stays`: its
    holder is a process that stays (a server), whose first query loads the sentence encoder
    that is quick per query (`sentences.kept`), once, rather than the one quick to load.
    """

    def __init__(self, embedder: Embedder = WORDS, *, stays: bool = False) -> None:
        self.embedder = embedder
        self.stays = stays
        self.last: _Vectors | None = None
        self._sentences: VectorCache | None = None

    @property
    def sentences(self) -> VectorCache:
        """The cache of the sentence encoder's vectors of the same index."""
        if self.embedder is SENTENCES:
            return self
        if self._sentences is None:
            self._sentences = VectorCache(SENTENCES, stays=self.stays)
        return self._sentences

    def read(self, db: sqlite3.Connection) -> _Read:
        """The ids and vectors of every article, read again only when the index changed, and
        then only those of the articles that came since the last read of the same index."""
        state = (db.execute("PRAGMA data_version").fetchone()[0], db.total_changes)
        last = self.last
        if last is not None and last.db is db and last.state == state:
            return last.read
        begun = not db.in_transaction
        if begun:  # the reads below see one state of the index
            db.execute("BEGIN")
        try:
            source = _source(db, self.embedder)
            read = None
            if last is not None and source is not None and last.source == source:
                read = _vectors_since(db, last.read, self.embedder)
            if read is None:
                table = self.embedder.table
                stored = db.execute(f"SELECT id, vec FROM {table} ORDER BY id").fetchall()
                matrix, counts = _matrix(stored, self.embedder)
                read = _Read([rowid for rowid, _ in stored], matrix, _starts(counts))
        finally:
            if begun:
                db.execute("COMMIT")
        self.last = _Vectors(db, state, source, read)
        return read

    def nearest(
        self, db: sqlite3.Connection, text: str, filters: Filters, wanted: int
    ) -> list[Nearest]:
        """The `wanted` articles passing the filters whose vectors are nearest the query's,
        nearest first: of an article with several, the nearest."""
        ids, vectors, starts = self.read(db)
        if not ids:
            return []
        similarity = vectors @ self.embedder.embed_query(text)
        if len(similarity) > len(ids):  # some have several: each article's nearest
            import numpy as np

            similarity = np.maximum.reduceat(similarity, starts)
        where, params = filter_sql(filters)
        found: list[Nearest] = []
        for count in (wanted, len(ids)):  # all of them only when the filters left too few
            nearest = semantic.top(ids, similarity, count)
            similarities = dict(nearest)
            rows: dict[int, Any] = {}
            for marks, chunk in in_chunks([rowid for rowid, _ in nearest]):
                clauses = " AND ".join([f"id IN ({marks})", *where])
                for row in db.execute(
                    f"SELECT id, path, title, type FROM docs WHERE {clauses}", [*chunk, *params]
                ):
                    rows[row[0]] = row
            found = [
                Nearest(rowid, similarities[rowid], *rows[rowid][1:])
                for rowid, _ in nearest
                if rowid in rows
            ]
            if len(found) >= wanted or count >= len(ids):
                break
        return found[:wanted]

    def nearest_words(
        self, db: sqlite3.Connection, text: str, filters: Filters, wanted: int
    ) -> list[Nearest]:
        """The `wanted` articles passing the filters whose WordLlama vectors are nearest the
        query's, nearest first; none when semantic search is off."""
        if not semantic.available():
            return []
        return self.nearest(db, text, filters, wanted)

    def nearest_sentences(
        self, db: sqlite3.Connection, text: str, filters: Filters, wanted: int
    ) -> list[Nearest]:
        """The `wanted` articles passing the filters whose sentence vectors are nearest the
        query's, nearest first; none when the encoder is off or does not read the query's
        script (sentences.reads)."""
        if not (sentences.available() and sentences.reads(text)):
            return []
        if self.stays:  # the encoder every later query and batch of the process then uses
            sentences.kept()
        return self.sentences.nearest(db, text, filters, wanted)


# The cache of the searches that bring none of their own.
SHARED = VectorCache()


def prime(db: sqlite3.Connection, cache: VectorCache | None = None) -> None:
    """Read the index's vectors now, if semantic search is on, rather than in the next search,
    and load the sentence encoder: a server does so after a look it made before it was asked."""
    kept = cache or SHARED
    try:
        if semantic.available():
            kept.read(db)
        if sentences.available():
            kept.sentences.read(db)
            sentences.kept()
    except sqlite3.Error:  # the next search meets it, and mends the index
        return


def _source(db: sqlite3.Connection, embedder: Embedder) -> tuple[str, str] | None:
    """Which index this is, as far as its vectors go: its file and its build (None: not one
    that another connection can share, or one whose vectors are not all of this model)."""
    file = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    keys = ("built", embedder.meta)
    meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN (?, ?)", keys))
    if not file or meta.get(embedder.meta) != embedder.model or "built" not in meta:
        return None
    return file, str(meta["built"])


def _vectors_since(db: sqlite3.Connection, last: _Read, embedder: Embedder) -> _Read | None:
    """The ids and vectors as `last` had them, less those gone since and with those that came
    after them (read from the index); None if that is not what the index holds now, or if so
    many changed that reading them all costs no more."""
    import numpy as np

    before = np.asarray(last.ids, dtype=np.int64)
    found = _changed_ids(db, last.ids)
    if found is not None:
        came, gone = found
        now = np.concatenate([np.delete(before, gone), np.asarray(came, dtype=np.int64)])
    else:
        # With every article's vector of this model (_source), the articles' ids are the
        # vectors': read from the index of paths (not the rows of 260 bytes), as one text
        # that NumPy splits (a Python object a row would cost most of the time).
        (listed,) = db.execute("SELECT group_concat(id) FROM docs").fetchone()
        now = np.sort(np.fromstring(listed or "", dtype=np.int64, sep=","))
        came = np.setdiff1d(now, before, assume_unique=True).tolist()
        gone = np.flatnonzero(~np.isin(before, now, assume_unique=True)).tolist()
    if not came and not gone:
        return last
    if len(came) + len(gone) > _CHANGED_AT_MOST or (came and before.size and came[0] < before[-1]):
        return None  # many, or given ids below those kept (the extra was off): read them all
    stored = []
    for marks, chunk in in_chunks(came):
        stored += db.execute(
            f"SELECT id, vec FROM {embedder.table} WHERE id IN ({marks})", chunk
        ).fetchall()
    if len(stored) != len(came):
        return None
    stored.sort()
    ends = np.append(last.starts[1:], len(last.matrix))
    kept = np.ones(len(last.matrix), dtype=bool)
    for place in gone:  # the rows of the articles gone
        kept[last.starts[place] : ends[place]] = False
    counts = np.delete(ends - last.starts, gone)
    added, added_counts = _matrix(stored, embedder)
    matrix = np.concatenate([last.matrix[kept], added])
    return _Read(now.tolist(), matrix, _starts(np.concatenate([counts, added_counts])))


def _changed_ids(db: sqlite3.Connection, ids: list[int]) -> tuple[list[int], list[int]] | None:
    """The ids that came since `ids` (sorted) were read, and the places in `ids` of those
    gone, when at most one went; None when more did (then the ids are listed).

    An id is never given again (AUTOINCREMENT), so those that came are the ones above the
    last read's top, and the count of rows tells how many went; one gone is told by the sum
    of the ids, which an index of paths gives without the text of every id (the change of
    one article is one gone and one come)."""
    top = ids[-1] if ids else 0
    above = db.execute(
        "SELECT id FROM docs WHERE id > ? ORDER BY id LIMIT ?", (top, _CHANGED_AT_MOST + 1)
    )
    came = [rowid for (rowid,) in above]
    if len(came) > _CHANGED_AT_MOST:
        return None
    (rows,) = db.execute("SELECT count(*) FROM docs").fetchone()
    went = len(ids) + len(came) - rows
    if went == 0:
        return came, []
    if went != 1:
        return None
    (total,) = db.execute("SELECT sum(id) FROM docs").fetchone()
    gone = sum(ids) + sum(came) - int(total or 0)
    place = bisect.bisect_left(ids, gone)
    if place == len(ids) or ids[place] != gone:
        return None
    return came, [place]


def _matrix(stored: list[Any], embedder: Embedder) -> tuple[Any, list[int]]:
    """The vectors of (id, vec) rows as one matrix, with how many each row holds, each checked
    to hold one to `embedder.most`."""
    most = embedder.packed * embedder.most
    counts = []
    for _, vec in stored:
        if not isinstance(vec, bytes) or not vec or len(vec) > most or len(vec) % embedder.packed:
            raise Damaged("a stored vector is not one")
        counts.append(len(vec) // embedder.packed)
    return semantic.matrix([vec for _, vec in stored], embedder.dimensions), counts


def _starts(counts: Any) -> Any:
    """Where each article's rows begin, of its count of them in order."""
    import numpy as np

    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts
