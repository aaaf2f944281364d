"""The only module that writes files: atomic writes, log appends and the workspace lock."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from skillwiki.errors import LockTimeout, ReadOnlyWorkspace
from skillwiki.workspace import WIKI_DIR, Workspace, outside_of

TEMP_SUFFIX = ".tmp"
Stat = tuple[int, int, int, int]  # (size, mtime_ns, inode, ctime_ns), as statcache has it
FSYNC_EACH = 16  # up to this many files, fsync each; more, and one sync costs less


def atomic_write(path: Path, data: bytes, *, durable: bool = True) -> Stat:
    """Replace `path` with `data` so that readers see the old or the new file, never a mix;
    return the stat of the file put in place (as write_many gives it).

    `durable=False` skips flushing to disk, for derived files (caches) that a crash may empty
    but never corrupt into something read as valid.
    """
    if not durable:
        confine(path)
        temp, stat = write_temp(path, data, sync=False)
        os.replace(temp, path)
        placed = _renamed(path, stat)
        assert placed is not None  # a stat was given
        return placed
    stats: list[Stat | None] = []
    write_many([(path, data)], only_changed=False, stats=stats)
    assert stats[0] is not None  # nothing refused it
    return stats[0]


def replace_if_unchanged(path: Path, expected: bytes, data: bytes) -> bool:
    """Replace `path` with `data` atomically if it still holds `expected`; False if it changed.

    For files people edit while skillwiki writes into them (AGENTS.md): the new content is on
    disk in a temp file before the file is read again and compared, so the window in which
    someone else's write could be replaced is the rename alone.
    """
    confine(path)
    temp = write_temp(path, data, sync=True)[0]
    try:
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            current = b""
        if current != expected:
            os.unlink(temp)
            return False
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_dir(path.parent)
    return True


def write_many(
    items: Sequence[tuple[Path, bytes]],
    *,
    only_changed: bool = True,
    before_rename: Callable[[list[bool]], None] | None = None,
    stats: list[Stat | None] | None = None,
    keep: Callable[[Path], bool] | None = None,
) -> list[bool]:
    """Write files atomically, flushing them to disk together; return which ones were written.

    Each file goes to a hidden temp file beside it; once all data is on disk (an fsync per
    file for a few, one sync for many, which then costs far less) each temp is renamed over
    its target and the folders are synced. A process killed at any point leaves
    every target either old or new; a leftover temp is hidden and never read as content.
    `before_rename` (given which items will be written) runs between the two: the place for
    a log line that must never be missing for a file that is in place. `stats` gets each
    item's stat as this call left it, taken before anyone else could change it: a written
    one's on its temp before the rename (which keeps size, mtime and inode), an unchanged
    one's before it was compared. `keep`, asked of each target just before its rename (after
    `before_rename`), may refuse it: the target is left as it is (someone changed it since
    the caller looked, say), reads False, and its stat None.
    """
    pending: list[tuple[Path, Path]] = []  # (temp, target)
    written: list[bool] = []
    placed: list[Stat | None] = []
    try:
        _stage(items, only_changed, pending, written, placed)
        if len(items) > FSYNC_EACH and pending:
            os.sync()
        if before_rename is not None:  # every new content is on disk, none in place yet
            before_rename(written)
        places = [index for index, flag in enumerate(written) if flag]  # of the pending
        for place, (temp, path) in zip(places, pending, strict=True):
            if keep is None or keep(path):
                os.replace(temp, path)
                placed[place] = _renamed(path, placed[place])
                continue
            os.unlink(temp)
            written[place], placed[place] = False, None
    except BaseException:
        for temp, _ in pending:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        raise
    for folder in sorted({path.parent for _, path in pending}):
        _fsync_dir(folder)
    if stats is not None:
        stats[:] = placed
    return written


def _stage(
    items: Sequence[tuple[Path, bytes]],
    only_changed: bool,
    pending: list[tuple[Path, Path]],
    written: list[bool],
    placed: list[Stat | None],
) -> None:
    """Write each item's temp file (none for one that already holds its data, when
    `only_changed`), noting which items will be written and the stat of each."""
    checked: set[Path] = set()
    for path, data in items:
        if path.parent not in checked:
            confine(path)
            checked.add(path.parent)
        held = _held_at(path, data) if only_changed else None
        if held is not None:
            written.append(False)
            placed.append(held)
            continue
        temp, stat = write_temp(path, data, sync=len(items) <= FSYNC_EACH)
        pending.append((temp, path))
        written.append(True)
        placed.append(stat)


def _held_at(path: Path, data: bytes) -> Stat | None:
    """The stat of `path`, taken before it was read, if it holds `data`; else None."""
    try:
        now = os.stat(path)
        if now.st_size == len(data) and path.read_bytes() == data:
            return _stat(now)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    return None


def _stat(found: os.stat_result) -> Stat:
    """statcache's Stat of a stat result (statcache imports this module, not the reverse)."""
    return (found.st_size, found.st_mtime_ns, found.st_ino, found.st_ctime_ns)


def _renamed(path: Path, written: Stat | None) -> Stat | None:
    """The stat of a file just renamed into place from a temp whose stat was `written`.

    A rename moves the file's ctime, so the temp's stat would read as changed by someone else;
    the file's own is taken when size, mtime and inode are still the temp's. Anything else (the
    file replaced or written since) keeps the temp's stat, which no longer matches: looked at.
    """
    if written is None:
        return None
    try:
        now = _stat(os.stat(path, follow_symlinks=False))
    except OSError:
        return written
    return now if now[:3] == written[:3] else written


def confine(path: Path) -> None:
    """Refuse to write `path` below a .wiki/ if a symlink on its way leads out of the workspace.

    `path`'s folder must resolve inside the folder that holds the nearest `.wiki` above it, so
    that a symlinked `.wiki/wiki/guide -> /elsewhere` is never written through; a path with no
    `.wiki` above it (a file the user named) is the caller's to check.
    """
    parts = path.parts
    if WIKI_DIR not in parts:
        return
    at = len(parts) - 1 - parts[::-1].index(WIKI_DIR)
    root = os.path.realpath(Path(*parts[:at]))
    parent = path.parent
    while not os.path.lexists(parent) and parent != parent.parent:  # folders yet to be made
        parent = parent.parent
    if os.path.realpath(parent) != str(parent) or os.path.islink(path):
        for step in (path, *path.parents):  # name the link that leads out
            if len(step.parts) <= at:
                break
            if os.path.islink(step):
                outside_of(root, str(step), Path(*step.parts[at:]).as_posix())


def write_temp(path: Path, data: bytes, *, sync: bool) -> tuple[Path, Stat]:
    """A hidden temp file beside `path` holding `data` (fsynced with `sync`), and its stat
    once written; `path` itself is not touched.

    Every write that replaces a file (atomic_write, replace_if_unchanged, write_many) stages
    its data through this before the rename that puts it in place, so what happens between a
    write and its rename (a hand edit, an append) can be played by wrapping it.
    The temp's name ends in TEMP_SUFFIX, so that a killed writer's leftover is found.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, _mode_for(path))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
        stat = _stat(os.fstat(fd))
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    return temp, stat


def _mode_for(path: Path) -> int:
    """Keep an existing file's mode; give a new one the usual 0o666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def remove_file(path: Path) -> None:
    """Delete one file if it is there (a derived file, a leftover temp), inside the workspace."""
    confine(path)
    path.unlink(missing_ok=True)


def move(source: Path, target: Path) -> None:
    """Rename a file to a new name inside the workspace (atomic; replaces the target)."""
    confine(source)
    confine(target)
    os.replace(source, target)


def make_dirs(folder: Path) -> None:
    """Create a folder and its parents, inside the workspace."""
    confine(folder)
    folder.mkdir(parents=True, exist_ok=True)


def remove(path: Path, stop_at: Path) -> None:
    """Delete `path` and then every directory above it, up to `stop_at`, that became empty."""
    confine(path)
    path.unlink(missing_ok=True)
    parent = path.parent
    while parent != stop_at and stop_at in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


def append_log(ws: Workspace, operation: str, *details: str) -> None:
    """Append one line per detail to log.md in a single O_APPEND write: lines never mix."""
    from skillwiki import clock

    now = clock.stamp()
    lines = "".join(f"- {now} {operation} {' '.join(text.split())}\n" for text in details)
    append(ws.log_md, lines.encode())


def append(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Append `data` to `path` in one O_APPEND write (created if missing): appenders never
    interleave, and no lock is needed. A write cut short (a full disk) is taken back."""
    confine(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        written = os.write(fd, data)
        if written != len(data):  # a full disk took part of it: take the torn line back
            size = os.fstat(fd).st_size
            os.ftruncate(fd, size - written)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def workspace_lock(ws: Workspace, timeout: float) -> Iterator[None]:
    """Hold the workspace's one writer lock; the OS releases it if this process dies."""
    try:
        confine(ws.lock_file)
        fd = os.open(ws.lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except PermissionError:
        raise ReadOnlyWorkspace(
            ws.dot, "cannot write to the workspace (permission denied)"
        ) from None
    except OSError as exc:
        raise ReadOnlyWorkspace(ws.dot, f"cannot write to the workspace ({exc.strerror})") from None
    try:
        _HELD.add(fd)
        _acquire(fd, ws, timeout)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        _HELD.discard(fd)
        os.close(fd)  # closing the descriptor releases the flock


def try_lock(path: Path) -> int | None:
    """Take an flock on `path` (made if missing, mode 0600, not through a symlink) without
    waiting, and write this process's id in it: the descriptor that holds it (closing it lets
    go), or None when another process holds it (its id is in the file)."""
    confine(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


# The lock descriptors this process holds. A flock belongs to the open file, which a forked
# child shares: a compile's worker process would hold the lock on after its parent was killed,
# and every later writer would wait for it. A child closes its copies at once (the parent's
# lock stays, and goes with the parent).
_HELD: set[int] = set()


def _close_held_locks() -> None:
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_held_locks)


def _acquire(fd: int, ws: Workspace, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                raise LockTimeout(
                    f"the workspace {ws.root} is locked by another skillwiki process "
                    f"(pid {holder}) for more than {timeout:g}s; try again when it has finished"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
