from __future__ import annotations

import contextlib
import errno
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import skillwiki.ingest as ingest_module
from skillwiki import fsio
from tests.support import Invoke, mtimes, snapshot, write


def test_ingest_folder_mirrors_paths_and_records_origin(ws: Path, invoke: Invoke) -> None:
    write(ws / "docs" / "design.md", "# Design\n\nThe design.\n")
    write(ws / "docs" / "设计" / "笔记.md", "# 笔记\n\n内容。\n")
    write(ws / "docs" / "notes.txt", "Plain notes.\n")
    write(ws / "docs" / "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    write(ws / "docs" / ".hidden.md", "# hidden\n")
    write(ws / "docs" / "__init__.py", "")
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [item["raw"] for item in report["files"]] == [
        "docs/design.md",
        "docs/notes.txt",
        "docs/设计/笔记.md",
    ]
    assert report["skipped"] == 2  # logo.png and __init__.py: not Markdown or plain text
    assert report["empty"] == 0 and report["refused"] == []
    raw = (ws / ".wiki" / "raw" / "docs" / "design.md").read_text()
    assert raw == "---\norigin: docs/design.md\n---\n# Design\n\nThe design.\n"
    assert (ws / ".wiki" / "wiki" / "docs" / "设计" / "笔记.md").is_file()
    assert (ws / ".wiki" / "wiki" / "docs" / "notes.txt.md").is_file()
    assert report["compile"]["counts"]["new"] == 3


def test_reingest_updates_in_place_and_unchanged_writes_nothing(ws: Path, invoke: Invoke) -> None:
    note = write(ws / "docs" / "a.md", "# A\n\nFirst.\n")
    invoke("ingest", "-w", str(ws), str(note))
    before = mtimes(ws)
    result = invoke("ingest", "-w", str(ws), str(note))
    assert "unchanged docs/a.md -> .wiki/raw/docs/a.md" in result.stdout
    assert mtimes(ws) == before
    note.write_text("# A\n\nSecond.\n")
    invoke("ingest", "-w", str(ws), str(note))
    assert sorted(p.name for p in (ws / ".wiki" / "raw" / "docs").iterdir()) == ["a.md"]
    assert "Second." in (ws / ".wiki" / "wiki" / "docs" / "a.md").read_text()


def test_ingest_keeps_frontmatter_and_applies_options(ws: Path, invoke: Invoke) -> None:
    note = write(ws / "n.md", "---\nowner: me\ntags: [x]\n---\nBody text.\n")
    result = invoke(
        "ingest", "-w", str(ws), str(note), "--title", "Named", "--tags", "a, b", "--summary", "S."
    )
    assert result.exit_code == 0
    raw = (ws / ".wiki" / "raw" / "n.md").read_text()
    assert raw == (
        "---\nowner: me\ntags:\n  - a\n  - b\ntitle: Named\nsummary: S.\norigin: n.md\n---\nBody text.\n"
    )


def test_ingest_from_outside_the_workspace_uses_file_name(
    ws: Path, tmp_path: Path, invoke: Invoke
) -> None:
    first = write(tmp_path / "one" / "README.md", "# One\n")
    second = write(tmp_path / "two" / "README.md", "# Two\n")
    invoke("ingest", "-w", str(ws), str(first), str(second))
    raw = ws / ".wiki" / "raw"
    assert f"origin: {first.as_posix()}" in (raw / "README.md").read_text()
    assert f"origin: {second.as_posix()}" in (raw / "README-2.md").read_text()
    first.write_text("# One, again\n")
    invoke("ingest", "-w", str(ws), str(first))
    assert sorted(p.name for p in raw.iterdir()) == ["README-2.md", "README.md"]
    assert "One, again" in (raw / "README.md").read_text()


def test_ingest_stdin_with_name(ws: Path, invoke: Invoke) -> None:
    result = invoke(
        "ingest", "-w", str(ws), "-", "--name", "deploy.md", input="# Deploy\n\nSteps.\n"
    )
    assert result.exit_code == 0, result.output
    assert (ws / ".wiki" / "raw" / "deploy.md").read_text().startswith("---\norigin: stdin\n---\n")
    assert (ws / ".wiki" / "wiki" / "deploy.md").is_file()


def test_ingest_no_compile(ws: Path, invoke: Invoke) -> None:
    note = write(ws / "a.md", "# A\n")
    invoke("ingest", "-w", str(ws), str(note), "--no-compile")
    assert (ws / ".wiki" / "raw" / "a.md").exists()
    assert not (ws / ".wiki" / "wiki" / "a.md").exists()


def test_ingest_logs_one_line_per_file(ws: Path, invoke: Invoke) -> None:
    write(ws / "d" / "a.md", "# A\n")
    write(ws / "d" / "b.md", "# B\n")
    invoke("ingest", "-w", str(ws), str(ws / "d"))
    lines = (ws / ".wiki" / "log.md").read_text().splitlines()
    ingests = [line for line in lines if " ingest " in line]
    assert [line.split(" ", 2)[2] for line in ingests] == [
        "ingest d/a.md -> raw/d/a.md",
        "ingest d/b.md -> raw/d/b.md",
    ]


def test_ingest_bom_is_accepted_and_stripped(ws: Path, invoke: Invoke) -> None:
    note = write(ws / "bom.md", b"\xef\xbb\xbf# Bom\r\n\r\nText.\r\n")
    assert invoke("ingest", "-w", str(ws), str(note)).exit_code == 0
    assert (
        ws / ".wiki" / "raw" / "bom.md"
    ).read_bytes() == b"---\norigin: bom.md\n---\n# Bom\n\nText.\n"


def test_ingest_a_hand_written_raw_file_is_not_overwritten(ws: Path, invoke: Invoke) -> None:
    write(ws / ".wiki" / "raw" / "a.md", "# Mine, written by hand\n")
    note = write(ws / "a.md", "# A\n")
    before = snapshot(ws)
    result = invoke("ingest", "-w", str(ws), str(note))
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: .wiki/raw/a.md: already holds a note from '', not from 'a.md'; move it first\n"
    )
    assert snapshot(ws) == before


def test_a_virtual_environment_in_a_folder_is_left_out(ws: Path, invoke: Invoke) -> None:
    """A folder holding pyvenv.cfg (PEP 405) is a virtual environment, whatever its name: its
    packages' files are not notes. Named itself, it is ingested as asked."""
    write(ws / "guide.md", "# Guide\n")
    write(ws / "env" / "pyvenv.cfg", "home = /usr/bin\n")
    write(ws / "env" / "lib" / "site-packages" / "pkg" / "README.md", "# Pkg\n")
    write(ws / "docs" / "env.md", "# Env\n")  # a note about environments is a note
    result = invoke("ingest", "-w", str(ws), str(ws), "--json")
    report = json.loads(result.stdout)
    assert [item["raw"] for item in report["files"]] == ["docs/env.md", "guide.md"]
    assert report["environments"] == [str(ws / "env")]
    plain = invoke("ingest", "-w", str(ws), str(ws))
    assert f"skipped {ws / 'env'}/: a virtual environment (pyvenv.cfg is in it)\n" in plain.stdout
    named = json.loads(invoke("ingest", "-w", str(ws), str(ws / "env"), "--json").stdout)
    assert [item["raw"] for item in named["files"]] == ["env/lib/site-packages/pkg/README.md"]


def test_a_folder_is_ingested_without_what_gitignore_leaves_out(ws: Path, invoke: Invoke) -> None:
    """In a repository, what its ignore files leave out of a folder (a docs build, logs) is
    not ingested, but counted: each .gitignore read from its own folder, a deeper one's
    negation winning, .git/info/exclude too. A folder that git ignores is ingested when it
    is the one named; outside a repository .gitignore means nothing."""
    write(ws / ".git" / "info" / "exclude", "drafts/\n")
    write(ws / ".gitignore", "_build/\n*.log\n/notes.md\n")
    write(ws / "docs" / ".gitignore", "!keep.log\n")
    write(ws / "docs" / "guide.md", "# Guide\n")
    write(ws / "docs" / "_build" / "html" / "page.md", "# Built\n")
    write(ws / "docs" / "run.log", "a log\n")
    write(ws / "docs" / "keep.log", "a log kept\n")
    write(ws / "docs" / "drafts" / "idea.md", "# Idea\n")
    write(ws / "docs" / "notes.md", "# Notes deeper down\n")  # /notes.md is the root's only
    write(ws / "notes.md", "# Notes\n")

    report = json.loads(invoke("ingest", "-w", str(ws), str(ws), "--all-text", "--json").stdout)
    assert [item["raw"] for item in report["files"]] == [
        "docs/guide.md",
        "docs/keep.log",
        "docs/notes.md",
    ]
    assert report["ignored"] == 4  # docs/_build/, docs/drafts/, docs/run.log, notes.md
    plain = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert "skipped 3 file(s) and folder(s) that .gitignore leaves out\n" in plain.stdout
    named = json.loads(
        invoke("ingest", "-w", str(ws), str(ws / "docs" / "_build" / "html"), "--json").stdout
    )
    assert [item["raw"] for item in named["files"]] == ["docs/_build/html/page.md"]
    assert named["ignored"] == 0

    outside = ws.parent / "elsewhere"
    write(outside / ".gitignore", "*.log\n")
    write(outside / "run.log", "a log\n")
    report = json.loads(
        invoke("ingest", "-w", str(ws), str(outside), "--include", "*.log", "--json").stdout
    )
    assert [item["raw"] for item in report["files"]] == ["run.log"] and report["ignored"] == 0


def test_hidden_files_and_folders_of_a_folder_are_counted(ws: Path, invoke: Invoke) -> None:
    """A name that starts with '.' (tldr's page on the `..` command, `..md`; `.github/`) can
    have no place in .wiki/, whose names are never hidden: left out, but counted and said."""
    write(ws / "pages" / "common" / "..md", "# ..\n\n> Move to the parent directory.\n")
    write(ws / "pages" / "common" / "cd.md", "# cd\n\n> Change the current directory.\n")
    write(ws / "pages" / ".github" / "workflow.md", "# CI\n")
    report = json.loads(invoke("ingest", "-w", str(ws), str(ws / "pages"), "--json").stdout)
    assert [item["raw"] for item in report["files"]] == ["pages/common/cd.md"]
    assert report["hidden"] == 2 and report["skipped"] == 0
    plain = invoke("ingest", "-w", str(ws), str(ws / "pages"))
    assert "skipped 2 hidden file(s) and folder(s) (named '.*')\n" in plain.stdout


def test_tags_written_as_one_string_with_commas_are_a_list(ws: Path, invoke: Invoke) -> None:
    """`tags: deploy, ci` is two tags to compile, to `query --tag` and to lint alike; a
    string without a comma is one tag."""
    write(ws / "docs" / "ship.md", "---\ntags: deploy, ci\n---\n# Ship\n\nShip the release.\n")
    write(ws / "docs" / "one.md", "---\ntags: release notes\n---\n# One\n\nShip notes.\n")
    assert invoke("ingest", "-w", str(ws), str(ws / "docs")).exit_code == 0
    article = (ws / ".wiki" / "wiki" / "docs" / "ship.md").read_text()
    assert "tags:\n  - deploy\n  - ci\n" in article
    assert "tags:\n  - release notes\n" in (ws / ".wiki" / "wiki" / "docs" / "one.md").read_text()
    for tag in ("deploy", "ci"):
        found = invoke("query", "-w", str(ws), "ship", "--tag", tag, "--json")
        assert [hit["path"] for hit in json.loads(found.stdout)["results"]] == [
            ".wiki/wiki/docs/ship.md"
        ]
    lint = invoke("lint", "-w", str(ws), "--format", "json")
    assert json.loads(lint.stdout)["findings"] == [], lint.stdout


def test_a_folder_gives_markdown_and_plain_text_and_the_rest_when_asked(
    ws: Path, invoke: Invoke
) -> None:
    """Starlight's `.json` sidebars beside the pages were ingested as text and came up in
    search results. Of a folder, Markdown and plain text are taken; data, code and
    configuration only with --include or --all-text, or named alone."""
    write(ws / "docs" / "guide.md", "# Guide\n\nStart with the [reference](reference.mdx).\n")
    write(ws / "docs" / "reference.mdx", "# Reference\n\nEvery option.\n")
    write(ws / "docs" / "notes.txt", "Plain notes.\n")
    write(ws / "docs" / "howto.rst", "How to\n======\n\nSteps.\n")
    write(ws / "docs" / "sidebar.json", '{"label": "Sidebar zebra", "items": ["guide"]}\n')
    write(ws / "docs" / "examples" / "app.py", "print('zebra')\n")
    write(ws / "docs" / "site.yaml", "title: zebra\n")

    report = json.loads(invoke("ingest", "-w", str(ws), str(ws / "docs"), "--json").stdout)
    assert [item["raw"] for item in report["files"]] == [
        "docs/guide.md",
        "docs/howto.rst",
        "docs/notes.txt",
        "docs/reference.mdx",
    ]
    assert report["skipped"] == 3
    plain = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert (
        "skipped 3 file(s) that are not Markdown or plain text "
        "(--include GLOB or --all-text takes them)\n"
    ) in plain.stdout
    found = json.loads(invoke("query", "-w", str(ws), "zebra", "--json").stdout)
    assert found["results"] == []

    asked = invoke(
        "ingest", "-w", str(ws), str(ws / "docs"), "--include", "*.json",
        "--include", "examples/*.py", "--json",
    )  # fmt: skip
    report = json.loads(asked.stdout)
    assert [item["raw"] for item in report["files"] if item["changed"]] == [
        "docs/examples/app.py",
        "docs/sidebar.json",
    ]
    assert report["skipped"] == 1  # site.yaml
    every = json.loads(
        invoke("ingest", "-w", str(ws), str(ws / "docs"), "--all-text", "--json").stdout
    )
    assert [item["raw"] for item in every["files"] if item["changed"]] == ["docs/site.yaml"]
    assert every["skipped"] == 0


def test_a_file_named_alone_is_taken_whatever_its_kind(ws: Path, invoke: Invoke) -> None:
    write(ws / "docs" / "sidebar.json", '{"label": "Sidebar"}\n')
    report = json.loads(
        invoke("ingest", "-w", str(ws), str(ws / "docs" / "sidebar.json"), "--json").stdout
    )
    assert [item["raw"] for item in report["files"]] == ["docs/sidebar.json"]


def _pages(ws: Path, count: int, text: str) -> list[Path]:
    return [write(ws / "docs" / f"p{n:02}.md", f"# Page {n}\n\n{text}\n") for n in range(count)]


def test_a_folder_larger_than_a_batch_is_ingested_whole(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files are written a batch at a time, so that memory does not grow with the tree; each
    batch is logged before its files are put in place, and together they are the folder."""
    monkeypatch.setattr(ingest_module, "BATCH_FILES", 3)
    calls: list[int] = []
    write_many = fsio.write_many

    def counted(items: Any, **options: Any) -> list[bool]:
        calls.append(len(items))
        return write_many(items, **options)

    monkeypatch.setattr(fsio, "write_many", counted)
    _pages(ws, 10, "First.")
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"), "--no-compile", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["files"]) == 10
    assert calls == [3, 3, 3, 1]
    logged = [
        line for line in (ws / ".wiki" / "log.md").read_text().splitlines() if "ingest" in line
    ]
    assert [line.split(" ingest ")[1] for line in logged] == [
        f"docs/p{n:02}.md -> raw/docs/p{n:02}.md" for n in range(10)
    ]


def test_a_failure_part_way_leaves_every_file_old_or_new(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk in the second batch: the first batch is in place and logged, every other
    raw file is as it was, and no temp file is left."""
    pages = _pages(ws, 10, "Old.")
    assert invoke("ingest", "-w", str(ws), str(ws / "docs"), "--no-compile").exit_code == 0
    for page in pages:
        page.write_text(page.read_text().replace("Old.", "New."))
    log_before = (ws / ".wiki" / "log.md").read_text()
    monkeypatch.setattr(ingest_module, "BATCH_FILES", 3)
    temps: list[Path] = []
    write_temp = fsio.write_temp

    def failing(path: Path, data: bytes, *, sync: bool) -> tuple[Path, Any]:
        if len(temps) == 4:  # the second file of the second batch
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        temp, stat = write_temp(path, data, sync=sync)
        temps.append(temp)
        return temp, stat

    monkeypatch.setattr(fsio, "write_temp", failing)
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"), "--no-compile")
    assert result.exit_code == 2 and "No space left on device" in result.stderr, result.output
    raw = ws / ".wiki" / "raw" / "docs"
    assert sorted(path.name for path in raw.iterdir()) == [page.name for page in pages]
    bodies = [(raw / page.name).read_text().rsplit("\n\n", 1)[1] for page in pages]
    assert bodies == ["New.\n"] * 3 + ["Old.\n"] * 7
    added = (ws / ".wiki" / "log.md").read_text()[len(log_before) :].splitlines()
    assert [line.split(" ingest ")[1] for line in added] == [
        f"docs/p{n:02}.md -> raw/docs/p{n:02}.md" for n in range(3)
    ]


def test_a_file_changed_between_its_check_and_its_copy_is_refused(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The texts are not held from the check to the copy: a file read again with other bytes
    than those checked is refused, and its raw copy left as it was."""
    pages = _pages(ws, 3, "Old.")
    assert invoke("ingest", "-w", str(ws), str(ws / "docs"), "--no-compile").exit_code == 0
    for page in pages:
        page.write_text(page.read_text().replace("Old.", "New."))
    workspace_lock = fsio.workspace_lock

    @contextlib.contextmanager
    def lock_then_change(*args: Any) -> Iterator[None]:
        with workspace_lock(*args):
            pages[1].write_text("# Page 1\n\nNewer still.\n")
            yield

    monkeypatch.setattr(fsio, "workspace_lock", lock_then_change)
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"), "--no-compile")
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"refused {pages[1]}: changed while it was being ingested; ingest it again\n"
    )
    raw = ws / ".wiki" / "raw" / "docs"
    assert [(raw / page.name).read_text().endswith("New.\n") for page in pages] == [
        True,
        False,
        True,
    ]
