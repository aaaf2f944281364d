"""No command creates, changes or removes anything outside the workspace, symlinks or not.

A cloned repository may hold symlinks under .wiki/. Each case links one path of the layout to
a folder or file outside the workspace, runs a command that would write there, and checks:
exit 2, one `Error:` line naming the link, and not a byte changed outside.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import Invoke, snapshot, write

LESSON = ["record-lesson", "--title", "Pin the base image", "--summary", "Builds drifted."]


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    write(outside / "keep.md", "# A user's file\n")
    write(outside / "notes.md", "# Notes\n")
    return outside


def _move_out(ws: Path, rel: str, outside: Path) -> str:
    """Replace .wiki/<rel> by a symlink to a copy of it outside; return the link's name."""
    link = ws / ".wiki" / rel
    target = outside / (rel.replace("/", "-") or "dot-wiki")
    if link.exists():
        os.rename(link, target)
    else:
        target.mkdir(parents=True)
    link.symlink_to(target)
    return f".wiki/{rel}".rstrip("/")


# name -> (what to link outside, the command that would write through it)
CASES: dict[str, tuple[str, list[str]]] = {
    ".wiki itself, ingest": ("", ["ingest", "doc.md"]),
    ".wiki itself, init": ("", ["init"]),
    "wiki folder, ingest": ("wiki", ["ingest", "doc.md"]),
    "wiki folder, compile --force": ("wiki", ["compile", "--force"]),
    "raw folder, ingest": ("raw", ["ingest", "doc.md"]),
    "raw/lessons, record-lesson": ("raw/lessons", LESSON),
    "cache folder, query": (".cache", ["query", "anything"]),
    "cache folder, lint": (".cache", ["lint"]),
    "log.md, ingest": ("log.md", ["ingest", "doc.md"]),
    "lock file, compile": (".lock", ["compile", "--force"]),
    "index.json, compile": ("index.json", ["compile", "--force"]),
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_symlink_of_the_layout_that_leads_out_is_refused(
    ws: Path, invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    rel, argv = CASES[case]
    write(ws / "doc.md", "# Doc\n\nText.\n")
    monkeypatch.chdir(ws)
    assert invoke("-w", str(ws), "ingest", "doc.md").exit_code == 0
    outside = _outside(tmp_path)
    name = _move_out(ws, rel, outside)
    before = snapshot(outside)
    result = invoke("-w", str(ws), *argv)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {name}: is a symlink that leads out")
    assert snapshot(outside) == before


def test_a_symlinked_subfolder_of_the_wiki_is_not_written_through(
    ws: Path, invoke: Invoke, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)
    write(ws / ".wiki" / "raw" / "guide" / "a.md", "# A\n")
    (ws / ".wiki" / "wiki" / "guide").symlink_to(outside)
    before = snapshot(outside)
    result = invoke("-w", str(ws), "compile")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: .wiki/wiki/guide: is a symlink that leads out")
    assert snapshot(outside) == before


def test_a_symlink_that_stays_inside_is_followed(tmp_path: Path, invoke: Invoke) -> None:
    """`.wiki -> tools/wiki`: the workspace kept elsewhere in the same repository works."""
    root = tmp_path / "repo"
    (root / "tools" / "wiki").mkdir(parents=True)
    (root / ".wiki").symlink_to("tools/wiki")
    assert invoke("-w", str(root), "init").exit_code == 0
    result = invoke("-w", str(root), *LESSON, "--json")
    assert result.exit_code == 0, result.output
    lessons = root / "tools" / "wiki" / "raw" / "lessons"
    assert [path.name[11:] for path in lessons.iterdir()] == ["pin-the-base-image.md"]
    found = invoke("-w", str(root), "query", "base image")
    assert found.exit_code == 0 and "pin-the-base-image" in found.stdout


def test_recall_write_through_a_link_inside_updates_its_target(ws: Path, invoke: Invoke) -> None:
    """CLAUDE.md -> AGENTS.md: the block goes into AGENTS.md, and CLAUDE.md stays a link."""
    write(ws / "AGENTS.md", "# Agents\n\nOur rules.\n")
    (ws / "CLAUDE.md").symlink_to("AGENTS.md")
    result = invoke("-w", str(ws), "recall", "--write", str(ws / "CLAUDE.md"))
    assert result.exit_code == 0, result.output
    assert (ws / "CLAUDE.md").is_symlink()
    text = (ws / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith("# Agents\n\nOur rules.\n") and "skillwiki:recall" in text


def test_recall_write_through_a_link_that_leads_out_is_refused(
    ws: Path, invoke: Invoke, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)
    (ws / "CLAUDE.md").symlink_to(outside / "notes.md")
    before = snapshot(outside)
    result = invoke("-w", str(ws), "recall", "--write", str(ws / "CLAUDE.md"))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
    assert "leads out of the workspace" in result.stderr
    assert (ws / "CLAUDE.md").is_symlink() and snapshot(outside) == before


def test_recall_write_outside_the_workspace_is_refused(
    ws: Path, invoke: Invoke, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)
    before = snapshot(outside)
    result = invoke("-w", str(ws), "recall", "--write", str(outside / "AGENTS.md"))
    assert result.exit_code == 2 and result.stderr.startswith("Error: ")
    assert "outside the workspace" in result.stderr and snapshot(outside) == before


@pytest.mark.parametrize(
    "key",
    ["/etc/hostname", "../../outside/keep.md", "wiki/../../../outside/keep.md", "linked.md"],
)
def test_show_reads_nothing_outside(ws: Path, invoke: Invoke, tmp_path: Path, key: str) -> None:
    outside = _outside(tmp_path)
    (ws / ".wiki" / "wiki" / "linked.md").symlink_to(outside / "keep.md")
    result = invoke("-w", str(ws), "show", key, "--no-compile")
    assert result.exit_code == 2 and result.stderr.startswith("Error: ")
    assert "A user's file" not in result.stdout


@pytest.mark.parametrize("given", ["{outside}/keep.md", "{ws}/../outside/keep.md", "link.md"])
def test_record_lesson_path_outside_is_refused(
    ws: Path, invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    outside = _outside(tmp_path)
    (ws / "link.md").symlink_to(outside / "keep.md")
    monkeypatch.chdir(ws)
    path = given.format(outside=outside, ws=ws)
    result = invoke("-w", str(ws), *LESSON, "--path", path)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {path}: --path must name a file inside the workspace\n"
    assert not (ws / ".wiki" / "raw" / "lessons").exists() or not any(
        (ws / ".wiki" / "raw" / "lessons").iterdir()
    )
