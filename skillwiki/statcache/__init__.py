"""What was known about each file at a given (size, mtime, inode, ctime), so that a run looks again
only at what changed.

`scan` lists raw/ and wiki/ folder by folder; `records` names a folder's files (or a bucket of
a big folder's) in a record; `cache` holds the records and the facts per file in memory, and
`store` reads and writes its file in .cache/; `listing` keeps one run's listing and the records
in step; `changes` tells what of them still holds after the files a watcher saw change; `answering`
asks, for a plan, which folders their records answer for and which must be looked into.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillwiki import lazy
from skillwiki.statcache.answering import answers
from skillwiki.statcache.cache import RACY_NS, FileCache, StatCache, load_files, save_files
from skillwiki.statcache.listing import Listing
from skillwiki.statcache.records import BUCKET_FILES, Key, Record, bucket_of, buckets_for, split
from skillwiki.statcache.scan import (
    Folder,
    Stat,
    folder_of,
    newest,
    older_than,
    read_with_stat,
    relist_folders,
    scan,
    scan_folders,
    stat_of,
)
from skillwiki.statcache.store import open_cache, settle, write

if TYPE_CHECKING:
    from skillwiki.statcache.changes import Changes

__all__ = [
    "BUCKET_FILES",
    "RACY_NS",
    "Changes",
    "FileCache",
    "Folder",
    "Key",
    "Listing",
    "Record",
    "Stat",
    "StatCache",
    "answers",
    "bucket_of",
    "buckets_for",
    "folder_of",
    "load_files",
    "newest",
    "older_than",
    "open_cache",
    "read_with_stat",
    "relist_folders",
    "save_files",
    "scan",
    "scan_folders",
    "settle",
    "split",
    "stat_of",
    "write",
]

# What a watcher tells (a server's): loaded when first asked for, never by the command line.
__getattr__ = lazy.exports(__name__, {"Changes": "changes"})
