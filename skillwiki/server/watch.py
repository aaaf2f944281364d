"""What changed under .wiki/ since the last look, asked of the kernel instead of a stat of
every file: one non-blocking read of an inotify queue (Linux, the `inotify_simple` binding
that the `mcp` extra installs there).

The kernel queues an event during the very call that changes a file, so a change whose write
returned before `changes()` is in what it reads: nothing is missed by timing. Elsewhere, or
where the kernel refuses the watches (its limit reached), `start` returns None and the caller
looks at every file as the CLI does.

Only what a read depends on is watched: .wiki/ itself (config, indexes, log) and every
folder of raw/ and wiki/. Hidden names are passed over as the listing passes them over
(.cache/, temp files of atomic writes, the lock).

`ChangeTracker` keeps, between the looks of a kept-open workspace, what its watcher told
changed since the last look: the next look lists only that (statcache.Changes).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import termios
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillwiki import statcache
from skillwiki.statcache import Changes, Listing

WATCHED = ("raw", "wiki")


class Watcher:
    """An inotify queue on one .wiki/ folder and the folders of its raw/ and wiki/."""

    def __init__(self, dot: Path, inotify: Any, flags: Any) -> None:
        self.dot = dot
        self._inotify = inotify
        self._flags = flags
        self._mask = (
            flags.CREATE
            | flags.DELETE
            | flags.MODIFY
            | flags.ATTRIB
            | flags.MOVED_FROM
            | flags.MOVED_TO
            | flags.DELETE_SELF
            | flags.MOVE_SELF
        )
        self._folders: dict[int, str] = {}  # watch descriptor -> folder below .wiki/ ("" itself)

    def arm(self) -> None:
        """Watch .wiki/ and every folder below raw/ and wiki/ as they are now (again, after
        folders came or went: a folder already watched keeps its watch)."""
        self._folders.clear()
        self._watch("")
        for top in WATCHED:
            for folder in _folders(self.dot / top, top + "/"):
                self._watch(folder)

    def watch_below(self, folder: str) -> list[str]:
        """Watch a folder that came (below .wiki/, with its slash) and every folder in it, and
        return the files in them, relative to .wiki/, as the listing finds them (hidden names
        and links to folders passed over). Each folder is watched before it is read: a file
        made in it after is told by an event, one made before is in what this returns.
        FileNotFoundError: the folder went meanwhile (its going is told)."""
        self._watch(folder)
        files: list[str] = []
        try:
            entries = list(os.scandir(self.dot / folder))
        except (FileNotFoundError, NotADirectoryError):
            return files
        for entry in entries:
            if entry.name[0] == ".":
                continue
            if not entry.is_dir(follow_symlinks=False):
                files.append(folder + entry.name)
                continue
            with contextlib.suppress(FileNotFoundError):  # gone again
                files += self.watch_below(folder + entry.name + "/")
        return files

    def changes(self) -> set[str] | None:
        """The paths below .wiki/ changed since the last call, and the folders that came (with
        a trailing slash: what is in them is not told, as they were not watched yet); None when
        the kernel dropped events (its queue overflowed), or a folder went or moved."""
        changed: set[str] = set()
        flags = self._flags
        gone = flags.Q_OVERFLOW | flags.IGNORED | flags.DELETE_SELF | flags.MOVE_SELF
        for event in self._inotify.read(timeout=0):
            if event.mask & gone:
                return None
            folder = self._folders.get(event.wd)
            if folder is None or not event.name or event.name.startswith("."):
                continue
            path = folder + event.name
            if not event.mask & flags.ISDIR:
                changed.add(path)
            elif event.mask & flags.CREATE:
                changed.add(path + "/")
            else:  # a folder deleted, or moved in, out or within
                return None
        return changed

    def pending(self) -> int:
        """How many bytes of events wait in the queue, unread (the kernel's FIONREAD): a count
        that grows while a burst of changes goes on."""
        count: int = struct.unpack("i", fcntl.ioctl(self.fileno(), termios.FIONREAD, bytes(4)))[0]
        return count

    def fileno(self) -> int:
        """The queue's file descriptor, readable while events wait in it."""
        return int(self._inotify.fileno())

    def close(self) -> None:
        self._inotify.close()

    def _watch(self, folder: str) -> None:
        wd = self._inotify.add_watch(str(self.dot / folder), self._mask | self._flags.ONLYDIR)
        self._folders[wd] = folder.rstrip("/") + "/" if folder else ""


def start(dot: Path) -> Watcher | None:
    """A watcher armed on `dot`, or None where the kernel offers none (not Linux, the binding
    not installed, the watch limit reached)."""
    try:
        from inotify_simple import INotify, flags
    except ImportError:
        return None
    try:
        watcher = Watcher(dot, INotify(nonblocking=True), flags)
    except OSError:
        return None
    try:
        watcher.arm()
    except OSError:
        watcher.close()
        return None
    return watcher


def _folders(root: Path, prefix: str) -> Iterator[str]:
    """`root` (as `prefix`) and every folder below it, hidden ones and links aside."""
    try:
        entries = list(os.scandir(root))
    except (FileNotFoundError, NotADirectoryError):
        return
    yield prefix
    for entry in entries:
        if entry.name[0] != "." and entry.is_dir(follow_symlinks=False):
            yield from _folders(Path(entry.path), prefix + entry.name + "/")


@dataclass
class ChangeTracker:
    """What changed under one .wiki/ since the last look, as its watcher told it, kept for the
    next look. Without a watcher (none on this system, or it was given up) nothing is known
    and every look lists every file."""

    watcher: Watcher | None = None
    # Watch every folder again before the next look: one went or moved, or events were lost.
    rearm: bool = False
    # The files changed since the last look; None: unknown, the next look lists everything.
    changed: set[str] | None = None
    # Folders that came since the last look (below raw/ or wiki/): the next look lists them.
    new_folders: set[str] = field(default_factory=set)
    # How many times the watcher told of a change, or lost count, so far: what was learned of
    # the files holds while this stays as it was then (`unchanged_since`), whoever collected.
    told: int = 0

    @property
    def active(self) -> bool:
        """Whether a watcher follows the workspace."""
        return self.watcher is not None

    def watch(self, dot: Path) -> None:
        """Watch `dot` (a workspace's .wiki/, again after changes to its folders) before a look,
        so that whatever changes during the look is seen by the next one."""
        if self.watcher is not None and self.watcher.dot != dot:
            self.close()
        if self.watcher is None:
            self.watcher = start(dot)
            self.rearm = False
            self.changed = None  # nothing was watched: this look lists everything
            self.told += 1
            return
        # What happened before this look, which sees it anyway (a folder that came is watched
        # by now: collect); but after one went or moved, every watch is set again.
        drained = self.collect()
        if self.watcher is not None and (self.rearm or drained is None):
            self.rearm = False
            try:
                self.watcher.arm()
            except OSError:
                self.close()
                self.changed = None

    def collect(self) -> set[str] | None:
        """The files the watcher tells changed since it was last asked, added to what changed
        since the last look. A folder that came (below raw/ or wiki/) is watched at once, with
        the folders in it, and the files found in them are told instead: one made there before
        its watch was set came with no event; those folders are kept for the next look to list
        whole. None (and the next look lists every folder): the kernel lost count, a folder
        went or moved, no watch can be added, or there is no watcher."""
        changes = self._take()
        if changes is None:
            self.changed = None
        elif self.changed is not None:
            self.changed |= changes
        if changes is None or changes:
            self.told += 1
        return changes

    def unchanged(self) -> bool:
        """Whether the watcher tells nothing changed since the last look."""
        changes = self.collect()
        if changes is None:
            self.rearm = True
            return False
        return not changes

    def unchanged_since(self, told: int) -> bool:
        """Whether the watcher tells nothing changed since `told` was read (what another
        caller collected meanwhile counts too)."""
        return self.unchanged() and self.told == told

    def since_last_look(self, listing: Listing | None) -> Changes | None:
        """What a look needs to list only what changed since the one that left `listing`; None:
        it lists everything."""
        if listing is None or self.changed is None:
            return None
        return Changes(listing, frozenset(self.changed), frozenset(self.new_folders))

    def looked(self) -> None:
        """A look listed everything there is: nothing changed since, as far as is known."""
        self.changed = set() if self.watcher is not None else None
        self.new_folders.clear()

    def only_these_changed(self, wrote: Collection[str]) -> bool:
        """Whether the watcher tells of no change but to files in `wrote` since it was last
        asked (a look's own writes, which it saw; listed again by the next look, to no harm)."""
        changes = self.collect()
        if changes is None:
            self.rearm = True
            return False
        return all(path in wrote for path in changes)

    def close(self) -> None:
        """Stop watching: from here on nothing is known."""
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
            self.told += 1

    def _take(self) -> set[str] | None:
        """The watcher's changes, with the files of the folders that came in their place."""
        watcher = self.watcher
        if watcher is None:
            return None
        changes = watcher.changes()
        came = sorted(path for path in changes or () if path.endswith("/"))
        if changes is None or not came:
            return changes
        files = changes.difference(came)
        for folder in came:
            if folder.partition("/")[0] not in WATCHED:
                continue  # nothing a read depends on
            try:
                found = watcher.watch_below(folder)
            except FileNotFoundError:  # gone again: its going is told next
                continue
            except OSError:  # the kernel's limit of watches reached: no watcher from here
                self.close()
                return None
            files.update(found)
            self.new_folders |= {folder} | {statcache.folder_of(path) for path in found}
        return files
