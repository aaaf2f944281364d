"""Which articles differ between the search index and wiki/: compared by stamp, and after a
compile, only in the folders it looked at."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Mapping
from typing import NamedTuple

from skillwiki.search.schema import in_chunks
from skillwiki.search.snapshot import ChangesSince
from skillwiki.statcache import Stat

# Past this many subfolders, a folder's own rows are counted by looking at each row's path.
MAX_SUBFOLDERS = 16


class Differences(NamedTuple):
    """The stamp of each article compared (path -> stamp), those whose stamp the index does
    not hold, and those it holds that are gone; both lists sorted."""

    wanted: dict[str, str]
    changed: list[str]
    gone: list[str]


def differences(
    db: sqlite3.Connection, articles: Callable[[], Mapping[str, Stat]], since: ChangesSince | None
) -> Differences:
    """Compare the index on `db` with the articles.

    With `since`, only the folders named there are compared (subfolders left out); otherwise
    every article.
    """
    if since is None:
        wanted = {rel: stamp(stat) for rel, stat in articles().items()}
        have = dict(db.execute("SELECT path, stamp FROM docs").fetchall())
    else:
        wanted = {}
        have = {}
        for folder, found in since.folders.items():
            wanted.update((rel, stamp(stat)) for rel, stat in found.items())
            have.update(_rows_looked_at(db, folder, found, since))
    changed = sorted(rel for rel, value in wanted.items() if have.get(rel) != value)
    gone = sorted(rel for rel in have if rel not in wanted)
    return Differences(wanted, changed, gone)


def stamp(stat: Stat) -> str:
    """An article's stat as the index keeps it, to be compared with the next one."""
    return ":".join(map(str, stat))


def _rows_looked_at(
    db: sqlite3.Connection, folder: str, found: Mapping[str, Stat], since: ChangesSince
) -> dict[str, str]:
    """The rows (path -> stamp) of one folder's articles that `since` says may differ: those
    looked at, and those of the parts looked at that are gone.

    Those looked at are read by path. The parts not looked at hold what they held when the
    index was synced, so when the folder's rows number as many as its articles not looked at
    plus the rows just read, none is gone; else its rows are read by a range of paths. (On a
    folder of thousands, reading every row into Python cost more than all the rest.)
    """
    have: dict[str, str] = {}
    for marks, chunk in in_chunks(list(found)):
        have.update(db.execute(f"SELECT path, stamp FROM docs WHERE path IN ({marks})", chunk))
    present = since.present.get(folder)
    if present is not None and rows_in(db, folder, since.present) == (
        len(present) - len(found) + len(have)
    ):
        return have
    return have | gone_rows(db, folder, found, present or {}, since)


def rows_in(db: sqlite3.Connection, folder: str, folders: Collection[str]) -> int:
    """How many rows the index holds for articles right in `folder`, or more (then it holds
    rows of a subfolder that is not among `folders`, the folders there are now).

    The rows below `folder` are counted on the index of paths alone, less those below each
    of its subfolders now: a few ranges, where a count that checks each row's path for a
    `/` reads every row of a folder of thousands (it cost most of a sync after one change).
    """
    below = sorted(
        {
            folder + sub[len(folder) :].partition("/")[0] + "/"
            for sub in folders
            if len(sub) > len(folder) and sub.startswith(folder)
        }
    )
    if len(below) > MAX_SUBFOLDERS:
        (rows,) = db.execute(
            "SELECT count(*) FROM docs"
            " WHERE path >= ? AND path < ? AND instr(substr(path, ?), '/') = 0",
            (folder, folder + "\U0010ffff", len(folder) + 1),
        ).fetchone()
        return int(rows)
    count = 0
    for sign, start in [(1, folder), *((-1, sub) for sub in below)]:
        (rows,) = db.execute(
            "SELECT count(*) FROM docs WHERE path >= ? AND path < ?", (start, start + "\U0010ffff")
        ).fetchone()
        count += sign * rows
    return count


def gone_rows(
    db: sqlite3.Connection,
    folder: str,
    found: Mapping[str, Stat],
    present: Mapping[str, object],
    since: ChangesSince,
) -> dict[str, str]:
    """The rows (path -> stamp) of a folder's articles gone from the parts `since` looked at,
    read by a range of paths (subfolders left out); `found`: the articles looked at, `present`:
    the names of all the folder holds now."""
    gone = {}
    for rel, value in db.execute(
        "SELECT path, stamp FROM docs WHERE path >= ? AND path < ?", (folder, folder + "\U0010ffff")
    ):
        name = rel[len(folder) :]
        if rel not in found and "/" not in name and name not in present and since.covers(rel):
            gone[rel] = value
    return gone
