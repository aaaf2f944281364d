"""A workspace kept open between calls, as the MCP server keeps it.

The search index stays open (kept_index.py), and a call that follows a look which found the
wiki in step skips the next look when the kernel says nothing under .wiki/ changed since
(watch.py, whose ChangeTracker also tells the next look what to list again): no stat of every
file. Anything else (a change, a folder that came or went, the index file replaced, no watcher
on this system) gets the CLI's own path, `reading.refresh`, which also leaves the search index
in step.

A server also follows the wiki (`follow`): a thread waits on the watcher's queue and, once the
kernel's reports of a change stop coming, takes the reads' turn and looks, as the next read would.
A call made after that finds the work done and is answered at once; one made during it waits
for it, as it waits for any read before its turn. A follower also writes the stat cache a look
left in memory once no call and no look came for IDLE: a call does not wait for that write,
and the next look takes the cache over from memory (statcache.StatCache.take_over). Once idle,
it also makes ready what a compile needs (compiler.warm_up), for the first change to come.

A `read_only` one (`skillwiki mcp --read-only`) writes nothing at all: its looks compile
nothing (a raw file changed since is named beside the answer, which comes from the articles
as they are) and its search index is in memory, kept between looks and synced with the articles.
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
from skillwiki.server.kept_index import KeptIndex
from skillwiki.server.watch import ChangeTracker
from skillwiki.statcache import Listing, StatCache
from skillwiki.workspace import Workspace, find_workspace

if TYPE_CHECKING:
    import sqlite3

    from skillwiki.compiler import Plan, Problem
    from skillwiki.search import VectorCache

# How the follower lets a burst of changes (a save, a checkout) go on before it looks: until
# no new event came for QUIET, and SETTLE at most while they keep coming. A call made at once
# after the change makes the look itself rather than wait on the follower's: QUIET is shorter
# than a request takes to arrive and be parsed.
QUIET = 0.005
SETTLE = 0.1
# How long the follower waits on the watcher's queue at a time, so that it sees `close`, a new
# watcher, or IDLE passed, within POLL; and how long it pauses after a look that failed.
POLL = 0.2
# How long no call and no look must last before the follower writes the stat cache that a
# look settled: a call does not wait for that write, and one seldom meets it (an agent's
# next call comes within a second of the last, or after a change, which the follower looks
# at first).
IDLE = 1.0
_LOG = logging.getLogger(__name__)


@dataclass
class WorkspaceLookup:
    """Where the workspace is looked for: `explicit` (-w or $SKILLWIKI_WORKSPACE), else the
    first of $CLAUDE_PROJECT_DIR, the client's roots and the working directory that holds one
    (at or above it)."""

    explicit: Path | None
    roots: Sequence[Path] = ()
    # Set once the client was asked for its roots and answered (or failed to, or never
    # will); None: not asked yet. An anyio.Event, made by the server's first call.
    roots_asked: Any = None

    def starts(self) -> list[Path]:
        """The folders a workspace is looked for at or above, in order, when none is explicit."""
        project = os.environ.get("CLAUDE_PROJECT_DIR")
        return [*([Path(project)] if project else []), *self.roots, Path(os.getcwd())]

    def open(self) -> tuple[Workspace, Config]:
        """The workspace found, and its settings; WorkspaceNotFound (the first start's) or
        ConfigError otherwise."""
        if self.explicit is not None:
            ws = find_workspace(Path(os.getcwd()), self.explicit)
        else:
            ws = _first_found(self.starts())
        return ws, load_config(ws.config_file, shown=ws.rel(ws.config_file))


def _first_found(starts: list[Path]) -> Workspace:
    """The workspace at or above the first of `starts` that has one."""
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
    unchanged: bool = False  # nothing changed since the last look: made without a look at the files
    # The raw files that could not be compiled; still so while nothing changed since.
    problems: tuple[Problem, ...] = ()
    vectors: VectorCache | None = None  # the index's vectors as last read, kept with it


@dataclass
class LiveWorkspace:
    """One workspace kept open; reads take turns (the tools of a server run on threads)."""

    lookup: WorkspaceLookup
    follow: bool = False  # look in a thread of its own as soon as the kernel reports a change
    read_only: bool = False  # write nothing: compile nothing, keep the index in memory
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _last: Reading | None = None  # the last look, while nothing has changed since
    _last_told: int = -1  # what the watcher had told when the last look was kept (told)
    # The last plan `status` was answered from, as (workspace, settings, told, plan).
    _plan: tuple[Workspace, Config, int, Plan] | None = None
    _index: KeptIndex = field(init=False)
    _changes: ChangeTracker = field(default_factory=ChangeTracker)
    _listing: Listing | None = None  # the files as the last look left them
    _follower: threading.Thread | None = None
    _closed: threading.Event = field(default_factory=threading.Event)
    # The stat cache the last look settled but left for the follower to write, once idle:
    # (its file, the cache, its fingerprint algorithm).
    _unwritten: tuple[Path, StatCache, str] | None = None
    _used: float = 0.0  # when the last call or look ended (time.monotonic)
    _compiler_ready: bool = False  # the follower made ready what a compile needs (warm_up)

    def __post_init__(self) -> None:
        self._index = KeptIndex(in_memory=self.read_only)

    @property
    def vectors(self) -> VectorCache:
        """The vectors of the kept index as last read (KeptIndex.vectors)."""
        return self._index.vectors

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """The workspace brought up to date (or known to be), for one read at a time."""
        with self._lock:
            read = self._read()
            if self.follow and self._follower is None and self._changes.active:
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
            read = self._unchanged_reading()
            try:
                yield read
            finally:
                if read is not None:
                    self._used = time.monotonic()
        finally:
            self._lock.release()

    def plan(self, ws: Workspace, config: Config) -> Plan:
        """The plan of a compile (compiler.make_plan: every file's state, as `status` shows
        it), kept while the watcher tells nothing changed since it was made: no stat of every
        file. Made anew otherwise (or for other settings), the watcher armed first, so that a
        change during the walk is told to the next call."""
        from skillwiki.compiler import make_plan

        with self._lock:
            kept = self._plan
            if kept is not None and kept[:2] == (ws, config) and self._changes.active:
                if self._changes.unchanged_since(kept[2]):
                    return kept[3]
            self._plan = None
            self._changes.watch(ws.dot)
            told = self._changes.told
            plan = make_plan(ws, config)
            if self._changes.active:
                self._plan = (ws, config, told, plan)
            return plan

    def forget(self) -> None:
        """Look at the files on the next read, whatever the watcher says (after a write)."""
        with self._lock:
            self._last = None
            self._plan = None

    def close(self) -> None:
        """Stop following the workspace, write what is left to write, close the index; a look
        the follower began ends first."""
        self._closed.set()
        with self._lock:
            self._write_cache()
            self._last = None
            self._plan = None
            self._listing = None
            self._index.keep(None)
            self._changes.close()
        if self._follower is not None and self._follower is not threading.current_thread():
            self._follower.join()

    def _follow_changes(self) -> None:
        """The follower: wait for the kernel to report a change, let the burst settle, then
        look as a read would, until `close`."""
        while not self._closed.is_set():
            if not self._changes_wait(POLL):
                if time.monotonic() - self._used >= IDLE:
                    self._idle()
                continue
            if not self._settled():
                return
            with self._lock:
                if self._closed.is_set():
                    return
                self._look_after_change()

    def _look_after_change(self) -> None:
        """The follower's look, under the reads' turn; a look that fails is left for the next
        call to make again, which meets the same error and reports it."""
        try:
            read = self._read()
            if not read.unchanged:
                from skillwiki.search import prime

                prime(read.index, read.vectors)
            self._used = time.monotonic()
        except Exception:
            _LOG.debug("the look after a change failed", exc_info=True)
            if self._changes.active:
                self._changes.collect()  # not the same events again
            self._closed.wait(POLL)

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
        watcher = self._changes.watcher
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
        watcher = self._changes.watcher
        try:
            if watcher is not None:
                return bool(select.select([watcher.fileno()], [], [], timeout)[0])
        except (OSError, ValueError):
            pass
        self._closed.wait(timeout)
        return False

    def _read(self) -> Reading:
        """The last look's reading if nothing changed since, else a new look (`_look`)."""
        unchanged = self._unchanged_reading()
        return unchanged if unchanged is not None else self._look()

    def _look(self) -> Reading:
        """Bring the workspace up to date as the CLI does (reading.refresh), listing only what
        the watcher told changed since the last look when it can, and keep what it found."""
        from skillwiki.reading import refresh

        ws, config = self.lookup.open()
        self._changes.watch(ws.dot)
        # The look takes the last one's listing over (relist_folders): one that fails leaves
        # the next to list everything.
        listing, self._listing = self._listing, None
        later = self.follow and self._changes.active  # a follower writes the stat cache
        done = refresh(
            ws,
            config,
            shared=True,
            changes=self._changes.since_last_look(listing),
            write_cache=not later,
            kept=self._index.kept(ws),
            read_only=self.read_only,
        )
        assert done.index is not None
        # Another writer held the lock: the changes this look found are still to compile. Its
        # listing is the next look's start, with what the watcher told kept for it to look at
        # again (and what it tells meanwhile): not a look at every file.
        uncompiled = done.skipped is not None and not self.read_only
        self._unwritten = None  # this look's cache is the newer, whether the same or not
        if later and not uncompiled and done.listing is not None and done.listing.cache.unwritten:
            from skillwiki.compiler.plan import cache_path

            self._unwritten = (cache_path(ws), done.listing.cache, config.fingerprint)
        self._index.keep(done.index, ws)
        self._listing = done.listing
        if not uncompiled:
            self._changes.looked()
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
        # next read; one that compiled nothing because it may not (read_only) stands. It is
        # the last look only if nothing but its own writes happened meanwhile.
        settled = done.skipped is None or self.read_only
        if self._changes.active and settled and self._index.open:
            if self._changes.only_these_changed(done.wrote):
                self._last = reading
                self._last_told = self._changes.told
        return reading

    def _unchanged_reading(self) -> Reading | None:
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
            unchanged=True,
            problems=last.problems,
            vectors=last.vectors,
        )

    def _unchanged(self, ws: Workspace) -> bool:
        """Whether nothing a read depends on changed since the last look."""
        assert self._changes.active and self._index.open
        return self._changes.unchanged_since(self._last_told) and self._index.kept(ws) is not None

    def _write_cache(self) -> None:
        """Write the stat cache the last look settled, if it left it unwritten (under the
        reads' turn), unless another process saved one since: the next look reads that."""
        pending, self._unwritten = self._unwritten, None
        if pending is not None and pending[1].file_unchanged(pending[0]):
            statcache.write(*pending)
