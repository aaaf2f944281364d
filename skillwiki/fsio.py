"""The only module that writes files: atomic writes, log appends and the workspace lock."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from skillwiki.errors import InputError, LockTimeout
from skillwiki.workspace import Workspace

TEMP_SUFFIX = ".tmp"


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that readers see the old or the new file, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        os.fchmod(fd, _mode_for(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_dir(path.parent)


def _mode_for(path: Path) -> int:
    """Keep an existing file's mode; give a new one the usual 0o666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` to `path` atomically unless it already holds exactly these bytes."""
    try:
        if path.read_bytes() == data:
            return False
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    atomic_write(path, data)
    return True


def remove(path: Path, stop_at: Path) -> None:
    """Delete `path` and then every directory above it, up to `stop_at`, that became empty."""
    path.unlink(missing_ok=True)
    parent = path.parent
    while parent != stop_at and stop_at in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


def utc_now() -> str:
    """Return the current time as `2026-11-30T09:14:03Z`."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def append_log(ws: Workspace, operation: str, details: str) -> None:
    """Append one line to log.md; a single O_APPEND write, so concurrent lines never mix."""
    line = f"- {utc_now()} {operation} {' '.join(details.split())}\n".encode()
    fd = os.open(ws.log_md, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
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
        fd = os.open(ws.lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    except PermissionError:
        raise InputError(ws.dot, "cannot write to the workspace (permission denied)") from None
    except OSError as exc:
        raise InputError(ws.dot, f"cannot write to the workspace ({exc.strerror})") from None
    try:
        _acquire(fd, ws, timeout)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


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
