"""Readers never wait for a writer, and recall usage travels with the repository.

recall counts a hit with one O_APPEND write into .cache/hits.log, without the workspace lock;
`maintain --apply` rolls those up into the committed .wiki/usage.log (union-merged by git),
so that maintain on a fresh clone knows what another clone recalled.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from skillwiki.memory import usage
from skillwiki.workspace import Workspace
from tests.support import Invoke, write

LESSON_ID = "2026-11-30-channel-op-allowedtools-must-include-telegram-send"


@contextmanager
def held_lock(root: Path) -> Iterator[None]:
    """Hold the workspace lock as another skillwiki writer would."""
    fd = os.open(root / ".wiki" / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, b"4242\n", 0)
        yield
    finally:
        os.close(fd)


def test_readers_answer_at_once_while_a_writer_holds_the_lock(demo: Path, invoke: Invoke) -> None:
    (demo / ".wiki" / "config.toml").write_text("lock_timeout = 30\n")
    invoke("compile", "-w", str(demo))
    write(demo / ".wiki" / "raw" / "docs" / "pending.md", "# Pending\n\nA note not compiled.\n")
    with held_lock(demo):
        recalled = invoke("recall", "-w", str(demo), "--agent", "channel-op", "--json")
        queried = invoke("query", "-w", str(demo), "tool failure retry")
        shown = invoke("show", "-w", str(demo), "docs/ci.md")
        status = invoke("status", "-w", str(demo))
    for result in (recalled, queried, shown):
        assert result.exit_code == 0, result.output
        assert "Warning: not compiled: another skillwiki process is writing" in result.stderr
    assert status.exit_code == 0, status.output
    included = [item["id"] for item in json.loads(recalled.stdout)["lessons"] if item["included"]]
    assert LESSON_ID in included
    assert ".wiki/wiki/docs/tool-calls.md" in queried.stdout
    assert not (demo / ".wiki" / "wiki" / "docs" / "pending.md").exists()  # left to the writer
    hits = (demo / ".wiki" / ".cache" / "hits.log").read_text()
    assert f" {LESSON_ID}\n" in hits  # counted without the lock
    after = invoke("query", "-w", str(demo), "pending note")  # the lock is free: compiled now
    assert ".wiki/wiki/docs/pending.md" in after.stdout and "Warning" not in after.stderr


def test_recall_answers_when_hits_cannot_be_written(demo: Path, invoke: Invoke) -> None:
    invoke("compile", "-w", str(demo))
    (demo / ".wiki" / ".cache" / "hits.log").mkdir()  # an append there fails
    result = invoke("recall", "-w", str(demo), "--agent", "channel-op")
    assert result.exit_code == 0, result.output
    assert "Prevention:" in result.stdout


def _clone(source: Path, target: Path) -> Path:
    """What a fresh clone holds: every file but the gitignored .cache/ and .lock."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".cache", ".lock"))
    return target


def test_usage_rolled_up_by_maintain_travels_to_a_fresh_clone(
    demo: Path, tmp_path: Path, invoke: Invoke
) -> None:
    for _ in range(3):
        assert invoke("recall", "-w", str(demo), "--agent", "channel-op").exit_code == 0
    applied = json.loads(invoke("maintain", "-w", str(demo), "--apply", "--json").stdout)
    assert applied["usage_rolled_up"] >= 1
    lines = (demo / ".wiki" / "usage.log").read_text().splitlines()
    mine = [line for line in lines if line.endswith(f" {LESSON_ID}")]
    assert len(mine) == 1 and mine[0].startswith("2026-11-30 3 ")
    assert (demo / ".wiki" / ".gitattributes").read_text() == "usage.log merge=union\n"
    assert not (demo / ".wiki" / ".cache" / "hits.log").exists()
    clone = _clone(demo, tmp_path / "clone")
    assert usage.load(Workspace(clone))[LESSON_ID] == usage.Usage(3, "2026-11-30")
    # Rolled up again with nothing new: usage.log does not change.
    invoke("maintain", "-w", str(demo), "--apply")
    assert (demo / ".wiki" / "usage.log").read_text().splitlines() == lines


def test_union_merged_usage_counts_each_roll_up_once(tmp_path: Path, invoke: Invoke) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    invoke("init", "-w", str(root))
    ws = Workspace(root)
    base = "2026-10-01 2 aaaaaaaaaaaa lesson-a\n"
    ours = "2026-11-02 1 bbbbbbbbbbbb lesson-a\n"
    theirs = "2026-11-20 4 cccccccccccc lesson-a\n2026-11-20 1 cccccccccccc lesson-b\n"
    # git's union merge keeps both sides' lines; a line both sides had stays, maybe twice.
    ws.usage_log.write_text(base + ours + theirs + base + "garbage line\n2026-13 x y\n")
    write(ws.cache / "hits.log", "2026-11-30T12:00:00Z lesson-b\nnot a stamp lesson-c\n")
    assert usage.load(ws) == {
        "lesson-a": usage.Usage(7, "2026-11-20"),
        "lesson-b": usage.Usage(2, "2026-11-30T12:00:00Z"),
    }


def test_an_interrupted_roll_up_is_not_counted_twice(demo: Path, invoke: Invoke) -> None:
    ws = Workspace(demo)
    write(ws.cache / "hits.log", f"2026-11-29T08:00:00Z {LESSON_ID}\n")
    usage.roll_up(ws)
    once = ws.usage_log.read_text()
    # A roll-up killed after its append, before it removed the rolled file: the next one finds
    # the same lines again and leaves usage.log as it is.
    write(ws.cache / "hits.log.rolling", f"2026-11-29T08:00:00Z {LESSON_ID}\n")
    usage.roll_up(ws)
    assert ws.usage_log.read_text() == once
    assert usage.load(ws)[LESSON_ID].count == 1


def test_hits_of_earlier_versions_are_kept(demo: Path) -> None:
    ws = Workspace(demo)
    legacy = {LESSON_ID: {"count": 5, "last": "2026-11-01T10:00:00Z"}}
    write(ws.cache / "hits.json", json.dumps(legacy))
    assert usage.load(ws)[LESSON_ID] == usage.Usage(5, "2026-11-01T10:00:00Z")
    usage.roll_up(ws)
    assert not (ws.cache / "hits.json").exists()
    assert usage.load(ws)[LESSON_ID] == usage.Usage(5, "2026-11-01")
