"""Hostile input never gives a traceback: frontmatter that breaks loaders, damaged caches.

Each frontmatter case is tried three ways: `ingest` of the file (exit 2, one `Error:` line,
nothing changed), the same file dropped into raw/ (compile names it and goes on), and the read
commands, which still answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import Invoke, snapshot, write

DEEP = 3000
FRONTMATTER: dict[str, tuple[str, str]] = {  # case -> (frontmatter text, what the error says)
    "flow lists 3k deep": ("a: " + "[" * DEEP + "]" * DEEP, "nested more than 50 levels"),
    "flow lists 100k deep": ("a: " + "[" * 100_000 + "]" * 100_000, "nested more than 50"),
    "block mappings 60 deep": (
        "\n".join("  " * n + f"k{n}:" for n in range(60)) + " x",
        "nested more than 50 levels",
    ),
    "integer of 5000 digits": ("n: " + "7" * 5000, "unparsable YAML frontmatter"),
    "complex mapping key": ("? [a, b]\n: c", "unparsable YAML frontmatter"),
    "mapping as a key": ("? {a: 1}\n: c", "unparsable YAML frontmatter"),
    "lone surrogate": ('x: "\\ud800"', "lone surrogate"),
    "surrogate key": ('"\\udc80": x', "lone surrogate"),
    "binary": ("x: !!binary aGVsbG8=", "binary data"),
    "set": ("x: !!set {a, b}", "a set"),
    "int tag on a word": ("x: !!int abc", "unparsable YAML frontmatter"),
    "float tag on a word": ("x: !!float abc", "unparsable YAML frontmatter"),
    "toml 3k deep": ("a = " + "[" * DEEP + "]" * DEEP, "unparsable TOML frontmatter"),
}


def _page(case: str) -> str:
    text, _ = FRONTMATTER[case]
    fence = "+++" if case.startswith("toml") else "---"
    return f"{fence}\n{text}\n{fence}\n# Page\n\nBody.\n"


@pytest.mark.parametrize("case", FRONTMATTER, ids=str)
def test_frontmatter_that_breaks_loaders_is_one_error(ws: Path, invoke: Invoke, case: str) -> None:
    page = write(ws / "page.md", _page(case))
    before = snapshot(ws)
    result = invoke("-w", str(ws), "ingest", str(page))
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {page}: ")
    assert FRONTMATTER[case][1] in lines[0]
    assert snapshot(ws) == before


@pytest.mark.parametrize("case", FRONTMATTER, ids=str)
def test_a_bad_raw_file_is_named_and_the_rest_answers(ws: Path, invoke: Invoke, case: str) -> None:
    write(ws / ".wiki" / "raw" / "bad.md", _page(case))
    write(ws / ".wiki" / "raw" / "good.md", "# Retry budget\n\nKeep retries under five.\n")
    compiled = invoke("-w", str(ws), "compile")
    assert compiled.exit_code == 2
    assert compiled.stderr.startswith("Error: .wiki/raw/bad.md: ")
    assert (ws / ".wiki" / "wiki" / "good.md").is_file()
    found = invoke("-w", str(ws), "query", "retry budget")
    assert found.exit_code == 0 and "wiki/good.md" in found.stdout
    assert "Traceback" not in found.output
    for command in (["status"], ["lint", "--exit-zero"], ["recall"]):
        result = invoke("-w", str(ws), *command)
        assert result.exit_code in (0, 1), (command, result.output)
        assert "Traceback" not in result.output


NAMES = {  # --name -> what the error says
    "a" * 240 + ".md": "bytes long, over the 200 allowed",
    "é" * 120 + ".md": "bytes long, over the 200 allowed",  # 243 bytes in UTF-8
    "b" * 4096 + ".md": "the path is 4099 bytes long, over the 1024 allowed",
    "/".join(["dir"] * 300) + "/x.md": "the path is 1204 bytes long, over the 1024 allowed",
    "bad\udc80name.md": "not valid UTF-8 (a lone surrogate)",
    "\ud800.md": "not valid UTF-8 (a lone surrogate)",
}


@pytest.mark.parametrize("name", NAMES, ids=lambda name: f"{len(name)} chars {name[:6]!a}")
def test_names_past_the_filesystem_limits_are_one_error(
    ws: Path, invoke: Invoke, name: str
) -> None:
    before = snapshot(ws)
    result = invoke("-w", str(ws), "ingest", "-", "--name", name, input="# Note\n")
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: --name: ") and NAMES[name] in lines[0]
    assert snapshot(ws) == before


def test_a_folder_file_with_a_name_too_long_is_refused_alone(ws: Path, invoke: Invoke) -> None:
    folder = ws / "docs"
    write(folder / ("n" * 230 + ".md"), "# Long\n")
    write(folder / "ok.md", "# Fine\n")
    result = invoke("-w", str(ws), "ingest", str(folder))
    assert result.exit_code == 1
    assert "bytes long, over the 200 allowed" in result.stderr
    assert (ws / ".wiki" / "wiki" / "docs" / "ok.md").is_file()


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x9b31m"


def test_terminal_escapes_in_files_never_reach_the_terminal(ws: Path, invoke: Invoke) -> None:
    """A title or text holding escape sequences is printed with them inert (`\\x1b`)."""
    write(ws / ".wiki" / "raw" / "esc.md", f"# Retry {ESCAPES} budget\n\nKeep {ESCAPES} it.\n")
    outputs = [invoke("-w", str(ws), "compile")]
    for command in (
        ["query", "retry budget"],
        ["query", "retry budget", "--json"],
        ["show", "esc.md"],
        ["show", "esc.md", "--json"],
        ["status"],
        ["lint", "--exit-zero"],
        ["lint", "--exit-zero", "--format", "json"],
    ):
        outputs.append(invoke("-w", str(ws), *command))
    for result in outputs:
        assert result.exit_code in (0, 1), result.output
        for char in ("\x1b", "\x07", "\x9b"):
            assert char not in result.stdout + result.stderr
    assert "\\x1b]0;owned" in outputs[3].stdout  # shown, not acted on


@pytest.mark.parametrize("torn", [False, True], ids=["nothing fits", "half a line fits"])
def test_a_full_disk_is_one_error_and_no_torn_log_line(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, torn: bool
) -> None:
    import errno
    import os

    log = ws / ".wiki" / "log.md"
    before = log.read_bytes()
    real = os.write

    def full(fd: int, data: bytes) -> int:
        if os.fstat(fd).st_ino != log.stat().st_ino:
            return real(fd, data)
        if torn:
            return real(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)  # the os module fsio writes log.md with
    write(ws / "note.md", "# Note\n")
    result = invoke("-w", str(ws), "ingest", str(ws / "note.md"))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: no space left")
    assert log.read_bytes() == before  # no half line


BAD_DATE_LESSON = (
    "---\ntitle: Bad date\ntype: lesson\nsummary: s\nseverity: HIGH\nstatus: active\n"
    "created: 2026-01-01\nprevention_rule: check the calendar\n---\n## What Happened\n\nx\n\n"
    "## Root Cause\n\ny\n\n## Optimization\n\nz\n\n## Next Time\n\n- w\n\n"
    "## Evidence\n\n- 2024-02-30 helped: a day that is not\n"
)


def test_raw_files_that_cannot_have_an_article_are_named_and_skipped(
    ws: Path, invoke: Invoke
) -> None:
    raw = ws / ".wiki" / "raw"
    write(raw / "good.md", "# Retry budget\n\nKeep retries under five.\n")
    (raw / "caf\udce9.md").write_bytes(b"# Latin-1 name\n")  # the name, not the text
    write(raw / "x", "plain x\n")  # its article x.md ...
    write(raw / "x.md" / "y.md", "# Y\n")  # ... and this folder x.md/
    write(raw / "lessons" / "2026-01-01-bad-date.md", BAD_DATE_LESSON)
    compiled = invoke("-w", str(ws), "compile")
    assert compiled.exit_code == 2
    assert "Error: 2 raw files could not be compiled" in compiled.stderr
    assert "Warning: .wiki/raw/x: its article wiki/x.md would clash" in compiled.stderr
    assert (ws / ".wiki" / "wiki" / "x.md" / "y.md").is_file()
    found = invoke("-w", str(ws), "query", "retry budget", "--json")
    assert found.exit_code == 0 and "wiki/good.md" in found.stdout
    for command in (["status"], ["lint", "--exit-zero"], ["recall"], ["maintain"]):
        result = invoke("-w", str(ws), *command)
        assert result.exit_code in (0, 1), (command, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), command
    assert "check the calendar" in invoke("-w", str(ws), "recall").stdout


class _Killed(BaseException):
    """Stands for the process dying at that moment (nothing after it runs)."""


@pytest.mark.parametrize("command", ["ingest", "record-lesson"])
def test_dying_at_the_log_line_leaves_no_file_unlogged(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    from skillwiki import fsio

    def die(*_: object) -> None:
        raise _Killed

    monkeypatch.setattr(fsio, "append_log", die)
    write(ws / "docs" / "a.md", "# A\n")
    write(ws / "docs" / "b.md", "# B\n")
    before = snapshot(ws)
    argv = ["ingest", str(ws / "docs"), "--no-compile"] if command == "ingest" else LESSON_ARGS
    with pytest.raises(_Killed):
        invoke("-w", str(ws), *argv)
    assert snapshot(ws) == before  # nothing in place that the log does not name


LESSON_ARGS = ["record-lesson", "--title", "Killed", "--summary", "At the log line."]


def test_raw_files_compile_cannot_compile_are_lint_errors(ws: Path, invoke: Invoke) -> None:
    raw = ws / ".wiki" / "raw"
    write(raw / "a.txt", "text a\n")
    write(raw / "a.txt.md", "# A\n")  # both would be wiki/a.txt.md
    write(raw / "x", "plain x\n")
    write(raw / "x.md" / "y.md", "# Y\n")
    invoke("-w", str(ws), "compile")
    result = invoke("-w", str(ws), "lint", "--format", "json")
    assert result.exit_code == 1
    found = {
        (f["path"], f["message"].split(":")[0])
        for f in json.loads(result.stdout)["findings"]
        if f["rule"] == "SW003"
    }
    assert found == {
        (".wiki/raw/a.txt", "cannot be compiled"),
        (".wiki/raw/x", "cannot be compiled"),
    }
