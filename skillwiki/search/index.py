"""The search index in .cache/ (SQLite FTS5): kept in step with wiki/, read patiently.

Every SQLite failure is sorted by its error code (`sqlite_errorname`) into one of four kinds,
and one loop handles them all: a busy database is waited for, a damaged one (it is derived
from the articles) is deleted and built again once, an unwritable one is replaced by an index
in memory for the run, and anything else is one clear error.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from skillwiki import fsio, parallel, statcache
from skillwiki.errors import InputError, SkillwikiError
from skillwiki.frontmatter.documents import body_of, decode, split
from skillwiki.kinds import Status
from skillwiki.markdown import references
from skillwiki.search import heading_cache, semantic
from skillwiki.search.snapshot import Since, Snapshot
from skillwiki.search.text import indexed
from skillwiki.statcache import Stat
from skillwiki.workspace import Workspace

SCHEMA = "14"
OPTIMIZE_AFTER = 1000
BUSY_SECONDS = 30


def index_path(ws: Workspace) -> Path:
    return ws.cache / "search.sqlite"


class Trouble(Enum):
    """What a SQLite failure means for the index."""

    BUSY = "busy"  # another connection holds it: wait
    DAMAGED = "damaged"  # not the index this code made: delete it and build it again
    UNWRITABLE = "unwritable"  # cannot be created or changed where it lives
    OTHER = "other"  # say so and stop


# By primary result code. SQLITE_ERROR is what our own fixed statements get from a schema
# that is not ours (a table or column missing); SQLITE_CONSTRAINT from rows that disagree.
_TROUBLES = {
    "SQLITE_BUSY": Trouble.BUSY,
    "SQLITE_LOCKED": Trouble.BUSY,
    "SQLITE_CORRUPT": Trouble.DAMAGED,
    "SQLITE_NOTADB": Trouble.DAMAGED,
    "SQLITE_ERROR": Trouble.DAMAGED,
    "SQLITE_CONSTRAINT": Trouble.DAMAGED,
    "SQLITE_READONLY": Trouble.UNWRITABLE,
    "SQLITE_CANTOPEN": Trouble.UNWRITABLE,
    "SQLITE_PERM": Trouble.UNWRITABLE,
}


class Damaged(sqlite3.DatabaseError):
    """What a reader found in the index is not what this code stored there (a vector of the
    wrong size, say): the index is damaged, as for SQLITE_CORRUPT."""


def trouble(exc: sqlite3.Error) -> Trouble:
    """Sort a SQLite failure by its error code (extended codes count as their primary)."""
    if isinstance(exc, Damaged):
        return Trouble.DAMAGED
    name = getattr(exc, "sqlite_errorname", None) or ""
    return _TROUBLES.get("_".join(name.split("_")[:2]), Trouble.OTHER)


class _Unwritable(Exception):
    """The index cannot be created or updated where it lives (a read-only checkout)."""


Answer = TypeVar("Answer")
Value = TypeVar("Value")


def _patiently(path: Path, attempt: Callable[[], Answer], repair: Callable[[], None]) -> Answer:
    """Run `attempt` on the index at `path`: the one loop for every SQLite failure.

    Busy: try again until BUSY_SECONDS have passed (SQLite can answer "locked" at once, without
    waiting, when two connections set the database up at the same time, or while a writer
    checkpoints). Damaged: `repair`, then try again, once. Unwritable: raise _Unwritable.
    """
    deadline = time.monotonic() + BUSY_SECONDS
    repaired = False
    while True:
        try:
            return attempt()
        except sqlite3.Error as exc:
            kind = trouble(exc)
            if kind is Trouble.BUSY and time.monotonic() <= deadline:
                time.sleep(0.05)
                continue
            if kind is Trouble.DAMAGED and not repaired:
                repair()
                repaired = True
                continue
            if kind is Trouble.UNWRITABLE:
                raise _Unwritable from None
            if kind is Trouble.BUSY:
                raise SkillwikiError(
                    f"the search index {path} stayed locked for {BUSY_SECONDS}s; try again"
                ) from None
            raise SkillwikiError(
                f"the search index {path} cannot be used ({exc}); try again, "
                "or delete .wiki/.cache/ to have it rebuilt"
            ) from None


def _remove_index(path: Path) -> None:
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        fsio.remove_file(stale)


def _sync_once(ws: Workspace, path: Path, wiki: Snapshot) -> None:
    with _connect(path) as db:
        if _sync_db(db, ws, wiki):
            db.execute("VACUUM")  # after a bulk load, give the space of old segments back


def _sync_db(db: sqlite3.Connection, ws: Workspace, wiki: Snapshot) -> bool:
    """Apply the differences between the index and the articles; True after a bulk load."""
    synced = db.execute("SELECT value FROM meta WHERE key = 'synced'").fetchone()
    vectors = semantic.MODEL if semantic.available() else None
    if wiki.token is not None and synced == (wiki.token,) and vectors in (None, _vectors(db)):
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        synced = db.execute("SELECT value FROM meta WHERE key = 'synced'").fetchone()
        since = wiki.since if wiki.since is not None and synced == (wiki.since.token,) else None
        wanted, changed, gone = _differences(db, wiki.articles, since)
        told = wiki.told  # of the articles just written; after a bulk compile, from its file
        if len(changed) >= heading_cache.MIN_ARTICLES:
            told = {**heading_cache.load(ws), **told}
        jobs = [(ws.wiki / rel, rel, wiki.entry_of(rel), told.get(rel)) for rel in changed]
        documents = list(zip(changed, parallel.imap(_document, jobs), strict=True))
        packer = _Packer(db, [doc.values for _, doc in documents if doc is not None])
        named: set[str] = set()  # the names of articles gone or come, and what they refer to
        for rel in gone:
            named.update(_delete(db, rel, packer))
        for rel, doc in documents:
            named.update(_delete(db, rel, packer))
            if doc is not None:
                named.update(_insert(db, rel, wanted[rel], doc, packer))
        _count_inbound(db, named, everything=len(changed) + len(gone) >= OPTIMIZE_AFTER)
        if vectors is not None:
            _embed_missing(db, ws, wiki, {rel: doc.text for rel, doc in documents if doc})
        elif documents:
            db.execute("REPLACE INTO meta VALUES ('vectors', '')")  # some articles lack one
        bulk = len(changed) >= OPTIMIZE_AFTER
        if bulk:  # merge the index's segments after a bulk load
            db.execute("INSERT INTO fts(fts) VALUES ('optimize')")
        db.execute("REPLACE INTO meta VALUES ('synced', ?)", (wiki.token or "",))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return bulk


def _vectors(db: sqlite3.Connection) -> str | None:
    """The model every article's vector is of ('' when some lack one; None: never made)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone()
    return None if row is None else str(row[0])


def _embed_missing(
    db: sqlite3.Connection, ws: Workspace, wiki: Snapshot, texts: Mapping[str, str]
) -> None:
    """Give every article its semantic vector: those just indexed (their `texts` at hand),
    and any indexed while the extra was off or for another model (read again).

    When every article had its vector of this model before the sync, only those just indexed
    lack one: they are looked up by path, where finding the rows without a vector reads
    every row, most of a sync after one change."""
    before = _vectors(db)
    if before not in (None, "", semantic.MODEL):
        db.execute("DELETE FROM vecs")
    query = (
        "SELECT docs.id, docs.path FROM docs LEFT JOIN vecs ON vecs.id = docs.id"
        " WHERE vecs.id IS NULL"
    )
    if before == semantic.MODEL:
        missing: list[tuple[int, str]] = []
        for marks, paths in in_chunks(sorted(texts)):
            missing += db.execute(f"{query} AND docs.path IN ({marks})", paths).fetchall()
        missing.sort()
    else:
        missing = db.execute(f"{query} ORDER BY docs.id").fetchall()
    unread = [rel for _, rel in missing if rel not in texts]
    jobs = [(ws.wiki / rel, rel, wiki.entry_of(rel), None) for rel in unread]
    read = dict(zip(unread, parallel.imap(_document, jobs), strict=True))

    def text_of(rel: str) -> str:
        doc = read.get(rel)
        return texts.get(rel) or (doc.text if doc is not None else "")

    found = [(rowid, text_of(rel)) for rowid, rel in missing]
    for start in range(0, len(found), 1024):
        chunk = found[start : start + 1024]
        matrix = semantic.embed([text for _, text in chunk])
        db.executemany(
            "INSERT INTO vecs(id, vec) VALUES (?, ?)",
            [(rowid, semantic.pack(row)) for (rowid, _), row in zip(chunk, matrix, strict=True)],
        )
    db.execute("REPLACE INTO meta VALUES ('vectors', ?)", (semantic.MODEL,))


def open_index(
    ws: Workspace,
    wiki: Snapshot,
    *,
    shared: bool = False,
    kept: sqlite3.Connection | None = None,
    in_memory: bool = False,
) -> sqlite3.Connection:
    """Return an index in step with the articles: the one in .cache/, kept up to date, or
    where the workspace cannot be written (or `in_memory`: a reader that writes nothing), one
    built in memory for this run. The caller closes it (reading.Refresh does, at the end of a
    `with` block). A `shared` connection may be used from other threads than this one, one
    at a time.

    `kept`: a connection this function returned before, which a server keeps between reads,
    to the index file still at its place (the caller checked). The index is synced on it,
    and it is returned: its cached pages still hold, where a new connection reads them
    again. Where it cannot serve (the
    index damaged or unwritable, its snapshot outdated), the index is opened as without it.
    """
    path = index_path(ws)
    if kept is not None and _synced_on(kept, ws, path, wiki):
        return kept
    if in_memory and (copy := _copied(path, shared)) is not None:
        if _synced_on(copy, ws, path, wiki):
            return copy
        copy.close()
    if not in_memory:
        try:
            _patiently(path, lambda: _sync_once(ws, path, wiki), lambda: _remove_index(path))
            return sqlite3.connect(
                path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=not shared
            )
        except _Unwritable:
            pass
    return _built_in_memory(ws, wiki, shared)


def _built_in_memory(ws: Workspace, wiki: Snapshot, shared: bool = False) -> sqlite3.Connection:
    """An index of the articles `wiki` names, built in memory for this run alone."""
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=not shared)
    _create(db)
    _sync_db(db, ws, wiki)
    return db


def folder_index(ws: Workspace, folder: str) -> sqlite3.Connection:
    """Return an index of the articles below wiki/`folder`/ alone, built in memory and never
    written: what recall scores a task against where the whole wiki's index is not at hand
    (a hook on a fresh clone, which must answer within its budget while building that index
    takes seconds). A few dozen lessons are read in milliseconds. The caller closes it."""
    below = ws.wiki / folder
    articles = {f"{folder}/{rel}": stat for rel, stat in statcache.scan(below).items()}
    return _built_in_memory(ws, Snapshot(lambda: articles))


def _copied(path: Path, shared: bool) -> sqlite3.Connection | None:
    """The index file copied into memory, for a reader that writes nothing: read as immutable
    (no lock taken, no -wal or -shm made), so only while no write-ahead log beside it holds
    commits the file lacks, and kept only if the file did not change during the copy and the
    copy is whole. None otherwise: then one is built from the articles (far slower than the
    copy and its check)."""
    wal = path.with_name(path.name + "-wal")
    try:
        before = statcache.stat_of(path)
        if wal.exists() and wal.stat().st_size:
            return None
    except OSError:
        return None
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=not shared)
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)) as file:
            file.backup(db)
        whole = db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        if whole and statcache.stat_of(path) == before:
            return db
    except (OSError, sqlite3.Error):
        pass
    db.close()
    return None


class _Elsewhere(Exception):
    """A kept connection cannot sync the index: a new one does."""


def _elsewhere() -> None:
    raise _Elsewhere


def _synced_on(db: sqlite3.Connection, ws: Workspace, path: Path, wiki: Snapshot) -> bool:
    """Sync the index on a kept connection; False where a new connection must (then this
    one changed nothing: a failed sync rolls back)."""

    def attempt() -> None:
        try:
            _prepare(db)
            if _sync_db(db, ws, wiki):
                db.execute("VACUUM")
        except sqlite3.Error as exc:  # it read an older state, which it cannot write on
            if getattr(exc, "sqlite_errorname", None) == "SQLITE_BUSY_SNAPSHOT":
                raise _Elsewhere from None
            raise

    try:
        _patiently(path, attempt, _elsewhere)
    except (_Elsewhere, _Unwritable):
        return False
    return True


def _scanned(ws: Workspace) -> Snapshot:
    """wiki/ as it is on disk, for a reader that compiled nothing."""
    return Snapshot(lambda: statcache.scan(ws.wiki))


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    try:
        fsio.make_dirs(path.parent)
    except OSError:
        raise _Unwritable from None
    with closing(sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)) as db:
        _prepare(db)
        yield db


def _prepare(db: sqlite3.Connection) -> None:
    """Set a connection up to write the index, and the index up if it is not this code's."""
    if db.execute("PRAGMA journal_mode").fetchone() != ("wal",):
        db.execute("PRAGMA journal_mode=WAL")
    # In WAL mode, NORMAL syncs at checkpoints, not at each commit: a killed process still
    # leaves every transaction whole or undone, and power lost may undo the last ones, which
    # name the articles they synced to ('synced'): the next sync redoes them. The index is
    # made from the articles; a commit's fsync would be a large part of a look.
    db.execute("PRAGMA synchronous=NORMAL")
    if _schema_version(db) != SCHEMA:
        _create(db)


def _schema_version(db: sqlite3.Connection) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0])


def _create(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")
    if _schema_version(db) == SCHEMA:  # another process created it while we waited
        db.execute("COMMIT")
        return
    for statement in _SCHEMA_SQL:
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
    # This build's own name: ids start again from 1 in another, even in the same file.
    db.execute("INSERT INTO meta VALUES ('built', ?)", (secrets.token_hex(8),))
    db.execute("COMMIT")


# How the index cuts text into words and stems them (search/snippets.py marks snippets the same)
TOKENIZER = "porter unicode61 remove_diacritics 2"

_SCHEMA_SQL = (
    "DROP TABLE IF EXISTS docs",
    "DROP TABLE IF EXISTS fts",
    "DROP TABLE IF EXISTS meta",
    "DROP TABLE IF EXISTS refs",
    "DROP TABLE IF EXISTS vecs",
    "DROP TABLE IF EXISTS names",
    "DROP TABLE IF EXISTS prior",
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # `packed` keeps what was indexed, compressed: a contentless FTS5 table (no second copy of
    # the text) can only delete a row when given the exact values it indexed.
    # AUTOINCREMENT: an id is never given again, not even that of the last row deleted, so
    # that what a reader keeps by id (vectors.py's cache) stays true of it.
    "CREATE TABLE docs(id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT UNIQUE NOT NULL,"
    " stamp TEXT NOT NULL, title TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL,"
    " tags TEXT NOT NULL, packed BLOB NOT NULL)",
    # What each article refers to (references.py): (key, docs id), looked up by key.
    "CREATE TABLE refs(key TEXT NOT NULL, src INTEGER NOT NULL, PRIMARY KEY (key, src))"
    " WITHOUT ROWID",
    "CREATE INDEX refs_of ON refs(src)",  # an article's rows, dropped when it changes
    # The names each article is referred to by (references.names), and how many other
    # articles refer to it by one of them: its centrality prior, counted at each sync for
    # the articles whose count it may change (none: no row).
    "CREATE TABLE names(key TEXT NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (key, doc))"
    " WITHOUT ROWID",
    "CREATE INDEX names_of ON names(doc)",
    "CREATE TABLE prior(id INTEGER PRIMARY KEY, inbound INTEGER NOT NULL)",
    # Each article's semantic vector (semantic.py), when the extra is installed.
    "CREATE TABLE vecs(id INTEGER PRIMARY KEY, vec BLOB NOT NULL)",
    "CREATE VIRTUAL TABLE fts USING fts5(title, tags, headings, summary, body, content='',"
    f" tokenize = '{TOKENIZER}')",
)


def _differences(
    db: sqlite3.Connection, articles: Callable[[], Mapping[str, Stat]], since: Since | None
) -> tuple[dict[str, str], list[str], list[str]]:
    """Return the stamp of each article compared, those whose stamp differs, and those gone.

    With `since`, only the folders named there are compared (subfolders left out); otherwise
    every article.
    """
    if since is None:
        wanted = {rel: _stamp(stat) for rel, stat in articles().items()}
        have = dict(db.execute("SELECT path, stamp FROM docs").fetchall())
    else:
        wanted = {}
        have = {}
        for folder, found in since.folders.items():
            wanted.update((rel, _stamp(stat)) for rel, stat in found.items())
            have.update(_rows_looked_at(db, folder, found, since))
    changed = sorted(rel for rel, stamp in wanted.items() if have.get(rel) != stamp)
    gone = sorted(rel for rel in have if rel not in wanted)
    return wanted, changed, gone


def _rows_looked_at(
    db: sqlite3.Connection, folder: str, found: Mapping[str, Stat], since: Since
) -> dict[str, str]:
    """The rows (path -> stamp) of one folder's articles that `since` says may differ: those
    looked at, and those of the parts looked at that are gone.

    Those looked at are read by path. The parts not looked at hold what they held when the
    index was synced, so when the folder's rows number as many as its articles not looked at
    plus the rows just read, none is gone; else its rows are read by a range of paths. (On a
    folder of thousands, reading every row into Python cost more than all the rest.)
    """
    have: dict[str, str] = {}
    for marks, chunk in in_chunks(list(found)):
        have.update(db.execute(f"SELECT path, stamp FROM docs WHERE path IN ({marks})", chunk))
    present = since.present.get(folder)
    if present is not None and _rows_in(db, folder, since.present) == (
        len(present) - len(found) + len(have)
    ):
        return have
    return have | _gone_rows(db, folder, found, present or {}, since)


# Past this many subfolders, a folder's own rows are counted by looking at each row's path.
_MAX_SUBFOLDERS = 16


def _rows_in(db: sqlite3.Connection, folder: str, folders: Collection[str]) -> int:
    """How many rows the index holds for articles right in `folder`, or more (then it holds
    rows of a subfolder that is not among `folders`, the folders there are now).

    The rows below `folder` are counted on the index of paths alone, less those below each
    of its subfolders now: a few ranges, where a count that checks each row's path for a
    `/` reads every row of a folder of thousands (it cost most of a sync after one change).
    """
    below = sorted(
        {
            folder + sub[len(folder) :].partition("/")[0] + "/"
            for sub in folders
            if len(sub) > len(folder) and sub.startswith(folder)
        }
    )
    if len(below) > _MAX_SUBFOLDERS:
        (rows,) = db.execute(
            "SELECT count(*) FROM docs"
            " WHERE path >= ? AND path < ? AND instr(substr(path, ?), '/') = 0",
            (folder, folder + "\U0010ffff", len(folder) + 1),
        ).fetchone()
        return int(rows)
    count = 0
    for sign, start in [(1, folder), *((-1, sub) for sub in below)]:
        (rows,) = db.execute(
            "SELECT count(*) FROM docs WHERE path >= ? AND path < ?", (start, start + "\U0010ffff")
        ).fetchone()
        count += sign * rows
    return count


def in_chunks(values: Sequence[Value], size: int = 500) -> Iterator[tuple[str, list[Value]]]:
    """The values in chunks few enough for one statement's parameters, each with as many `?`
    (joined by commas) for its `IN (...)`."""
    for start in range(0, len(values), size):
        chunk = list(values[start : start + size])
        yield ",".join("?" * len(chunk)), chunk


def _gone_rows(
    db: sqlite3.Connection,
    folder: str,
    found: Mapping[str, Stat],
    present: Mapping[str, object],
    since: Since,
) -> dict[str, str]:
    """The rows of a folder's articles gone from the parts looked at, read by a range of
    paths (subfolders left out)."""
    gone = {}
    for rel, stamp in db.execute(
        "SELECT path, stamp FROM docs WHERE path >= ? AND path < ?", (folder, folder + "\U0010ffff")
    ):
        name = rel[len(folder) :]
        if rel not in found and "/" not in name and name not in present and since.covers(rel):
            gone[rel] = stamp
    return gone


def _stamp(stat: Stat) -> str:
    return ":".join(map(str, stat))


_FTS_COLUMNS = "title, tags, headings, summary, body"


@dataclass(frozen=True)
class _Document:
    """One article as the index sees it: catalog fields and the five indexed column values."""

    title: str
    type: str
    status: str
    tags: str  # lower-cased, joined by \x1f
    values: tuple[str, ...]
    refs: tuple[str, ...] = ()  # what it refers to (references.refs)
    text: str = ""  # what of it a semantic vector is made of (semantic.article_text)


class _Packer:
    """Compresses what was indexed with a dictionary kept in the index (small articles alone
    compress poorly); the dictionary is made once, from the first articles indexed."""

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

    def pack(self, values: tuple[str, ...]) -> bytes:
        squeeze = zlib.compressobj(9, zdict=self._zdict)
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
            and len(values) == len(_FTS_COLUMNS.split(", "))
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
)


def _delete(db: sqlite3.Connection, rel: str, packer: _Packer) -> list[str]:
    """Take an article out of the index; return its names and the keys it referred to."""
    row = db.execute("SELECT id, packed FROM docs WHERE path = ?", (rel,)).fetchone()
    if row is None:
        return []
    rowid, packed = row
    db.execute(
        f"INSERT INTO fts(fts, rowid, {_FTS_COLUMNS}) VALUES ('delete', ?, ?, ?, ?, ?, ?)",
        (rowid, *packer.unpack(packed)),
    )
    keys = [key for (key,) in db.execute("SELECT key FROM refs WHERE src = ?", (rowid,))]
    keys += [key for (key,) in db.execute("SELECT key FROM names WHERE doc = ?", (rowid,))]
    for table, column in _ROWS_OF_AN_ARTICLE:
        db.execute(f"DELETE FROM {table} WHERE {column} = ?", (rowid,))
    return keys


def _insert(
    db: sqlite3.Connection, rel: str, stamp: str, doc: _Document, packer: _Packer
) -> tuple[str, ...]:
    """Put an article in the index; return its names and the keys it refers to."""
    cursor = db.execute(
        "INSERT INTO docs(path, stamp, title, type, status, tags, packed)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (rel, stamp, doc.title, doc.type, doc.status, doc.tags, packer.pack(doc.values)),
    )
    db.execute(
        f"INSERT INTO fts(rowid, {_FTS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        (cursor.lastrowid, *doc.values),
    )
    db.executemany(
        "INSERT INTO refs(key, src) VALUES (?, ?)", [(key, cursor.lastrowid) for key in doc.refs]
    )
    names = references.names(rel, doc.title)
    db.executemany(
        "INSERT INTO names(key, doc) VALUES (?, ?)", [(key, cursor.lastrowid) for key in names]
    )
    return (*names, *doc.refs)


# An article's inbound count: the distinct other articles referring to one of its names.
_COUNT_INBOUND = (
    "INSERT INTO prior(id, inbound) SELECT names.doc, count(DISTINCT refs.src) FROM names"
    " JOIN refs ON refs.key = names.key AND refs.src != names.doc {where} GROUP BY names.doc"
)


def _count_inbound(db: sqlite3.Connection, named: Collection[str], *, everything: bool) -> None:
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


def _document(job: tuple[Path, str, str | None, heading_cache.Known | None]) -> _Document | None:
    """Read one article as the index sees it (in a worker process, when there are many).

    Its headings and references are those compile told (heading_cache) when told for this very
    body, else parsed.
    """
    path, rel, entry, told = job
    fields = _fields(path, entry)
    if fields is None:
        return None
    meta, title, body = fields
    tags = [str(tag) for tag in meta.get("tags") or [] if isinstance(tag, str | int | float)]
    summary = f"{meta.get('summary') or ''} {meta.get('prevention_rule') or ''}"
    known = heading_cache.told_of(told, body)
    heads, refs = known if known is not None else heading_cache.read_article(body, rel, title)
    columns = (title, " ".join(tags), " ".join(heads), summary, body)
    return _Document(
        title=title,
        type=str(meta.get("type") or "document"),
        status=str(meta.get("status") or Status.ACTIVE),
        tags="\x1f".join(tag.lower() for tag in tags),
        values=tuple(indexed(str(column)) for column in columns),
        refs=refs,
        text=semantic.article_text(title, str(meta.get("summary") or ""), body)
        if semantic.available()
        else "",
    )


def _fields(path: Path, entry: str | None = None) -> tuple[dict[str, Any], str, str] | None:
    """Return (frontmatter, title, body); the frontmatter from `entry` when it is given."""
    try:
        text = decode(path.read_bytes(), path, 1 << 40)
        if entry is not None:
            meta = json.loads(entry)
            return meta, str(meta.get("title") or path.stem), body_of(text)
        document = split(text, path)
    except (OSError, InputError, ValueError):
        return None
    title = str(document.meta.get("title") or path.stem)
    return document.meta, title, document.body


def read(
    ws: Workspace, db: sqlite3.Connection | None, run: Callable[[sqlite3.Connection], Answer]
) -> Answer:
    """Run a read on the index (`db` if given, else one opened and closed here).

    A writer checkpointing is waited for; an index damaged since it was synced (a table
    dropped, pages overwritten) is deleted and built anew from the articles, once.
    """
    path = index_path(ws)
    ours = db is None  # a given connection stays the caller's to close
    index = db or open_index(ws, _scanned(ws))

    def rebuild() -> None:
        nonlocal index, ours
        if ours:
            index.close()
        _remove_index(path)
        index = open_index(ws, _scanned(ws))
        ours = True

    try:
        return _patiently(path, lambda: run(index), rebuild)
    except _Unwritable:
        raise SkillwikiError(f"the search index {path} cannot be read") from None
    finally:
        if ours:
            index.close()
