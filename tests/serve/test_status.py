"""`status` through `skillwiki serve`: answered from the plan its watcher keeps while nothing
changed (no stat of every file), made anew once anything did, by the server or by another
process; the same bytes as the command's own answer either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillwiki.config import load_config
from skillwiki.server.live import LiveWorkspace, WorkspaceLookup
from skillwiki.server.watch import start
from skillwiki.workspace import find_workspace
from tests.serve.test_serve import Serving, run
from tests.support import write


def _watched(tmp_path: Path) -> None:
    watcher = start(tmp_path)
    if watcher is None:
        pytest.skip("no inotify watcher on this system")
    watcher.close()


def _status(root: Path, *args: str) -> bytes:
    """`status` served, asserted the same bytes as the command's own answer."""
    alone = run(root, "status", *args, served=False)
    answered = run(root, "status", *args)
    assert answered == alone, args
    return answered.stdout


def test_status_is_answered_from_the_kept_plan_until_a_change(demo: Path, tmp_path: Path) -> None:
    _watched(tmp_path)
    run(demo, "compile", served=False)
    warm = LiveWorkspace(WorkspaceLookup(demo))
    ws = find_workspace(demo)
    config = load_config(ws.config_file)
    try:
        first = warm.plan(ws, config)
        assert warm.plan(ws, config) is first  # nothing changed: no look at the files
        with warm.reading():  # a read that compiles nothing leaves the plan as it is
            pass
        assert warm.plan(ws, config) is first
        raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
        write(raw, raw.read_text() + "\nOne more step.\n")
        with warm.reading():  # the read collects the change (and compiles it) ...
            pass
        second = warm.plan(ws, config)  # ... which the plan is told of all the same
        assert second is not first
        assert warm.plan(ws, config) is second
        write(tmp_path / "other.toml", "max_file_bytes = 100\n")
        other = load_config(tmp_path / "other.toml")
        assert warm.plan(ws, other) is not second  # other settings: a plan of their own
    finally:
        warm.close()


def test_a_read_after_status_sees_what_status_was_told(demo: Path, tmp_path: Path) -> None:
    """The plan's look at the watcher takes the change off its queue: the next read must not
    take its last look as still in step."""
    _watched(tmp_path)
    warm = LiveWorkspace(WorkspaceLookup(demo))
    ws = find_workspace(demo)
    config = load_config(ws.config_file)
    try:
        with warm.reading():
            pass
        with warm.reading() as read:
            assert read.unchanged
        raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
        write(raw, raw.read_text() + "\nThe kookaburra step.\n")
        warm.plan(ws, config)
        with warm.reading() as read:
            assert not read.unchanged and read.refreshed == 1
    finally:
        warm.close()


def test_status_served_sees_every_change_made_just_before_it(served: Serving) -> None:
    """Each status is served (the first makes the plan, the next ones keep it while nothing
    changed) and is the command's own answer, after a change by hand to a raw file, a file
    in a folder just made, another process's compile, and an article edited by hand."""
    root, dot = served.root, served.root / ".wiki"
    fresh = b"12 articles: 12 fresh, 0 new, 0 stale, 0 orphan, 0 edited\n"
    assert _status(root) == _status(root) == fresh
    raw = dot / "raw" / "docs" / "ci.md"
    write(raw, raw.read_text() + "\nOne more step.\n")
    assert _status(root) == (
        b"stale   .wiki/wiki/docs/ci.md\n"
        b"12 articles: 11 fresh, 0 new, 1 stale, 0 orphan, 0 edited\n"
    )
    write(dot / "raw" / "new" / "folder" / "page.md", "# A page\n\nIn a folder just made.\n")
    assert _status(root) == (
        b"stale   .wiki/wiki/docs/ci.md\n"
        b"new     .wiki/raw/new/folder/page.md\n"
        b"13 articles: 11 fresh, 1 new, 1 stale, 0 orphan, 0 edited\n"
    )
    assert run(root, "compile", served=False).status == 0  # another process writes
    assert _status(root) == fresh.replace(b"12", b"13")
    article = dot / "wiki" / "docs" / "ci.md"
    write(article, article.read_text() + "\nEdited by hand.\n")
    edited = _status(root, "--json", "--not-fresh")
    assert b'"state": "edited"' in edited and _status(root, "--json", "--not-fresh") == edited
    assert served.answered() == 7
