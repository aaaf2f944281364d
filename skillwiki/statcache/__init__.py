"""What was known about each file at a given (size, mtime, inode, ctime), so that a run looks again
only at what changed.

`scan` lists raw/ and wiki/ folder by folder, `cache` is the file in .cache/ (a record per
folder or bucket, facts per file), `listing` keeps one run's listing and the records in step.
"""

from __future__ import annotations

from skillwiki.statcache.cache import (
    BUCKET_FILES,
    FORMAT,
    RACY_NS,
    FileCache,
    Key,
    Record,
    StatCache,
    Summary,
    bucket_of,
    buckets_for,
    digest,
    load,
    load_files,
    names_digest,
    record_of,
    save,
    save_files,
    settle,
    split,
    write,
)
from skillwiki.statcache.listing import Earlier, Listing
from skillwiki.statcache.scan import (
    Folder,
    Stat,
    folder_of,
    newest,
    older_than,
    relist_folders,
    scan,
    scan_folders,
    stat_files,
    stat_of,
    stat_of_open,
)

__all__ = [
    "BUCKET_FILES",
    "FORMAT",
    "RACY_NS",
    "Earlier",
    "FileCache",
    "Folder",
    "Key",
    "Listing",
    "Record",
    "Stat",
    "StatCache",
    "Summary",
    "bucket_of",
    "buckets_for",
    "digest",
    "folder_of",
    "load",
    "load_files",
    "names_digest",
    "newest",
    "older_than",
    "record_of",
    "relist_folders",
    "save",
    "settle",
    "save_files",
    "scan",
    "scan_folders",
    "split",
    "write",
    "stat_files",
    "stat_of",
    "stat_of_open",
]
