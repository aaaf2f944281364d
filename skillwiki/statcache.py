"""The stat cache in .cache/: what was known about each file at a given (size, mtime, inode)."""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any

from skillwiki import fsio

FORMAT = 6
# A file modified this close to when the cache was saved may have changed again within the same
# timestamp tick without its stat changing ("racily clean"): such entries are re-checked.
RACY_NS = 2_000_000_000

Stat = tuple[int, int, int]  # size, mtime_ns, inode


@dataclass
class StatCache:
    """Facts per path, valid while the file's stat is unchanged."""

    saved_ns: int = 0
    raw: dict[str, tuple[Stat, str]] = field(default_factory=dict)
    wiki: dict[str, tuple[Stat, tuple[Any, ...]]] = field(default_factory=dict)
    indexes: tuple[Stat, ...] | None = None  # index.md and index.json, when they matched
    dirty: bool = False
    wiki_changed: bool = False  # an article's facts were (re)learned or dropped this run
    # Each article's catalog row lives in a second file, read only when an index is rendered
    # or the search index needs it: most runs never touch it.
    rows_file: Path | None = None
    _rows: FileCache | None = None

    @property
    def rows(self) -> FileCache:
        if self._rows is None:
            self._rows = load_files(self.rows_file, 0) if self.rows_file else FileCache()
        return self._rows

    def raw_fingerprint(self, rel: str, stat: Stat) -> str | None:
        entry = self.raw.get(rel)
        if entry is not None and entry[0] == stat and stat[1] < self.saved_ns - RACY_NS:
            return entry[1]
        return None

    def article_facts(self, rel: str, stat: Stat) -> tuple[Any, ...] | None:
        entry = self.wiki.get(rel)
        if entry is not None and entry[0] == stat and stat[1] < self.saved_ns - RACY_NS:
            return entry[1]
        return None

    def _settled(self, stat: Stat) -> bool:
        return stat[1] < self.saved_ns - RACY_NS

    def remember_raw(self, rel: str, stat: Stat, fingerprint: str) -> None:
        if self.raw.get(rel) != (stat, fingerprint):
            self.raw[rel] = (stat, fingerprint)
            self.dirty = True

    def remember_article(self, rel: str, stat: Stat, facts: tuple[Any, ...]) -> None:
        if self.wiki.get(rel) != (stat, facts):
            self.wiki[rel] = (stat, facts)
            self.dirty = self.wiki_changed = True

    def indexes_known(self, stats: tuple[Stat, ...]) -> bool:
        """Tell whether the indexes were checked at these stats and no article changed since."""
        return (
            not self.wiki_changed
            and self.indexes == stats
            and all(self._settled(stat) for stat in stats)
        )

    def remember_indexes(self, stats: tuple[Stat, ...]) -> None:
        if self.indexes != stats:
            self.indexes = stats
            self.dirty = True

    def racy_entries(self) -> bool:
        """Tell whether some entries are still too recent to trust (a save would settle them)."""
        limit = self.saved_ns - RACY_NS
        return (
            any(entry[0][1] >= limit for entry in self.raw.values())
            or any(entry[0][1] >= limit for entry in self.wiki.values())
            or any(stat[1] >= limit for stat in self.indexes or ())
        )

    def prune(self, raw: Collection[str], wiki: Collection[str]) -> None:
        for table, alive in ((self.raw, raw), (self.wiki, wiki)):
            for rel in [rel for rel in table if rel not in alive]:
                del table[rel]
                self.dirty = True
                self.wiki_changed = self.wiki_changed or table is self.wiki


def load(path: Path, algorithm: str) -> StatCache:
    """Load the cache; a missing, corrupt or foreign one is an empty cache."""
    rows = path.with_name(path.stem + "-rows.marshal")
    try:
        with open(path, "rb") as handle:
            data = marshal.loads(handle.read())
        if data["format"] != FORMAT or data["algorithm"] != algorithm:
            return StatCache(rows_file=rows)
        return StatCache(
            data["saved_ns"], data["raw"], data["wiki"], data["indexes"], rows_file=rows
        )
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return StatCache(rows_file=rows)


def save(path: Path, cache: StatCache, algorithm: str) -> None:
    """Save the cache if it changed or holds entries that a later save would settle."""
    if cache._rows is not None and cache.rows_file is not None:
        save_files(cache.rows_file, cache._rows, 0)
    if not (cache.dirty or cache.racy_entries()):
        return
    cache.saved_ns = time.time_ns()
    data = {
        "format": FORMAT,
        "algorithm": algorithm,
        "saved_ns": cache.saved_ns,
        "raw": cache.raw,
        "wiki": cache.wiki,
        "indexes": cache.indexes,
    }
    try:
        fsio.atomic_write(path, marshal.dumps(data))
    except OSError:
        return  # the cache is an optimisation: a read-only checkout still works without it
    cache.dirty = False


def scan(root: Path, temps: list[str] | None = None) -> dict[str, Stat]:
    """Stat every regular file below `root` (hidden names skipped).

    Temp files that a killed writer left behind are listed into `temps` when it is given.
    """
    found: dict[str, Stat] = {}
    left = [] if temps is None else temps
    if _RELATIVE_STAT:
        try:
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            return found
        try:
            _walk_fd(fd, "", found, left)
        finally:
            os.close(fd)
    else:
        _walk(str(root), "", found, left)
    return found


def stat_of(path: Path) -> Stat:
    """Return the (size, mtime_ns, inode) of `path`."""
    stat = os.stat(path, follow_symlinks=False)
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


# Stat relative to an open directory where the OS can: about 15% faster than full paths.
_RELATIVE_STAT = os.stat in os.supports_dir_fd and os.listdir in os.supports_fd


def _walk_fd(directory: int, prefix: str, found: dict[str, Stat], temps: list[str]) -> None:
    for name in os.listdir(directory):
        if name[0] == ".":
            if name.endswith(fsio.TEMP_SUFFIX):
                temps.append(prefix + name)
            continue
        try:
            stat = os.stat(name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:  # removed while we looked
            continue
        if S_ISDIR(stat.st_mode):
            try:
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=directory)
            except FileNotFoundError:
                continue
            try:
                _walk_fd(inner, prefix + name + "/", found, temps)
            finally:
                os.close(inner)
        elif S_ISREG(stat.st_mode):
            found[prefix + name] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def _walk(directory: str, prefix: str, found: dict[str, Stat], temps: list[str]) -> None:
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if name[0] == ".":
                    if name.endswith(fsio.TEMP_SUFFIX):
                        temps.append(prefix + name)
                    continue
                if entry.is_dir(follow_symlinks=False):
                    _walk(entry.path, prefix + name + "/", found, temps)
                elif entry.is_file(follow_symlinks=False):
                    stat = entry.stat(follow_symlinks=False)
                    found[prefix + name] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    except FileNotFoundError:
        return


@dataclass
class FileCache:
    """Facts about files, each valid while its file's stat is unchanged (same racy rule)."""

    saved_ns: int = 0
    files: dict[str, tuple[Stat, Any]] = field(default_factory=dict)
    dirty: bool = False

    def get(self, rel: str, stat: Stat) -> Any | None:
        entry = self.files.get(rel)
        if entry is not None and entry[0] == stat and stat[1] < self.saved_ns - RACY_NS:
            return entry[1]
        return None

    def put(self, rel: str, stat: Stat, value: Any) -> None:
        self.files[rel] = (stat, value)
        self.dirty = True

    def prune(self, alive: Collection[str]) -> None:
        alive = alive if isinstance(alive, set | frozenset) else set(alive)
        for rel in [rel for rel in self.files if rel not in alive]:
            del self.files[rel]
            self.dirty = True


def load_files(path: Path, version: int) -> FileCache:
    """Load a FileCache; a missing, corrupt or older one is an empty cache."""
    try:
        with open(path, "rb") as handle:
            data = marshal.loads(handle.read())
        if data["format"] != (FORMAT, version):
            return FileCache()
        return FileCache(data["saved_ns"], data["files"])
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return FileCache()


def save_files(path: Path, cache: FileCache, version: int) -> None:
    """Save a FileCache if it changed or holds entries too recent to trust yet."""
    limit = cache.saved_ns - RACY_NS
    if not (cache.dirty or any(entry[0][1] >= limit for entry in cache.files.values())):
        return
    cache.saved_ns = time.time_ns()
    data = {"format": (FORMAT, version), "saved_ns": cache.saved_ns, "files": cache.files}
    try:
        fsio.atomic_write(path, marshal.dumps(data))
    except OSError:
        return
    cache.dirty = False
