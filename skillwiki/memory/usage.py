"""How often recall showed each lesson, and when last: what maintain's archive and promote
decisions and feedback's flag read.

Two records, so that recall never waits for a writer and usage travels with the repository:

- `.wiki/.cache/hits.log` (this clone; gitignored): recall appends `<stamp> <id>` lines in one
  O_APPEND write, without the workspace lock. If even that fails, recall answers anyway.
- `.wiki/usage.log` (committed): `maintain --apply` rolls the local lines up into one line per
  lesson, `<last day> <count> <tag> <id>`, and appends them. It changes only when maintain is
  applied, never per query, and `.wiki/.gitattributes` marks it `merge=union`, so roll-ups made
  on two branches merge without a conflict. The tag names the roll-up: a line that a merge
  brings twice counts once, and a roll-up interrupted after its append is not counted again.

A lesson's usage is the sum of both (and of a `hits.json` left by earlier versions).

Both are read as what they are, files anyone can edit and every clone pulls: a count is ASCII
digits (never `²` or `٣`), a day a real calendar day in ASCII digits, and a record whose day is
after today is damage, counted as none like any other damaged line. Clamped to today it would
read as a recall today, on every day to come, and its lesson would never be archived.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from skillwiki import clock, fsio
from skillwiki.errors import SkillwikiError
from skillwiki.fingerprint import fingerprint
from skillwiki.workspace import Workspace

MAX_HITS = 10**9  # a count beyond this is damage, not use
GITATTRIBUTES = "usage.log merge=union\n"
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_COUNT = re.compile(r"[0-9]{1,10}")


@dataclass(frozen=True)
class Usage:
    count: int
    last: str  # the stamp (or day) recall last showed the lesson; "" when unknown

    def __add__(self, other: Usage) -> Usage:
        return Usage(min(self.count + other.count, MAX_HITS), max(self.last, other.last))


NONE = Usage(0, "")


def hits_log(ws: Workspace) -> Path:
    return ws.cache / "hits.log"


def _rolling(ws: Workspace) -> Path:
    return ws.cache / "hits.log.rolling"


def _legacy(ws: Workspace) -> Path:
    return ws.cache / "hits.json"


def count(ws: Workspace, ids: Iterable[str], when: str) -> None:
    """Record that recall showed these lessons: one append, no lock, never an error."""
    lines = "".join(f"{when} {lesson_id}\n" for lesson_id in ids if "\n" not in lesson_id)
    if not lines:
        return
    try:
        fsio.make_dirs(ws.cache)
        fsio.append(hits_log(ws), lines.encode(), durable=False)
    except (OSError, SkillwikiError):
        pass  # a read-only checkout, a full disk: the answer matters more than the count


def load(ws: Workspace, today: date | None = None) -> dict[str, Usage]:
    """Each lesson's usage from every record up to `today` (the clock's, unless given);
    damaged lines and files count as none."""
    on = today or clock.today()
    found: dict[str, Usage] = {}
    for source in (
        _committed(_read(ws.usage_log), on),
        _local(_read(_rolling(ws)) + _read(hits_log(ws)), on),
        _legacy_hits(_read(_legacy(ws)), on),
    ):
        for lesson_id, usage in source.items():
            found[lesson_id] = found.get(lesson_id, NONE) + usage
    return found


def roll_up(ws: Workspace) -> int:
    """Move this clone's hits into usage.log (the caller holds the workspace lock); return
    how many lessons got a line."""
    local, rolling, legacy = hits_log(ws), _rolling(ws), _legacy(ws)
    if not rolling.exists() and local.exists():
        fsio.move(local, rolling)  # appends that come now start a new local log
    data, old = _read(rolling), _read(legacy)
    gathered: dict[str, Usage] = {}
    on = clock.today()
    for source in (_local(data, on), _legacy_hits(old, on)):
        for lesson_id, usage in source.items():
            gathered[lesson_id] = gathered.get(lesson_id, NONE) + usage
    tag = fingerprint(data + b"\0" + old)[-12:]
    if gathered and tag not in _tags(_read(ws.usage_log)):
        lines = "".join(
            f"{usage.last[:10]} {usage.count} {tag} {lesson_id}\n"
            for lesson_id, usage in sorted(gathered.items())
        )
        fsio.append(ws.usage_log, lines.encode())
    fsio.remove_file(rolling)
    fsio.remove_file(legacy)
    attributes = ws.dot / ".gitattributes"
    if gathered and not attributes.exists():
        fsio.atomic_write(attributes, GITATTRIBUTES.encode())
    return len(gathered)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").split("\n")


def _dated(stamp: str, on: date) -> bool:
    """Tell whether `stamp` starts with a real day, in ASCII digits, no later than `on`."""
    if not _DAY.match(stamp):
        return False
    try:
        return date.fromisoformat(stamp[:10]) <= on
    except ValueError:  # 2026-02-30
        return False


def _local(data: bytes, on: date) -> dict[str, Usage]:
    """`<stamp> <id>` lines: one recall each."""
    found: dict[str, Usage] = {}
    for line in _lines(data):
        stamp, _, lesson_id = line.partition(" ")
        if lesson_id and _dated(stamp, on):
            found[lesson_id] = found.get(lesson_id, NONE) + Usage(1, stamp)
    return found


def _committed(data: bytes, on: date) -> dict[str, Usage]:
    """`<last day> <count> <tag> <id>` lines, each counted once however often a merge
    brought it."""
    found: dict[str, Usage] = {}
    for line in dict.fromkeys(_lines(data)):
        parts = line.split(" ", 3)
        if len(parts) != 4 or len(parts[0]) != 10 or not _dated(parts[0], on):
            continue
        if not _COUNT.fullmatch(parts[1]):
            continue
        number = int(parts[1])
        if number <= MAX_HITS:
            found[parts[3]] = found.get(parts[3], NONE) + Usage(number, parts[0])
    return found


def _tags(data: bytes) -> set[str]:
    return {parts[2] for line in _lines(data) if len(parts := line.split(" ", 3)) == 4}


def _legacy_hits(data: bytes, on: date) -> dict[str, Usage]:
    """The hits.json of earlier versions: {id: {"count": n, "last": stamp}}."""
    try:
        loaded = json.loads(data) if data else {}
    except ValueError:
        return {}
    found: dict[str, Usage] = {}
    for lesson_id, entry in loaded.items() if isinstance(loaded, dict) else ():
        if not isinstance(entry, dict):
            continue
        number, last = entry.get("count"), entry.get("last")
        last = last if isinstance(last, str) else ""
        if last and not _dated(last, on):
            continue
        if isinstance(number, int) and not isinstance(number, bool) and 0 <= number <= MAX_HITS:
            found[str(lesson_id)] = Usage(number, last)
    return found
