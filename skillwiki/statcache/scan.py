"""Listing raw/ and wiki/: every regular file's stat, folder by folder, without following links."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from stat import S_ISREG
from typing import Any

from skillwiki import fsio

# A file's (size, mtime_ns, inode, ctime_ns). A plain tuple, not a NamedTuple: stats are made
# per file on every run and stored with marshal, which takes only plain tuples. The ctime is
# there because an mtime can be set back (a rewrite of the same size then keeps size, mtime and
# inode) while the ctime cannot: every change of a file's content or of its mtime moves it, as
# git's index relies on. Its times are read by older_than and newest, nowhere else.
Stat = tuple[int, int, int, int]
Folder = dict[str, Any]  # file name -> its Stat (or None where only names were listed)


def older_than(stat: Stat, limit_ns: int) -> bool:
    """Tell whether a file was last changed before `limit_ns` (by its mtime and its ctime,
    so that an mtime set back does not pass a fresh change for an old one)."""
    return stat[1] < limit_ns and stat[3] < limit_ns


def newest(stats: Iterable[Stat]) -> int:
    """The latest change time (ns) among these stats, mtime or ctime; 0 for none."""
    return max((max(stat[1], stat[3]) for stat in stats), default=0)


def of(found: os.stat_result) -> Stat:
    """The Stat of a stat result."""
    return (found.st_size, found.st_mtime_ns, found.st_ino, found.st_ctime_ns)


def folder_of(rel: str) -> str:
    """The folder part of a relative path, with its slash: `a/b/c.md` -> `a/b/`."""
    return rel[: rel.rfind("/") + 1]


def scan(root: Path, temps: list[str] | None = None) -> dict[str, Stat]:
    """Stat every regular file below `root` (hidden names skipped), by relative path."""
    return {
        folder + name: stat
        for folder, files in scan_folders(root, temps).items()
        for name, stat in files.items()
    }


def scan_folders(
    root: Path,
    temps: list[str] | None = None,
    *,
    stats: bool = True,
    folder_stats: dict[str, Stat] | None = None,
) -> dict[str, Folder]:
    """List every regular file below `root` (hidden names skipped), folder by folder.

    With `stats` off only names are listed (each maps to None): no stat per file. Temp files
    that a killed writer left behind are listed into `temps`, and the stat of each folder
    holding files into `folder_stats`, when they are given.
    """
    found: dict[str, Folder] = {}
    with _opened(root) as fd:
        if fd is not None:
            _walk(fd, "", found, [] if temps is None else temps, stats, folder_stats)
    return found


def relist_folders(
    root: Path,
    previous: Mapping[str, Folder],
    changed: Collection[str],
    *,
    stats: bool = True,
    folder_stats: dict[str, Stat] | None = None,
    previous_stats: Mapping[str, Stat] | None = None,
    came: Collection[str] = (),
) -> dict[str, Folder]:
    """What scan_folders would list now, given its listing of an earlier moment and the files
    changed since (relative to `root`; no folder went or moved meanwhile, and each that `came`
    has its files among those changed): each of those is looked at again, the rest taken
    over. A folder that gained a name, or came, is listed again whole, so that its names keep
    the order a whole listing gives them (the stat cache's digests depend on it; the earlier
    listing may hold names that run wrote into a folder that came). Temp files are not looked
    for.

    The folders nothing changed in are `previous`'s own dicts, not copies (a look after one
    change copies nothing it did not list): what the new listing learns or
    writes into them shows in `previous` too, which the caller must not start from again."""
    found = dict(previous)
    if folder_stats is not None and previous_stats is not None:
        folder_stats.update(previous_stats)
    for folder in came:
        found.pop(folder, None)
        if folder_stats is not None:
            folder_stats.pop(folder, None)
    by_folder: dict[str, list[str]] = {}
    for path in changed:
        folder = folder_of(path)
        by_folder.setdefault(folder, []).append(path[len(folder) :])
    for folder, names in sorted(by_folder.items()):
        files = _look_again(root, folder, names, dict(found.pop(folder, {})), stats)
        if folder_stats is not None:
            folder_stats.pop(folder, None)
        try:
            own = stat_of(root / folder)
        except OSError:  # the folder went since: none of its files is there
            continue
        if files:
            found[folder] = files
            if folder_stats is not None:
                folder_stats[folder] = own
    return found


def _look_again(root: Path, folder: str, names: list[str], files: Folder, stats: bool) -> Folder:
    """A folder's listing with these names looked at again (the folder listed whole when one
    of them is new)."""
    now = stat_files(root, folder, names)
    if now.keys() - files.keys():
        files = _files_of(root, folder, stats)
    for name in names:
        if name in now:
            files[name] = now[name] if stats else None
        else:
            files.pop(name, None)
    return files


def _files_of(root: Path, folder: str, stats: bool) -> Folder:
    """One folder's regular files, as scan_folders lists them (its subfolders aside)."""
    with _opened(root / folder) as fd:
        return {} if fd is None else _list(fd, folder, [], stats)[0]


@contextmanager
def _opened(path: Path) -> Iterator[int | None]:
    """A folder opened for the calls relative to it, closed after; None if it is not there
    (or not a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def stat_of(path: Path) -> Stat:
    """Return the (size, mtime_ns, inode, ctime_ns) of `path`."""
    return of(os.stat(path, follow_symlinks=False))


def stat_of_open(fd: int) -> Stat:
    """stat_of, of an open file."""
    return of(os.fstat(fd))


def read_with_stat(path: Path) -> tuple[bytes, Stat]:
    """A file's bytes, and its stat taken on the open file before they were read: the stat a
    cache may remember their fingerprint at (one taken later may be that of a change made
    since, which the fingerprint does not hold)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        stat = stat_of_open(fd)
        return os.read(fd, stat[0] + 1), stat
    finally:
        os.close(fd)


def stat_files(root: Path, folder: str, names: Collection[str]) -> Folder:
    """Stat the named files of one folder below `root`; vanished and non-regular ones drop out."""
    found: Folder = {}
    with _opened(root / folder) as fd:
        for name in names if fd is not None else ():
            try:
                stat = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                continue
            if S_ISREG(stat.st_mode):
                found[name] = of(stat)
    return found


def _walk(
    directory: int,
    prefix: str,
    found: dict[str, Folder],
    temps: list[str],
    stats: bool,
    folder_stats: dict[str, Stat] | None,
) -> None:
    files, folders = _list(directory, prefix, temps, stats)
    if files:
        found[prefix] = files
        if folder_stats is not None:
            own = os.fstat(directory)
            folder_stats[prefix] = of(own)
    for name in folders:
        try:
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=directory)
        except (FileNotFoundError, NotADirectoryError):
            continue
        try:
            _walk(inner, prefix + name + "/", found, temps, stats, folder_stats)
        finally:
            os.close(inner)


def _list(directory: int, prefix: str, temps: list[str], stats: bool) -> tuple[Folder, list[str]]:
    """One folder's regular files (with stats, or names only) and subfolders."""
    files: Folder = {}
    folders = []
    with os.scandir(directory) as entries:
        for entry in entries:
            name = entry.name
            if name[0] == ".":
                if name.endswith(fsio.TEMP_SUFFIX):
                    temps.append(prefix + name)
            elif entry.is_dir(follow_symlinks=False):
                folders.append(name)
            elif not stats:
                if entry.is_file(follow_symlinks=False):
                    files[name] = None
            else:
                try:
                    stat = entry.stat(follow_symlinks=False)
                except FileNotFoundError:  # removed while we looked
                    continue
                if S_ISREG(stat.st_mode):
                    files[name] = of(stat)
    return files, folders
