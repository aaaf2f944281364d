"""What the stat cache keeps per folder: a record of its files as they were, and how a big
folder's files are spread over several records (buckets) so that a change costs a look at a
few hundred files, not at the whole folder."""

from __future__ import annotations

import marshal
import zlib
from typing import NamedTuple

from skillwiki.statcache.scan import Folder, Stat

# A record covers one folder, or in a folder of more than BUCKET_FILES files one bucket of it
# (files spread by a hash of their name), so that a change costs a look at ~200 files.
Key = tuple[str, int, int]  # folder, how many buckets it has, which one
BUCKET_FILES = 512


class Record(NamedTuple):
    """What the cache knew about one folder (or bucket): raw/<folder> and wiki/<folder> together.

    The digests name the folder's listing as it was; while they match, the folder holds what
    it held then, and a trusted record (nothing left to compile, every file older than the
    racy window when saved) answers for every article in it without a look at any entry.
    """

    saved_ns: int
    raw: bytes  # digest of the raw files' names and stats
    names: bytes  # digest of the article names
    articles: bytes  # digest of the articles' names and stats
    trusted: bool
    others: tuple[tuple[str, str | None, str], ...]  # (article, raw, state) of non-fresh ones
    problems: tuple[tuple[str, str], ...]
    fresh: int  # how many articles are fresh
    tables: bytes  # marshal of the folder's raw and wiki entries, read only when needed


class Summary(NamedTuple):
    """A big folder whose buckets were all trusted, named whole, so that an unchanged folder is
    answered without spreading its files over buckets."""

    buckets: int
    raw: bytes
    names: bytes
    articles: bytes


def same_but_time(old: Record, new: Record) -> bool:
    """Tell whether two records say the same of their files, whenever they were made."""
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
