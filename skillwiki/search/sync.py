"""Bring the search index in step with the articles: take out the rows of articles changed or
gone, put in those changed or come, count the inbound references again where they can have
changed, and give every article its semantic vectors when the extra is installed."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterator, Sequence
from itertools import chain, islice

from skillwiki import parallel
from skillwiki.markdown import references
from skillwiki.parallel import Progress
from skillwiki.search import heading_cache, semantic
from skillwiki.search.differences import differences
from skillwiki.search.embedders import EMBEDDERS, Embedder
from skillwiki.search.inbound import count_inbound
from skillwiki.search.row import ArticleRow, ArticleToRead, read_row
from skillwiki.search.schema import FTS_COLUMNS, Damaged
from skillwiki.search.snapshot import Snapshot
from skillwiki.workspace import Workspace

# Past this many articles changed in one sync, it is a bulk load: the index's segments are
# merged after it, and every inbound count is counted again.
OPTIMIZE_AFTER = 1000

# How hard a row is compressed (zlib's level).
LEVEL = 6

# The first rows read, whose values make the compression dictionary of a new index.
SAMPLE = 64

# Articles embedded together: enough that their texts, sorted by length, pad little; few
# enough that a sync's progress, told as their vectors are made, moves on a terminal.
EMBED_BATCH = 256

# How often a sync tells its progress: (articles put in, articles to put in).
PROGRESS_EVERY = 64


def sync(
    db: sqlite3.Connection,
    ws: Workspace,
    wiki: Snapshot,
    kinds: Sequence[Embedder] = EMBEDDERS,
    *,
    progress: Progress | None = None,
) -> bool:
    """Apply the differences between the index on `db` and the articles `wiki` names, in one
    transaction (rolled back on any failure); True after a bulk load, which the caller may
    follow with a VACUUM. Nothing is done when the index is synced to `wiki.token` already.
    The vectors made are those of `kinds` that are available.

    Without a token (the articles as they are, listed), the one recorded stays: the index then
    holds the articles as they were at that state or later, and a later sync that knows what
    changed since that state still finds every difference; recording none would have it
    compare every article. `progress` is told, as the articles changed are put in, how many
    are (every PROGRESS_EVERY, and the last); then likewise of the articles whose vectors are
    made again (of another model, or the extra installed since)."""
    on = [embedder for embedder in kinds if embedder.available()]
    if (
        wiki.token is not None
        and _synced(db) == (wiki.token,)
        and all(_vectors(db, embedder) == embedder.model for embedder in on)
    ):
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        bulk = _apply(db, ws, wiki, on, progress)
        if wiki.token is not None:
            db.execute("REPLACE INTO meta VALUES ('synced', ?)", (wiki.token,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return bulk


def _synced(db: sqlite3.Connection) -> object:
    """The row naming the state of the articles the index was last synced to (None: none)."""
    return db.execute("SELECT value FROM meta WHERE key = 'synced'").fetchone()


def _apply(
    db: sqlite3.Connection,
    ws: Workspace,
    wiki: Snapshot,
    on: Sequence[Embedder],
    progress: Progress | None = None,
) -> bool:
    """The changes of one sync, inside its transaction; True for a bulk load. The articles
    changed are read, put in and embedded as they come, never all held at once."""
    since = (
        wiki.changes if wiki.changes is not None and _synced(db) == (wiki.changes.token,) else None
    )
    wanted, changed, gone = differences(db, wiki.articles, since)
    read = _read_changed(ws, wiki, changed, tuple(embedder.field for embedder in on))
    first = list(islice(read, SAMPLE))
    packer = Packer(db, [row.values for _, row in first if row is not None])
    vectors = [_Embedding(db, embedder) for embedder in on]
    named: set[str] = set()  # the names of articles gone or come, and what they refer to
    for rel in gone:
        named.update(_delete(db, rel, packer))
    tell = _Teller(progress, len(changed), vectors)
    for done, (rel, row) in enumerate(chain(first, read), start=1):
        named.update(_delete(db, rel, packer))
        if row is not None:
            _insert(db, rel, wanted[rel], row, packer, named, vectors)
        tell(done)
    for embedding in vectors:
        embedding.flush()
    tell(len(changed))
    count_inbound(db, named, everything=len(changed) + len(gone) >= OPTIMIZE_AFTER)
    _embed_the_rest(ws, wiki, vectors, progress)
    for embedder in EMBEDDERS:
        if embedder not in on and changed:  # some articles lack one
            db.execute("REPLACE INTO meta VALUES (?, '')", (embedder.meta,))
    bulk = len(changed) >= OPTIMIZE_AFTER
    if bulk:  # merge the index's segments after a bulk load
        db.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    return bulk


class _Teller:
    """Tells `progress` how many of `total` articles are in, every PROGRESS_EVERY and the last,
    each count once: of those read (`done`), the ones whose vectors are made, when some wait in
    a batch of `vectors` (embedding them is most of the time a sync takes)."""

    def __init__(
        self, progress: Progress | None, total: int, vectors: Sequence[_Embedding]
    ) -> None:
        self.progress, self.total, self.vectors = progress, total, vectors
        self.told = 0

    def __call__(self, done: int) -> None:
        done -= max((len(embedding.batch) for embedding in self.vectors), default=0)
        if self.progress is None or done == self.told or not self.total:
            return
        if done % PROGRESS_EVERY == 0 or done == self.total:
            self.progress(done, self.total)
            self.told = done


def _embed_the_rest(
    ws: Workspace, wiki: Snapshot, vectors: Sequence[_Embedding], progress: Progress | None
) -> None:
    """Give the vectors of each kind to the articles still without one, where that kind's were
    not all of its model before the sync (indexed while the extra was off, or for another
    model): each article read once, for every kind it lacks, and `progress` told how many of
    those articles have their vectors, as a sync's articles put in are told."""
    lacking: dict[int, tuple[str, list[_Embedding]]] = {}
    for embedding in vectors:
        for rowid, rel in embedding.missing():
            lacking.setdefault(rowid, (rel, []))[1].append(embedding)
    ids = sorted(lacking)
    jobs = [
        ArticleToRead(
            ws.wiki / rel,
            rel,
            wiki.entry_of(rel),
            embedded=tuple(embedding.embedder.field for embedding in kinds),
        )
        for rel, kinds in map(lacking.__getitem__, ids)
    ]
    tell = _Teller(progress, len(ids), vectors)
    read = zip(ids, parallel.imap(read_row, jobs), strict=True)
    for done, (rowid, row) in enumerate(read, start=1):
        for embedding in lacking[rowid][1]:
            embedding.add(rowid, row)
        tell(done)
    for embedding in vectors:
        embedding.flush()
        embedding.made()
    tell(len(ids))


def _read_changed(
    ws: Workspace, wiki: Snapshot, changed: Sequence[str], embedded: tuple[str, ...]
) -> Iterator[tuple[str, ArticleRow | None]]:
    """Read the articles changed, in worker processes when there are many, with the texts the
    `embedded` fields hold: each with what was read of it (None: it cannot be read). Their
    headings are those compile found in the articles it just wrote; after a bulk compile,
    from its file."""
    found = wiki.headings
    if len(changed) >= heading_cache.MIN_ARTICLES:
        found = {**heading_cache.load(ws), **found}
    jobs = [
        ArticleToRead(ws.wiki / rel, rel, wiki.entry_of(rel), found.get(rel), embedded)
        for rel in changed
    ]
    return zip(changed, parallel.imap(read_row, jobs), strict=True)


def _vectors(db: sqlite3.Connection, embedder: Embedder) -> str | None:
    """The model every article's vector of this kind is of ('' when some lack one; None:
    never made)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (embedder.meta,)).fetchone()
    return None if row is None else str(row[0])


class _Embedding:
    """The vectors of one kind a sync makes: for the articles it puts in, a batch at a time
    as they come, then for any other article that lacks one (_embed_the_rest)."""

    def __init__(self, db: sqlite3.Connection, embedder: Embedder) -> None:
        self.db, self.embedder = db, embedder
        self.before = _vectors(db, embedder)
        if self.before not in (None, "", embedder.model):  # of another model: made again
            db.execute(f"DELETE FROM {embedder.table}")
        self.batch: list[tuple[int, tuple[str, ...]]] = []

    def add(self, rowid: int, row: ArticleRow | None) -> None:
        """Embed an article put in (`row`: what was read of it; None: nothing could be)."""
        value = getattr(row, self.embedder.field) if row is not None else ""
        self.batch.append((rowid, self.embedder.texts(value)))
        if len(self.batch) >= EMBED_BATCH:
            self.flush()

    def flush(self) -> None:
        """Embed the batch's texts together, and put in each article's vectors, packed one
        after another in its row."""
        found, self.batch = self.batch, []
        if found:
            matrix = self.embedder.embed([text for _, texts in found for text in texts])
            rows, at = [], 0
            for rowid, texts in found:
                rows.append((rowid, b"".join(map(semantic.pack, matrix[at : at + len(texts)]))))
                at += len(texts)
            self.db.executemany(f"INSERT INTO {self.embedder.table}(id, vec) VALUES (?, ?)", rows)

    def missing(self) -> list[tuple[int, str]]:
        """The articles without a vector of this kind, (id, path) by id, unless every article
        had one of this model before the sync."""
        if self.before == self.embedder.model:
            return []
        table = self.embedder.table
        found: list[tuple[int, str]] = self.db.execute(
            f"SELECT docs.id, docs.path FROM docs LEFT JOIN {table} ON {table}.id = docs.id"
            f" WHERE {table}.id IS NULL ORDER BY docs.id"
        ).fetchall()
        return found

    def made(self) -> None:
        """Record that every article has its vector of this kind's model."""
        self.db.execute(
            "REPLACE INTO meta VALUES (?, ?)", (self.embedder.meta, self.embedder.model)
        )


class Packer:
    """Compresses what was indexed with a dictionary kept in the index (small articles alone
    compress poorly); the dictionary is made once, from the first articles indexed.

    Each row is compressed by a copy of one compressor set up with the dictionary (setting
    it up again for every row cost more than compressing), at level 6: level 9 took far
    longer for rows hardly smaller. Rows packed at another level unpack alike."""

    def __init__(self, db: sqlite3.Connection, sample: list[tuple[str, ...]]) -> None:
        row = db.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
        if row is None:
            step = max(1, len(sample) // 64)
            pieces = [json.dumps(values, ensure_ascii=False) for values in sample[::step]]
            zdict = "".join(pieces).encode()[-32768:] or b" "
            db.execute("INSERT INTO meta VALUES ('zdict', ?)", (zdict,))
        elif isinstance(row[0], bytes):
            zdict = row[0]
        else:  # not what was stored (`bytes(n)` of a number would make n bytes)
            raise Damaged("the index's compression dictionary is not bytes")
        self._zdict = zdict
        self._squeeze = zlib.compressobj(LEVEL, zdict=zdict)

    def pack(self, values: tuple[str, ...]) -> bytes:
        """The indexed column values, compressed, as the index keeps them."""
        squeeze = self._squeeze.copy()
        data = json.dumps(values, ensure_ascii=False).encode()
        return squeeze.compress(data) + squeeze.flush()

    def unpack(self, packed: object) -> list[str]:
        """What `pack` packed; anything else (bytes that are not what it wrote, a value of
        another type) is a damaged index, rebuilt as for SQLITE_CORRUPT."""
        try:
            if not isinstance(packed, bytes):
                raise TypeError(type(packed).__name__)
            expand = zlib.decompressobj(zdict=self._zdict)
            values = json.loads(expand.decompress(packed) + expand.flush())
        except (zlib.error, TypeError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise Damaged(f"a packed row cannot be read ({exc})") from None
        if not (
            isinstance(values, list)
            and len(values) == len(FTS_COLUMNS.split(", "))
            and all(isinstance(value, str) for value in values)
        ):
            raise Damaged("a packed row is not the indexed columns")
        return values


# The tables that hold rows of an article, and the column of its id in each.
_ROWS_OF_AN_ARTICLE = (
    ("docs", "id"),
    ("refs", "src"),
    ("names", "doc"),
    ("prior", "id"),
    ("vecs", "id"),
    ("sents", "id"),
)


def _delete(db: sqlite3.Connection, rel: str, packer: Packer) -> list[str]:
    """Take an article out of the index; return its names and the keys it referred to."""
    row = db.execute("SELECT id, packed FROM docs WHERE path = ?", (rel,)).fetchone()
    if row is None:
        return []
    rowid, packed = row
    db.execute(
        f"INSERT INTO fts(fts, rowid, {FTS_COLUMNS}) VALUES ('delete', ?, ?, ?, ?, ?, ?)",
        (rowid, *packer.unpack(packed)),
    )
    keys = [key for (key,) in db.execute("SELECT key FROM refs WHERE src = ?", (rowid,))]
    keys += [key for (key,) in db.execute("SELECT key FROM names WHERE doc = ?", (rowid,))]
    for table, column in _ROWS_OF_AN_ARTICLE:
        db.execute(f"DELETE FROM {table} WHERE {column} = ?", (rowid,))
    return keys


def _insert(
    db: sqlite3.Connection,
    rel: str,
    stamp: str,
    row: ArticleRow,
    packer: Packer,
    named: set[str],
    vectors: Sequence[_Embedding] = (),
) -> None:
    """Put an article in the index, with its `vectors`; add its names and the keys it refers
    to to `named`."""
    cursor = db.execute(
        "INSERT INTO docs(path, stamp, title, type, status, tags, packed)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (rel, stamp, row.title, row.type, row.status, row.tags, packer.pack(row.values)),
    )
    rowid = cursor.lastrowid
    assert rowid is not None
    db.execute(
        f"INSERT INTO fts(rowid, {FTS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)", (rowid, *row.values)
    )
    db.executemany("INSERT INTO refs(key, src) VALUES (?, ?)", [(key, rowid) for key in row.refs])
    names = references.names(rel, row.title)
    db.executemany("INSERT INTO names(key, doc) VALUES (?, ?)", [(key, rowid) for key in names])
    named.update(names)
    named.update(row.refs)
    for embedding in vectors:
        embedding.add(rowid, row)
