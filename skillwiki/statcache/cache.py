"""The stat cache in .cache/: what was known about each file at a given (size, mtime, inode,
ctime)."""

from __future__ import annotations

import marshal
import time
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillwiki import fsio
from skillwiki.statcache.records import (
    Key,
    Record,
    Summary,
    bucket_of,
    digest,
    names_digest,
    same_but_time,
)
from skillwiki.statcache.scan import Folder, Stat, folder_of, older_than, stat_of

FORMAT = 11  # 10: a stat holds the ctime; 11: an article's facts hold its bytes' digest
# A file modified this close to when the cache was saved may have changed again within the same
# timestamp tick without its stat changing ("racily clean"): such entries are re-checked.
RACY_NS = 2_000_000_000

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
    folders: dict[str, Summary] = field(default_factory=dict)  # of big folders, all trusted
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
        """Each article's catalog row, read from its file the first time it is asked for."""
        if self._rows is None:
            self._rows = load_files(self.rows_file, 0) if self.rows_file else FileCache()
        return self._rows

    def save_rows(self) -> None:
        """Save the catalog rows, if they were read (and so may have changed)."""
        if self._rows is not None and self.rows_file is not None:
            save_files(self.rows_file, self._rows, 0)

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

    def article_facts(
        self, rel: str, stat: Stat, *, recent: bool = False
    ) -> tuple[Any, ...] | None:
        """An article's facts learned at this stat, if its stat vouches for them; `recent`:
        also when it was too recent to (the caller then vouches for them another way)."""
        key = self.key_of(rel)
        entry = self.open_folder(key)[1].get(rel)
        if entry is not None and entry[0] == stat and (recent or older_than(stat, self.limit(key))):
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
        if old is not None and record is not None and same_but_time(old, record):
            return
        self.renewed[key] = record
        self.dirty = True

    def keys_of(self, folder: str, records: Collection[Key] | None = None) -> list[Key]:
        """The keys of a folder's records (of `records`, by default the loaded ones), for its
        present number of buckets."""
        count = self.buckets.get(folder, 1)
        found = self.records if records is None else records
        return [key for key in found if key[0] == folder and key[1] == count]

    def trusted_record(self, key: Key) -> Record | None:
        """A key's record, if it is trusted: it answers for its files while its digests still
        name them."""
        record = self.records.get(key)
        return record if record is not None and record.trusted else None

    def folder_summary(self, folder: str) -> tuple[Summary, list[tuple[Key, Record]]] | None:
        """A big folder's summary and its records, while the summary was made for its present
        number of buckets and every record of it is trusted (checked against the summary's
        digests, they answer for the whole folder)."""
        summary = self.folders.get(folder)
        if summary is None or summary.buckets != self.buckets[folder]:
            return None
        records = [(key, self.records[key]) for key in self.keys_of(folder)]
        if not records or not all(record.trusted for _, record in records):
            return None
        return summary, records

    def all_trusted(self, folder: str) -> bool:
        """Tell whether every record of a big folder, as renewed, is trusted."""
        records = {**self.records, **self.renewed}
        mine = [records[key] for key in self.keys_of(folder, records)]
        return (
            self.buckets.get(folder, 1) > 1
            and bool(mine)
            and all(r is not None and r.trusted for r in mine)
        )

    def summarize(
        self, folder: str, raw: Folder, wiki: Folder | None, wiki_stat: Stat | None
    ) -> None:
        """Renew a big folder's summary once its records are renewed: kept while every one of
        them is trusted (`wiki` given), dropped otherwise (None)."""
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

    def at(self, rel: str, stat: Stat) -> Any | None:
        """What is known of a file at this stat, however recent: for a caller that vouches
        for it another way."""
        entry = self.files.get(rel)
        return entry[1] if entry is not None and entry[0] == stat else None

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
