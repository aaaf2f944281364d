"""The stat cache in .cache/: what was known about each file at a given (size, mtime, inode,
ctime)."""

from __future__ import annotations

import marshal
import time
import zlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from skillwiki import COMPILER, fsio
from skillwiki.statcache.scan import Folder, Stat, folder_of, older_than, stat_of, stat_of_open

FORMAT = 10  # 10: a stat holds the ctime
# A file modified this close to when the cache was saved may have changed again within the same
# timestamp tick without its stat changing ("racily clean"): such entries are re-checked.
RACY_NS = 2_000_000_000

# A record covers one folder, or in a folder of more than BUCKET_FILES files one bucket of it
# (files spread by a hash of their name), so that a change costs a look at ~200 files.
Key = tuple[str, int, int]  # folder, how many buckets it has, which one
BUCKET_FILES = 512


class Record(NamedTuple):
    """What the cache knew about one folder (or bucket): raw/<folder> and wiki/<folder> together.

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


class Summary(NamedTuple):
    """A big folder whose buckets were all quiet, named whole, so that an unchanged folder is
    answered without spreading its files over buckets."""

    buckets: int
    raw: bytes
    names: bytes
    articles: bytes


MISSING: Stat = (-1, -1, -1, -1)  # the stat of a cache file that is not there

Tables = tuple[dict[str, tuple[Stat, str]], dict[str, tuple[Stat, tuple[Any, ...]]]]


@dataclass
class StatCache:
    """Facts per folder and per path, valid while the stats they were learned at still hold."""

    saved_ns: int = 0
    records: dict[Key, Record] = field(default_factory=dict)
    # key -> (raw path -> (stat, fingerprint), article -> (stat, facts)): only the keys that
    # were looked into.
    tables: dict[Key, Tables] = field(default_factory=dict)
    indexes: tuple[Stat, ...] | None = None  # index.md and index.json, when they matched
    renewed: dict[Key, Record | None] = field(default_factory=dict)  # records to write
    buckets: dict[str, int] = field(default_factory=dict)  # folder -> its number of buckets
    folders: dict[str, Summary] = field(default_factory=dict)  # of big folders, all quiet
    dirty: bool = False
    wiki_changed: bool = False  # an article's facts were (re)learned or dropped this run
    # Each article's catalog row lives in a second file, read only when an index is rendered
    # or the search index needs it: most runs never touch it.
    rows_file: Path | None = None
    _rows: FileCache | None = None
    # For a server's next run to take the cache over instead of reading its file: the stat of
    # the file as this cache last read or wrote it (MISSING: there was none; None: unknown,
    # or the write failed), whether a run took it over and has not settled it, and whether
    # it holds records settled but not written yet (a server writes them once it is idle).
    algorithm: str = ""
    file_base: Stat | None = None
    taken: bool = False
    unwritten: bool = False

    @property
    def rows(self) -> FileCache:
        if self._rows is None:
            self._rows = load_files(self.rows_file, 0) if self.rows_file else FileCache()
        return self._rows

    def take_over(self, path: Path, algorithm: str) -> bool:
        """Start another run on this cache, kept in memory since the last, if its file is the
        one it last read or wrote (no other process saved since; the same fingerprint
        algorithm): the run then need not read the file, and the records are the very ones
        the last run left. A run that fails before it settles leaves the next to read the
        file."""
        if self.taken or self.file_base is None or self.algorithm != algorithm:
            return False
        if self.renewed or self.dirty or not self.file_unchanged(path):
            return False
        self.taken = True
        self.buckets = {}
        self.wiki_changed = False
        return True

    def file_unchanged(self, path: Path) -> bool:
        """Whether the cache's file is still the one this cache last read or wrote."""
        try:
            now = stat_of(path)
        except FileNotFoundError:
            now = MISSING
        except OSError:
            return False
        return self.file_base is not None and now == self.file_base

    def key_of(self, rel: str) -> Key:
        """The record that covers a raw file or an article."""
        folder = folder_of(rel)
        count = self.buckets.get(folder, 1)
        return (folder, count, bucket_of(rel[len(folder) :], count))

    def open_folder(self, key: Key) -> Tables:
        """Return the entries known for a key, reading them from its record the first time."""
        tables = self.tables.get(key)
        if tables is None:
            record = self.records.get(key)
            tables = ({}, {})
            if record is not None:
                try:
                    tables = marshal.loads(record.tables)
                except (EOFError, ValueError, TypeError):
                    pass
            self.tables[key] = tables
        return tables

    def limit(self, key: Key) -> int:
        """Entries of files modified at or after this time (ns) are not trusted: they were too
        recent when their record was saved (racily clean), so they are checked again."""
        record = self.records.get(key)
        return (record.saved_ns if record is not None else 0) - RACY_NS

    def raw_fingerprint(self, rel: str, stat: Stat) -> str | None:
        key = self.key_of(rel)
        entry = self.open_folder(key)[0].get(rel)
        if entry is not None and entry[0] == stat and older_than(stat, self.limit(key)):
            return entry[1]
        return None

    def article_facts(self, rel: str, stat: Stat) -> tuple[Any, ...] | None:
        key = self.key_of(rel)
        entry = self.open_folder(key)[1].get(rel)
        if entry is not None and entry[0] == stat and older_than(stat, self.limit(key)):
            return entry[1]
        return None

    def article_stat(self, rel: str) -> Stat | None:
        """The stat an article had when its facts were learned, if they were."""
        entry = self.open_folder(self.key_of(rel))[1].get(rel)
        return None if entry is None else entry[0]

    def article_stats(self, folder: str, names: Iterable[str]) -> dict[str, Stat]:
        """`article_stat` of many articles of one folder (by name), each bucket's table
        opened once rather than once per article."""
        count = self.buckets.get(folder, 1)
        tables: dict[int, dict[str, Any]] = {}
        found: dict[str, Stat] = {}
        for name in names:
            bucket = bucket_of(name, count)
            table = tables.get(bucket)
            if table is None:
                table = tables[bucket] = self.open_folder((folder, count, bucket))[1]
            entry = table.get(folder + name)
            if entry is not None:
                found[name] = entry[0]
        return found

    def remember_raw(self, rel: str, stat: Stat, fingerprint: str) -> None:
        table = self.open_folder(self.key_of(rel))[0]
        if table.get(rel) != (stat, fingerprint):
            table[rel] = (stat, fingerprint)
            self.dirty = True

    def remember_article(self, rel: str, stat: Stat, facts: tuple[Any, ...]) -> None:
        table = self.open_folder(self.key_of(rel))[1]
        if table.get(rel) != (stat, facts):
            table[rel] = (stat, facts)
            self.dirty = self.wiki_changed = True

    def forget_article(self, rel: str) -> None:
        if self.open_folder(self.key_of(rel))[1].pop(rel, None) is not None:
            self.dirty = self.wiki_changed = True

    def prune(self, key: Key, raw: Collection[str], wiki: Collection[str]) -> None:
        """Drop the entries of a key's files that are gone."""
        raw_table, wiki_table = self.open_folder(key)
        for rel in [rel for rel in raw_table if rel not in raw]:
            del raw_table[rel]
            self.dirty = True
        for rel in [rel for rel in wiki_table if rel not in wiki]:
            del wiki_table[rel]
            self.dirty = self.wiki_changed = True

    def renew(self, key: Key, record: Record | None) -> None:
        """Set a key's record for the next save (None: its files are gone)."""
        old = self.records.get(key)
        if record is None and old is None:
            return
        if old is not None and record is not None and _same_but_time(old, record):
            return
        self.renewed[key] = record
        self.dirty = True

    def keys_of(self, folder: str, records: Collection[Key] | None = None) -> list[Key]:
        """The keys of a folder's records (of `records`, by default the loaded ones), for its
        present number of buckets."""
        count = self.buckets.get(folder, 1)
        found = self.records if records is None else records
        return [key for key in found if key[0] == folder and key[1] == count]

    def all_quiet(self, folder: str) -> bool:
        """Tell whether every record of a big folder, as renewed, is quiet."""
        records = {**self.records, **self.renewed}
        mine = [records[key] for key in self.keys_of(folder, records)]
        return (
            self.buckets.get(folder, 1) > 1
            and bool(mine)
            and all(r is not None and r.quiet for r in mine)
        )

    def summarize(
        self, folder: str, raw: Folder, wiki: Folder | None, wiki_stat: Stat | None
    ) -> None:
        """Renew a big folder's summary once its records are renewed: kept while every one of
        them is quiet (`wiki` given), dropped otherwise (None)."""
        summary: Summary | None = None
        if wiki is not None:
            count = self.buckets.get(folder, 1)
            summary = Summary(count, digest(raw), names_digest(wiki, wiki_stat), digest(wiki))
        if self.folders.get(folder) != summary:
            if summary is None:
                del self.folders[folder]
            else:
                self.folders[folder] = summary
            self.dirty = True

    def indexes_known(self, stats: tuple[Stat, ...]) -> bool:
        """Tell whether the indexes were checked at these stats and no article changed since."""
        limit = self.saved_ns - RACY_NS
        return (
            not self.wiki_changed
            and self.indexes == stats
            and all(older_than(stat, limit) for stat in stats)
        )

    def remember_indexes(self, stats: tuple[Stat, ...]) -> None:
        """Record that the indexes matched at these stats (saved even if unchanged while too
        recent to trust: a later save settles them)."""
        limit = self.saved_ns - RACY_NS
        if self.indexes != stats or not all(older_than(stat, limit) for stat in stats):
            self.indexes = stats
            self.dirty = True


def _same_but_time(old: Record, new: Record) -> bool:
    return old._replace(saved_ns=0) == new._replace(saved_ns=0)


def buckets_for(files: int) -> int:
    """How many buckets a folder of this many files (on its larger side) is spread over."""
    if files <= BUCKET_FILES:
        return 1
    return 1 << (-(-files // 256) - 1).bit_length()


def bucket_of(name: str, count: int) -> int:
    """The bucket of a file name; a raw file and its article (`x.txt`, `x.txt.md`) share one."""
    if count == 1:
        return 0
    stem = name[:-3] if name.endswith(".md") else name
    return zlib.crc32(stem.encode()) & (count - 1)


def split(folder: str, files: Folder, count: int) -> dict[Key, Folder]:
    """Spread a folder's files over its buckets (one key when it has one bucket)."""
    if count == 1:
        return {(folder, 1, 0): files}
    groups: dict[int, Folder] = {}
    mask, crc = count - 1, zlib.crc32  # bucket_of, inlined: this runs once per file
    for name, stat in files.items():
        stem = name[:-3] if name.endswith(".md") else name
        bucket = crc(stem.encode()) & mask
        group = groups.get(bucket)
        if group is None:
            group = groups[bucket] = {}
        group[name] = stat
    return {(folder, count, bucket): group for bucket, group in groups.items()}


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
    key: Key,
    raw: Folder,
    wiki: Folder,
    wiki_stat: Stat | None,
    others: tuple[tuple[str, str | None, str], ...],
    problems: tuple[tuple[str, str], ...],
    *,
    pending: bool,
    now: int,
    own_folder_stat: bool = False,
) -> Record:
    """Make a key's record as its files are now (`now` is when the cache will be saved).

    `own_folder_stat`: the folder's stat was taken after this run's own writes, under the
    workspace lock, so its recency says nothing about others' changes and is not held
    against the record.
    """
    stats = [*raw.values(), *wiki.values()] + ([] if own_folder_stat else [wiki_stat])
    tables = cache.open_folder(key)
    return Record(
        now,
        digest(raw),
        names_digest(wiki, wiki_stat),
        digest(wiki),
        not pending and all(older_than(stat, now - RACY_NS) for stat in stats if stat),
        others,
        problems,
        len(wiki) - len(others),
        marshal.dumps(tables),
    )


def load(path: Path, algorithm: str) -> StatCache:
    """Load the cache; a missing, corrupt or foreign one is an empty cache."""
    rows = path.with_name(path.stem + "-rows.marshal")
    empty = StatCache(rows_file=rows, algorithm=algorithm)
    try:
        with open(path, "rb") as handle:
            empty.file_base = stat_of_open(handle.fileno())
            data = marshal.loads(handle.read())
        # another compiler's cache: a record's "all fresh" was said of that compiler's articles
        if (data["format"], data["algorithm"], data["compiler"]) != (FORMAT, algorithm, COMPILER):
            return empty
        if not (
            isinstance(data["saved_ns"], int)
            and isinstance(data["records"], dict)
            and isinstance(data["indexes"], tuple | None)
            and isinstance(data["folders"], dict)
        ):
            return empty  # damaged: what it holds cannot be trusted
        records = {key: Record._make(record) for key, record in data["records"].items()}
        return StatCache(
            data["saved_ns"],
            records,
            indexes=data["indexes"],
            folders={folder: Summary._make(item) for folder, item in data["folders"].items()},
            rows_file=rows,
            algorithm=algorithm,
            file_base=empty.file_base,
        )
    except FileNotFoundError:
        empty.file_base = MISSING
        return empty
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return empty


def save(path: Path, cache: StatCache, algorithm: str, now: int) -> None:
    """Save the cache if it changed; `now` is the time the renewed records were made for."""
    settle(cache, now)
    write(path, cache, algorithm)


def settle(cache: StatCache, now: int) -> None:
    """What `save` does in memory: the renewed records take their place, saved at `now`; the
    cache then holds what `write` writes."""
    cache.taken = False
    if not cache.dirty:
        return
    for key, record in cache.renewed.items():
        if record is None:
            cache.records.pop(key, None)
        else:
            cache.records[key] = record
    cache.renewed.clear()
    cache.saved_ns = now
    cache.dirty = False
    cache.unwritten = True


def write(path: Path, cache: StatCache, algorithm: str) -> None:
    """Write what the cache settled, if it has not been written yet."""
    if cache._rows is not None and cache.rows_file is not None:
        save_files(cache.rows_file, cache._rows, 0)
    if not cache.unwritten:
        return
    cache.unwritten = False
    cache.file_base = None  # unless written: then what this cache holds is that file
    data = {
        "format": FORMAT,
        "algorithm": algorithm,
        "compiler": COMPILER,
        "saved_ns": cache.saved_ns,
        "records": {key: tuple(record) for key, record in sorted(cache.records.items())},
        "indexes": cache.indexes,
        "folders": {folder: tuple(item) for folder, item in sorted(cache.folders.items())},
    }
    try:
        # The stat of what this wrote: one taken after may be of another process's save.
        cache.file_base = fsio.atomic_write(path, marshal.dumps(data), durable=False)
    except OSError:
        return  # the cache is an optimisation: a read-only checkout still works without it
    cache.algorithm = algorithm


@dataclass
class FileCache:
    """Facts about files, each valid while its file's stat is unchanged (same racy rule)."""

    saved_ns: int = 0
    files: dict[str, tuple[Stat, Any]] = field(default_factory=dict)
    dirty: bool = False

    def get(self, rel: str, stat: Stat) -> Any | None:
        entry = self.files.get(rel)
        if entry is not None and entry[0] == stat and older_than(stat, self.saved_ns - RACY_NS):
            return entry[1]
        return None

    def known(self, wanted: Mapping[str, Stat]) -> dict[str, Any]:
        """`get` of many files at once: the value of each whose stat still holds."""
        limit = self.saved_ns - RACY_NS
        files = self.files
        found: dict[str, Any] = {}
        for rel, stat in wanted.items():
            entry = files.get(rel)
            if entry is not None and entry[0] == stat and older_than(stat, limit):
                found[rel] = entry[1]
        return found

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
        if not isinstance(data["saved_ns"], int) or not isinstance(data["files"], dict):
            return FileCache()  # damaged: what it holds cannot be trusted
        return FileCache(data["saved_ns"], data["files"])
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return FileCache()


def save_files(path: Path, cache: FileCache, version: int) -> None:
    """Save a FileCache if it changed or holds entries too recent to trust yet."""
    limit = cache.saved_ns - RACY_NS
    if not cache.dirty and all(older_than(stat, limit) for stat, _ in cache.files.values()):
        return
    cache.saved_ns = time.time_ns()
    data = {"format": (FORMAT, version), "saved_ns": cache.saved_ns, "files": cache.files}
    try:
        fsio.atomic_write(path, marshal.dumps(data))
    except OSError:
        return
    cache.dirty = False
