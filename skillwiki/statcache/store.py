"""The stat cache's file in .cache/: read at the start of a run, written once it settled.

A missing, damaged or foreign file reads as an empty cache, and a failed write leaves the
workspace working without one: the cache only saves looks, it never decides an answer alone.
"""

from __future__ import annotations

import marshal
from pathlib import Path

from skillwiki import COMPILER, fsio
from skillwiki.statcache.cache import FORMAT, MISSING, StatCache
from skillwiki.statcache.records import Record, Summary
from skillwiki.statcache.scan import stat_of_open


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


def open_cache(path: Path, algorithm: str, kept: StatCache | None) -> tuple[StatCache, bool]:
    """The cache a run starts from, and whether it is `kept` (the one the last run left in
    memory, taken over: see StatCache.take_over) rather than read from `path`."""
    if kept is not None and kept.take_over(path, algorithm):
        return kept, True
    return load(path, algorithm), False


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
    cache.save_rows()
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
