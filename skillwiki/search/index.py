"""The search index in .cache/ (SQLite FTS5): opened in step with wiki/, read patiently.

Its tables are in `schema`, the sync that brings it in step in `sync`. Every SQLite failure
is sorted by its error code (`sqlite_errorname`) into one of four kinds, and one loop handles
them all: a busy database is waited for, a damaged one (it is derived from the articles) is
deleted and built again once, an unwritable one is replaced by an index in memory for the
run, and anything else is one clear error.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from enum import Enum
from pathlib import Path
from typing import TypeVar

from skillwiki import fsio, statcache
from skillwiki.errors import SkillwikiError
from skillwiki.parallel import Progress
from skillwiki.search.embedders import EMBEDDERS, WORDS, Embedder
from skillwiki.search.schema import SCHEMA, Damaged, create_schema, schema_version
from skillwiki.search.snapshot import Snapshot
from skillwiki.search.sync import sync
from skillwiki.workspace import Workspace

BUSY_SECONDS = 30
# How long a write waits for another process syncing the index before it leaves the sync of
# what it wrote to the next read (keep_in_step).
WRITER_WAIT = 1.0

# What builds an empty index: one name here, which a test counts the builds by.


def index_path(ws: Workspace) -> Path:
    """Where the workspace's search index lives."""
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


def trouble(exc: sqlite3.Error) -> Trouble:
    """Sort a SQLite failure by its error code (extended codes count as their primary)."""
    if isinstance(exc, Damaged):
        return Trouble.DAMAGED
    name = getattr(exc, "sqlite_errorname", None) or ""
    return _TROUBLES.get("_".join(name.split("_")[:2]), Trouble.OTHER)


class _Unwritable(Exception):
    """The index cannot be created or updated where it lives (a read-only checkout)."""


Answer = TypeVar("Answer")


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


def _synced_file(
    ws: Workspace, path: Path, wiki: Snapshot, shared: bool, progress: Progress | None = None
) -> sqlite3.Connection:
    """The index file, synced with `wiki`, on the one connection the caller then reads it
    through: a second connection would read the schema and pages again, and closing the first
    (the last on the file) would checkpoint and delete the -wal and -shm files, which the
    second made again."""
    db = _connect(path, shared)
    try:
        _sync(db, ws, wiki, progress)
    except BaseException:
        db.close()
        raise
    return db


def open_index(
    ws: Workspace,
    wiki: Snapshot,
    *,
    shared: bool = False,
    kept: sqlite3.Connection | None = None,
    in_memory: bool = False,
    progress: Progress | None = None,
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
    `progress` is told how many of the articles to put in, or to embed, are in (sync.sync).
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
            db = _patiently(
                path,
                lambda: _synced_file(ws, path, wiki, shared, progress),
                lambda: _remove_index(path),
            )
            if not shared:
                return db
            # A server keeps its connection for its life (one saved counts for little there):
            # it gets one opened after the sync's has closed and checkpointed the write-ahead
            # log into the file, the order its watched looks are known to work with.
            db.close()
            return _connect(path, shared)
        except _Unwritable:
            pass
    return _built_in_memory(ws, wiki, shared, progress=progress)


def keep_in_step(
    ws: Workspace, wiki: Snapshot, *, build: bool = False, progress: Progress | None = None
) -> None:
    """After a write, bring the index in .cache/ in step with the articles as the write's
    compile left them (`wiki`, which names what it wrote and the headings it found), so that
    the next read finds nothing to do; the rows of a few articles cost a write little, where
    the next read would compare the whole index with the articles.

    No index yet, or one of another schema: none is built (the next read builds it) unless
    `build`. One that another process is syncing (past a moment's wait), that cannot be
    written, or that fails (the sync is rolled back) is left for the next read, which syncs,
    rebuilds or says why: the write is done. `progress` is told how many of the articles to
    put in are in (sync.sync)."""
    path = index_path(ws)
    if not (build or path.exists()):
        return
    try:
        with closing(_connect(path, False, WRITER_WAIT)) as db:
            if build or schema_version(db) == SCHEMA:
                _sync(db, ws, wiki, progress)
    except (sqlite3.Error, _Unwritable):
        pass


def _sync(
    db: sqlite3.Connection, ws: Workspace, wiki: Snapshot, progress: Progress | None = None
) -> None:
    """Sync the index on `db` with `wiki`; after a bulk load, give the space of old segments
    back."""
    prepare_connection(db)
    if sync(db, ws, wiki, progress=progress):
        db.execute("VACUUM")


def _built_in_memory(
    ws: Workspace,
    wiki: Snapshot,
    shared: bool = False,
    kinds: Sequence[Embedder] = EMBEDDERS,
    progress: Progress | None = None,
) -> sqlite3.Connection:
    """An index of the articles `wiki` names, built in memory for this run alone, with the
    vectors of `kinds`."""
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=not shared)
    create_schema(db)
    sync(db, ws, wiki, kinds, progress=progress)
    return db


def folder_index(ws: Workspace, folder: str) -> sqlite3.Connection:
    """Return an index of the articles below wiki/`folder`/ alone, built in memory and never
    written: what recall scores a task against where the whole wiki's index is not at hand
    (a hook on a fresh clone, which must answer within its budget while building that index
    takes seconds). A few dozen lessons are read in milliseconds. The caller closes it.

    Its articles get word vectors but no sentence vectors: loading the sentence encoder and
    running it over the lessons would take a hook most of a second more on every prompt."""
    below = ws.wiki / folder
    articles = {f"{folder}/{rel}": stat for rel, stat in statcache.scan(below).items()}
    return _built_in_memory(ws, Snapshot(lambda: articles), kinds=(WORDS,))


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
            prepare_connection(db)
            if sync(db, ws, wiki):
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


def _connect(path: Path, shared: bool, wait: float = BUSY_SECONDS) -> sqlite3.Connection:
    """A connection to the index file, its folder made first (`shared`: usable from other
    threads than this one, one at a time), waiting `wait` seconds at most for another writer."""
    try:
        fsio.make_dirs(path.parent)
    except OSError:
        raise _Unwritable from None
    return sqlite3.connect(path, timeout=wait, isolation_level=None, check_same_thread=not shared)


def prepare_connection(db: sqlite3.Connection) -> None:
    """Set a connection up to write the index, and the index up if it is not this code's."""
    if db.execute("PRAGMA journal_mode").fetchone() != ("wal",):
        db.execute("PRAGMA journal_mode=WAL")
    # In WAL mode, NORMAL syncs at checkpoints, not at each commit: a killed process still
    # leaves every transaction whole or undone, and power lost may undo the last ones, which
    # name the articles they synced to ('synced'): the next sync redoes them. The index is
    # made from the articles; a commit's fsync would be a large part of a look.
    db.execute("PRAGMA synchronous=NORMAL")
    if schema_version(db) != SCHEMA:
        create_schema(db)


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
