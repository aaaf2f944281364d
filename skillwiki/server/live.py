"""A workspace kept open between calls, as the MCP server keeps it.

The search index stays open, and a call that follows a look which found the wiki in step
skips the next look when the kernel says nothing under .wiki/ changed since (watch.py): no
stat of every file. Anything else (a change, a folder that came or went, the index file
replaced, no watcher on this system) gets the CLI's own path, `reading.refresh`, which also
leaves the search index in step.

A server also follows the wiki (`follow`): a thread waits on the watcher's queue and, once the
kernel's reports of a change stop coming, takes the reads' turn and looks, as the next read would.
A call made after that finds the work done and is answered warm; one made during it waits
for it, as it waits for any read before its turn. A follower also writes the stat cache a look
left in memory once no call and no look came for IDLE: a call does not wait for that write,
and the next look takes the cache over from memory (statcache.StatCache.take_over). Once idle,
it also makes ready what a compile needs (compiler.warm_up), for the first change to come.

A `read_only` one (`skillwiki mcp --read-only`) writes nothing at all: its looks compile
nothing (a raw file changed since is told beside the answer, which comes from the articles as
they are) and its search index is in memory, kept between looks and synced with the articles.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillwiki import statcache
from skillwiki.config import Config, load_config
from skillwiki.errors import WorkspaceNotFound
from skillwiki.server import watch
from skillwiki.statcache import Earlier, Listing, StatCache
from skillwiki.workspace import Workspace, find_workspace

if TYPE_CHECKING:
    import sqlite3

    from skillwiki.compiler import Problem
    from skillwiki.search import VectorCache

# How the follower lets a burst of changes (a save, a checkout) go on before it looks: until
# no new event came for QUIET, and SETTLE at most while they keep coming. A call made at once
# after the change makes the look itself rather than wait on the follower's: QUIET is shorter
# than a request takes to arrive and be parsed.
QUIET = 0.005
SETTLE = 0.1
# How long it waits on the queue at a time, so that it sees `close` or a new watcher.
_POLL = 0.2
# How long no call and no look must last before the follower writes the stat cache that a
# look settled: a call does not wait for that write, and one seldom meets it (an agent's
# next call comes within a second of the last, or after a change, which the follower looks
# at first).
IDLE = 1.0
_LOG = logging.getLogger(__name__)


@dataclass
class Place:
    """Where the workspace is looked for: `explicit` (-w or $SKILLWIKI_WORKSPACE), else the
    first of $CLAUDE_PROJECT_DIR, the client's roots and the working directory that holds one
    (at or above it)."""

    explicit: Path | None
    roots: Sequence[Path] = ()
    # Set once the client was asked for its roots and answered (or failed to, or never
    # will); None: not asked yet. An anyio.Event, made by the server's first call.
    roots_asked: Any = None

    def starts(self) -> list[Path]:
        project = os.environ.get("CLAUDE_PROJECT_DIR")
        return [*([Path(project)] if project else []), *self.roots, Path(os.getcwd())]

    def open(self) -> tuple[Workspace, Config]:
        if self.explicit is not None:
            ws = find_workspace(Path(os.getcwd()), self.explicit)
        else:
            ws = _first_found(self.starts())
        return ws, load_config(ws.config_file, shown=ws.rel(ws.config_file))


def _first_found(starts: list[Path]) -> Workspace:
    first: WorkspaceNotFound | None = None
    for start in starts:
        try:
            return find_workspace(start)
        except WorkspaceNotFound as exc:
            first = first or exc
    assert first is not None
    raise first


@dataclass(frozen=True)
class Reading:
    """The workspace as a read finds it, with a search index in step and open for the read."""

    ws: Workspace
    config: Config
    index: sqlite3.Connection
    refreshed: int = 0
    skipped: str | None = None
    warm: bool = False  # answered without a look at the files: nothing changed since the last
    # The raw files that could not be compiled; still so while nothing changed since.
    problems: tuple[Problem, ...] = ()
    vectors: VectorCache | None = None  # the index's vectors as last read, kept with it


@dataclass
class Warm:
    """One workspace kept open; reads take turns (the tools of a server run on threads)."""

    place: Place
    follow: bool = False  # look in a thread of its own as soon as the kernel reports a change
    read_only: bool = False  # write nothing: compile nothing, keep the index in memory
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _last: Reading | None = None  # the last look, while nothing has changed since
    _index: sqlite3.Connection | None = None
    # (device, inode) of the open index's file; of .wiki/ for an index in memory (read_only)
    _index_file: tuple[int, int] | None = None
    _watcher: watch.Watcher | None = None
    _rearm: bool = False
    _listing: Listing | None = None  # the files as the last look left them
    _since: set[str] | None = None  # what the watcher told changed since; None: unknown
    _listed: set[str] = field(default_factory=set)  # folders that came since: the look lists
    _follower: threading.Thread | None = None
    _closed: threading.Event = field(default_factory=threading.Event)
    # The stat cache the last look settled but left for the follower to write, once idle:
    # (its file, the cache, its fingerprint algorithm).
    _unwritten: tuple[Path, StatCache, str] | None = None
    _used: float = 0.0  # when the last call or look ended (time.monotonic)
    _compiler_ready: bool = False  # the follower made ready what a compile needs (warm_up)
    _vectors: VectorCache | None = None  # the kept index's vectors, read again only if it changed

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """The workspace brought up to date (or known to be), for one read at a time."""
        with self._lock:
            read = self._read()
            if self.follow and self._follower is None and self._watcher is not None:
                self._follower = threading.Thread(
                    target=self._follow_changes, name="skillwiki-follow", daemon=True
                )
                self._follower.start()
            try:
                yield read
            finally:
                self._used = time.monotonic()

    @contextmanager
    def at_once(self) -> Iterator[Reading | None]:
        """The workspace as the last look left it, if no other read has the turn and nothing
        changed since (no look to make, no wait): a server answers such a call on the thread
        that reads its requests, without the hop to a worker thread. None otherwise: then
        `reading`, on a thread that may wait and look."""
        if not self._lock.acquire(blocking=False):
            yield None
            return
        try:
            read = self._warm_read()
            try:
                yield read
            finally:
                if read is not None:
                    self._used = time.monotonic()
        finally:
            self._lock.release()

    def forget(self) -> None:
        """Look at the files on the next read, whatever the watcher says (after a write)."""
        with self._lock:
            self._last = None

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            self._write_cache()
            self._last = None
            self._listing = None
            self._keep(None)
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
        if self._follower is not None and self._follower is not threading.current_thread():
            self._follower.join()

    def _follow_changes(self) -> None:
        """The follower: wait for the kernel to report a change, let the burst settle, then
        look as a read would, until `close`."""
        while not self._closed.is_set():
            if not self._changes_wait(_POLL):
                if time.monotonic() - self._used >= IDLE:
                    self._idle()
                continue
            if not self._settled():
                return
            with self._lock:
                if self._closed.is_set():
                    return
                try:
                    read = self._read()
                    if not read.warm:
                        from skillwiki.search import prime

                        prime(read.index, read.vectors)
                    self._used = time.monotonic()
                except Exception:  # the next call meets the same error and reports it
                    _LOG.debug("the look after a change failed", exc_info=True)
                    if self._watcher is not None:
                        self._note(self._changes())  # not the same events again
                    self._closed.wait(_POLL)

    def _settled(self) -> bool:
        """Wait for a burst of changes to end: until QUIET passed with no new event in the
        queue (its unread bytes the same), or SETTLE while they keep coming; False if closed
        meanwhile. A save is looked at a moment after it, a checkout once it is done (or every
        SETTLE while it goes on)."""
        deadline = time.monotonic() + SETTLE
        waiting = self._pending()
        while not self._closed.wait(QUIET):
            now = self._pending()
            if now == waiting or time.monotonic() >= deadline:
                return True
            waiting = now
        return False

    def _pending(self) -> int:
        """The bytes of events unread in the watcher's queue; -1 if there is none to ask (then
        the wait is QUIET's)."""
        watcher = self._watcher
        try:
            return watcher.pending() if watcher is not None else -1
        except (OSError, ValueError):
            return -1

    def _idle(self) -> None:
        """Once no call and no look came for IDLE: write the stat cache a look left, and the
        first time make ready what a compile needs (that shares no state with the reads, so
        it runs outside their turn)."""
        if self._unwritten is not None:
            with self._lock:
                self._write_cache()
        if not self._compiler_ready and not self.read_only:
            self._compiler_ready = True
            from skillwiki.compiler import warm_up

            try:
                warm_up()
            except Exception:  # a compile meets the same error, and reports it
                _LOG.debug("the compiler's warm-up failed", exc_info=True)

    def _changes_wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for events on the watcher's queue; False if none came
        (or there is no watcher, or it was closed meanwhile: then the wait is a plain one)."""
        watcher = self._watcher
        try:
            if watcher is not None:
                return bool(select.select([watcher.fileno()], [], [], timeout)[0])
        except (OSError, ValueError):
            pass
        self._closed.wait(timeout)
        return False

    def _read(self) -> Reading:
        warm = self._warm_read()
        if warm is not None:
            return warm
        from skillwiki.reading import refresh

        ws, config = self.place.open()
        self._follow(ws)
        # The look takes the last one's listing over (relist_folders): one that fails leaves
        # the next to list everything.
        listing, self._listing = self._listing, None
        earlier = None
        if listing is not None and self._since is not None:
            earlier = Earlier(listing, frozenset(self._since), frozenset(self._listed))
        later = self.follow and self._watcher is not None  # a follower writes the stat cache
        done = refresh(
            ws,
            config,
            shared=True,
            earlier=earlier,
            write_cache=not later,
            kept=self._kept(ws),
            read_only=self.read_only,
        )
        assert done.index is not None
        self._unwritten = None  # this look's cache is the newer, whether the same or not
        if later and done.listing is not None and done.listing.cache.unwritten:
            from skillwiki.compiler.plan import cache_path

            self._unwritten = (cache_path(ws), done.listing.cache, config.fingerprint)
        self._keep(done.index, ws)
        self._listing = done.listing
        self._since = set() if self._watcher is not None else None  # this look listed it all
        self._listed.clear()
        reading = Reading(
            ws,
            config,
            done.index,
            done.refreshed,
            done.skipped,
            problems=tuple(done.problems),
            vectors=self.vectors,
        )
        # A look that compiled nothing because another process writes is made again by the
        # next read; one that compiled nothing because it may not (read_only) stands.
        settled = done.skipped is None or self.read_only
        if self._watcher is not None and settled and self._index_file is not None:
            after = self._changes()
            self._note(after)  # this look's own writes among them: listed again, to no harm
            if after is not None and all(path in done.wrote for path in after):
                self._last = reading  # only this look's own writes happened meanwhile
            elif after is None:
                self._rearm = True
        return reading

    @property
    def vectors(self) -> VectorCache:
        """The vectors of the kept index as last read: held with the connection, so a search
        of an unchanged index reads none again, and after a change only those that came."""
        if self._vectors is None:
            from skillwiki.search import VectorCache

            self._vectors = VectorCache()
        return self._vectors

    def _warm_read(self) -> Reading | None:
        """The last look's reading, if nothing a read depends on changed since; else None, and
        the next read looks (what the watcher told is kept for that look)."""
        last, self._last = self._last, None
        if last is None or not self._unchanged(last.ws):
            return None
        self._last = last
        return Reading(
            last.ws,
            last.config,
            last.index,
            skipped=last.skipped,
            warm=True,
            problems=last.problems,
            vectors=last.vectors,
        )

    def _write_cache(self) -> None:
        """Write the stat cache the last look settled, if it left it unwritten (under the
        reads' turn), unless another process saved one since: the next look reads that."""
        pending, self._unwritten = self._unwritten, None
        if pending is not None and pending[1].file_unchanged(pending[0]):
            statcache.write(*pending)

    def _note(self, changes: set[str] | None) -> None:
        """Add what the watcher told (`_changes`) to what changed since the last look; a folder
        that went or moved (or events the kernel lost) leave the next look to list everything."""
        if changes is None:
            self._since = None
        elif self._since is not None:
            self._since |= changes

    def _changes(self) -> set[str] | None:
        """The files the watcher tells changed since it was last asked. A folder that came
        (below raw/ or wiki/) is watched at once, with the folders in it, and the files found
        in them are told instead: one made there before its watch was set came with no event.
        Those folders are kept for the next look to list whole. None: that look lists every
        folder (the kernel lost count, a folder went or moved, or no watch can be added)."""
        watcher = self._watcher
        assert watcher is not None
        changes = watcher.changes()
        came = sorted(path for path in changes or () if path.endswith("/"))
        if changes is None or not came:
            return changes
        files = changes.difference(came)
        for folder in came:
            if folder.partition("/")[0] not in watch.WATCHED:
                continue  # nothing a read depends on
            try:
                found = watcher.watch_below(folder)
            except FileNotFoundError:  # gone again: its going is told next
                continue
            except OSError:  # the kernel's limit of watches reached: no watcher from here
                watcher.close()
                self._watcher = None
                return None
            files.update(found)
            self._listed |= {folder} | {statcache.folder_of(path) for path in found}
        return files

    def _unchanged(self, ws: Workspace) -> bool:
        """Tell whether nothing a read depends on changed since the last look."""
        assert self._watcher is not None and self._index_file is not None
        changes = self._changes()
        self._note(changes)
        if changes is None:
            self._rearm = True
            return False
        return not changes and self._kept(ws) is not None

    def _follow(self, ws: Workspace) -> None:
        """Watch this workspace's .wiki/ (again after changes to its folders), before the look,
        so that whatever changes during the look is seen by the next read."""
        if self._watcher is not None and self._watcher.dot != ws.dot:
            self._watcher.close()
            self._watcher = None
        if self._watcher is None:
            self._watcher = watch.start(ws.dot)
            self._rearm = False
            self._since = None  # nothing was watched: this look lists everything
            return
        # What happened before this look, which sees it anyway (a folder that came is watched
        # by now: _changes); but after one went or moved, every watch is set again.
        drained = self._changes()
        self._note(drained)
        if self._watcher is not None and (self._rearm or drained is None):
            self._rearm = False
            try:
                self._watcher.arm()
            except OSError:
                self._watcher.close()
                self._watcher = None
                self._since = None

    def _kept(self, ws: Workspace) -> sqlite3.Connection | None:
        """The index connection kept, while its file is still the one at the index's place
        (for an index in memory: while it is of this workspace's .wiki/)."""
        if self._index is None or self._index_file is None:
            return None
        try:
            stat = os.stat(ws.dot if self.read_only else _index_path(ws))
        except OSError:
            return None
        return self._index if (stat.st_dev, stat.st_ino) == self._index_file else None

    def _keep(self, index: sqlite3.Connection | None, ws: Workspace | None = None) -> None:
        """Keep `index` open for the next reads, and close the one kept before.

        The new one reads first: a connection that has read holds the index file (SQLite's
        shared lock, in WAL mode), so closing the old one is not the last close, which would
        checkpoint the write-ahead log into the file and remove it, only for the next write
        to make it again."""
        self._index_file = None
        try:
            if index is not None:
                index.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        finally:
            if self._index is not None and self._index is not index:
                self._index.close()
            self._index = index
        if index is None:
            return
        files = [row[2] for row in index.execute("PRAGMA database_list") if row[1] == "main"]
        if files and files[0]:
            stat = os.stat(files[0])
            self._index_file = (stat.st_dev, stat.st_ino)
        elif self.read_only and ws is not None:  # in memory: built from this workspace
            stat = os.stat(ws.dot)
            self._index_file = (stat.st_dev, stat.st_ino)


def _index_path(ws: Workspace) -> Path:
    from skillwiki.search import index_path

    return index_path(ws)
