"""The stat cache in .cache/: what was known about each file at a given (size, mtime, inode)."""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any, NamedTuple

from skillwiki import fsio

FORMAT = 7
# A file modified this close to when the cache was saved may have changed again within the same
# timestamp tick without its stat changing ("racily clean"): such entries are re-checked.
RACY_NS = 2_000_000_000

Stat = tuple[int, int, int]  # size, mtime_ns, inode
Folder = dict[str, Any]  # file name -> its Stat (or None where only names were listed)


class Record(NamedTuple):
    """What the cache knew about one folder: raw/<folder> and wiki/<folder> together.

    The digests name the folder's listing as it was; while they match, the folder holds what
    it held then, and a quiet record (nothing left to compile, every file older than the
    racy window when saved) answers for every article in it without a look at any entry.
    """

    saved_ns: int
    raw: bytes  # digest of the raw files' names and stats
    names: bytes  # digest of the article names
    articles: bytes  # digest of the articles' names and stats
    quiet: bool
    others: tuple[tuple[str, str | None, str], ...]  # (article, raw, state) of non-fresh ones
    problems: tuple[tuple[str, str], ...]
    fresh: int  # how many articles are fresh
    tables: bytes  # marshal of the folder's raw and wiki entries, read only when needed


Tables = tuple[dict[str, tuple[Stat, str]], dict[str, tuple[Stat, tuple[Any, ...]]]]


@dataclass
class StatCache:
    """Facts per folder and per path, valid while the stats they were learned at still hold."""

    saved_ns: int = 0
    records: dict[str, Record] = field(default_factory=dict)
    # folder -> (raw path -> (stat, fingerprint), article -> (stat, facts)): only the folders
    # that were looked into.
    tables: dict[str, Tables] = field(default_factory=dict)
    indexes: tuple[Stat, ...] | None = None  # index.md and index.json, when they matched
    renewed: dict[str, Record | None] = field(default_factory=dict)  # records to write
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

    def open_folder(self, folder: str) -> Tables:
        """Return the entries known for a folder, reading them from its record the first time."""
        tables = self.tables.get(folder)
        if tables is None:
            record = self.records.get(folder)
            tables = ({}, {})
            if record is not None:
                try:
                    tables = marshal.loads(record.tables)
                except (EOFError, ValueError, TypeError):
                    pass
            self.tables[folder] = tables
        return tables

    def limit(self, folder: str) -> int:
        """Entries of files modified at or after this time (ns) are not trusted: they were too
        recent when their record was saved (racily clean), so they are checked again."""
        record = self.records.get(folder)
        return (record.saved_ns if record is not None else 0) - RACY_NS

    def raw_fingerprint(self, rel: str, stat: Stat) -> str | None:
        folder = folder_of(rel)
        entry = self.open_folder(folder)[0].get(rel)
        if entry is not None and entry[0] == stat and stat[1] < self.limit(folder):
            return entry[1]
        return None

    def article_facts(self, rel: str, stat: Stat) -> tuple[Any, ...] | None:
        folder = folder_of(rel)
        entry = self.open_folder(folder)[1].get(rel)
        if entry is not None and entry[0] == stat and stat[1] < self.limit(folder):
            return entry[1]
        return None

    def article_stat(self, rel: str) -> Stat | None:
        """The stat an article had when its facts were learned, if they were."""
        entry = self.open_folder(folder_of(rel))[1].get(rel)
        return None if entry is None else entry[0]

    def remember_raw(self, rel: str, stat: Stat, fingerprint: str) -> None:
        table = self.open_folder(folder_of(rel))[0]
        if table.get(rel) != (stat, fingerprint):
            table[rel] = (stat, fingerprint)
            self.dirty = True

    def remember_article(self, rel: str, stat: Stat, facts: tuple[Any, ...]) -> None:
        table = self.open_folder(folder_of(rel))[1]
        if table.get(rel) != (stat, facts):
            table[rel] = (stat, facts)
            self.dirty = self.wiki_changed = True

    def forget_article(self, rel: str) -> None:
        if self.open_folder(folder_of(rel))[1].pop(rel, None) is not None:
            self.dirty = self.wiki_changed = True

    def prune(self, folder: str, raw: Collection[str], wiki: Collection[str]) -> None:
        """Drop the entries of a folder's files that are gone."""
        raw_table, wiki_table = self.open_folder(folder)
        for rel in [rel for rel in raw_table if rel not in raw]:
            del raw_table[rel]
            self.dirty = True
        for rel in [rel for rel in wiki_table if rel not in wiki]:
            del wiki_table[rel]
            self.dirty = self.wiki_changed = True

    def renew(self, folder: str, record: Record | None) -> None:
        """Set a folder's record for the next save (None: the folder is gone)."""
        old = self.records.get(folder)
        if record is None and old is None:
            return
        if old is not None and record is not None and old[1:] == record[1:]:
            return
        self.renewed[folder] = record
        self.dirty = True

    def indexes_known(self, stats: tuple[Stat, ...]) -> bool:
        """Tell whether the indexes were checked at these stats and no article changed since."""
        limit = self.saved_ns - RACY_NS
        return (
            not self.wiki_changed
            and self.indexes == stats
            and all(stat[1] < limit for stat in stats)
        )

    def remember_indexes(self, stats: tuple[Stat, ...]) -> None:
        """Record that the indexes matched at these stats (saved even if unchanged while too
        recent to trust: a later save settles them)."""
        limit = self.saved_ns - RACY_NS
        if self.indexes != stats or any(stat[1] >= limit for stat in stats):
            self.indexes = stats
            self.dirty = True


def folder_of(rel: str) -> str:
    """The folder part of a relative path, with its slash: `a/b/c.md` -> `a/b/`."""
    return rel[: rel.rfind("/") + 1]


def digest(folder: Folder) -> bytes:
    """Name a folder's listing (names, and stats where known) in 16 bytes."""
    import xxhash

    return bytes(xxhash.xxh3_128_digest(marshal.dumps(folder, 2)))


def names_digest(folder: Folder, stat: Stat | None) -> bytes:
    """Name a folder's file names and the folder's own stat, which changes whenever a file in
    it is created, removed or replaced by a rename (as git, skillwiki and most editors do)."""
    import xxhash

    return bytes(xxhash.xxh3_128_digest(marshal.dumps((list(folder), stat), 2)))


def record_of(
    cache: StatCache,
    folder: str,
    raw: Folder,
    wiki: Folder,
    wiki_stat: Stat | None,
    others: tuple[tuple[str, str | None, str], ...],
    problems: tuple[tuple[str, str], ...],
    *,
    pending: bool,
    now: int,
) -> Record:
    """Make a folder's record as the folder is now (`now` is when the cache will be saved)."""
    newest = max(
        (stat[1] for stat in (*raw.values(), *wiki.values(), wiki_stat) if stat is not None),
        default=0,
    )
    tables = cache.open_folder(folder)
    return Record(
        now,
        digest(raw),
        names_digest(wiki, wiki_stat),
        digest(wiki),
        not pending and newest < now - RACY_NS,
        others,
        problems,
        len(wiki) - len(others),
        marshal.dumps(tables),
    )


def load(path: Path, algorithm: str) -> StatCache:
    """Load the cache; a missing, corrupt or foreign one is an empty cache."""
    rows = path.with_name(path.stem + "-rows.marshal")
    try:
        with open(path, "rb") as handle:
            data = marshal.loads(handle.read())
        if data["format"] != FORMAT or data["algorithm"] != algorithm:
            return StatCache(rows_file=rows)
        records = {folder: Record._make(record) for folder, record in data["records"].items()}
        return StatCache(data["saved_ns"], records, indexes=data["indexes"], rows_file=rows)
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return StatCache(rows_file=rows)


def save(path: Path, cache: StatCache, algorithm: str, now: int) -> None:
    """Save the cache if it changed; `now` is the time the renewed records were made for."""
    if cache._rows is not None and cache.rows_file is not None:
        save_files(cache.rows_file, cache._rows, 0)
    if not cache.dirty:
        return
    for folder, record in cache.renewed.items():
        if record is None:
            cache.records.pop(folder, None)
        else:
            cache.records[folder] = record
    cache.renewed.clear()
    cache.saved_ns = now
    data = {
        "format": FORMAT,
        "algorithm": algorithm,
        "saved_ns": now,
        "records": {folder: tuple(record) for folder, record in sorted(cache.records.items())},
        "indexes": cache.indexes,
    }
    try:
        fsio.atomic_write(path, marshal.dumps(data), durable=False)
    except OSError:
        return  # the cache is an optimisation: a read-only checkout still works without it
    cache.dirty = False


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
    left = [] if temps is None else temps
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return found
    try:
        _walk(fd, "", found, left, stats, folder_stats)
    finally:
        os.close(fd)
    return found


def stat_of(path: Path) -> Stat:
    """Return the (size, mtime_ns, inode) of `path`."""
    stat = os.stat(path, follow_symlinks=False)
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def stat_files(root: Path, folder: str, names: Collection[str]) -> Folder:
    """Stat the named files of one folder below `root`; vanished and non-regular ones drop out."""
    found: Folder = {}
    try:
        fd = os.open(root / folder if folder else root, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return found
    try:
        for name in names:
            try:
                stat = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                continue
            if S_ISREG(stat.st_mode):
                found[name] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    finally:
        os.close(fd)
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
            folder_stats[prefix] = (own.st_size, own.st_mtime_ns, own.st_ino)
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
                    files[name] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return files, folders


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
