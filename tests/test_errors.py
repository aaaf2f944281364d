"""Bad input: exit 2, exactly one `Error:` line naming the problem, nothing on disk changed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Invoke, snapshot, write

Setup = Callable[[Path], list[str]]


def _file(name: str, data: bytes) -> Setup:
    def setup(root: Path) -> list[str]:
        write(root / name, data)
        return ["ingest", str(root / name)]

    return setup


def _symlink_out(root: Path) -> list[str]:
    outside = write(root.parent / "outside.md", "# Outside\n")
    os.symlink(outside, root / "link.md")
    return ["ingest", str(root / "link.md")]


def _config(text: str) -> Setup:
    def setup(root: Path) -> list[str]:
        write(root / ".wiki" / "config.toml", text)
        return ["status"]

    return setup


def _small_limit(root: Path) -> list[str]:
    write(root / ".wiki" / "config.toml", "max_file_bytes = 10\n")
    write(root / "big.md", "# Too big for ten bytes\n")
    return ["ingest", str(root / "big.md")]


CASES: dict[str, tuple[Setup, str]] = {
    "binary": (
        _file("bin.md", b"PK\x03\x04\x00\x00"),
        "{root}/bin.md: binary file (contains NUL bytes); only text files can be used",
    ),
    "latin-1": (
        _file("latin.md", "café".encode("latin-1")),
        "{root}/latin.md: not valid UTF-8 (byte 3); convert the file to UTF-8",
    ),
    "utf-16": (
        _file("wide.md", "\ufeff# x".encode("utf-16")),
        "{root}/wide.md: file is UTF-16 encoded; save it as UTF-8",
    ),
    "bad yaml": (
        _file("y.md", b"---\ntitle: [unclosed\n---\nbody\n"),
        "{root}/y.md: unparsable YAML frontmatter (line 3): expected ',' or ']', but got '<stream end>'",
    ),
    "yaml list": (
        _file("l.md", b"---\n- a\n- b\n---\nbody\n"),
        "{root}/l.md: frontmatter must be a mapping of keys to values, not a list",
    ),
    "yaml scalar": (
        _file("s.md", b"---\njust text\n---\nbody\n"),
        "{root}/s.md: frontmatter must be a mapping of keys to values, not a str",
    ),
    "duplicate keys": (
        _file("d.md", b"---\ntitle: a\ntitle: b\n---\nbody\n"),
        "{root}/d.md: unparsable YAML frontmatter (line 3): duplicate key 'title'",
    ),
    "python tag": (
        _file("p.md", b"---\nx: !!python/object/apply:os.system [ls]\n---\n"),
        "{root}/p.md: unparsable YAML frontmatter (line 2): could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'",
    ),
    "alias": (
        _file("a.md", b"---\na: &x [1, 2]\nb: *x\n---\n"),
        "{root}/a.md: unparsable YAML frontmatter (line 3): aliases (*name) are not allowed",
    ),
    "unterminated": (
        _file("u.md", b"---\ntitle: x\nbody\n"),
        "{root}/u.md: frontmatter starts with '---' but is never closed by '---'",
    ),
    "too big": (
        _small_limit,
        "{root}/big.md: file is 24 bytes, over the limit of 10 (max_file_bytes in .wiki/config.toml)",
    ),
    "missing file": (
        lambda root: ["ingest", str(root / "nope.md")],
        "{root}/nope.md: no such file or directory",
    ),
    "symlink out": (
        _symlink_out,
        "{root}/link.md: is a symbolic link to {outside}, outside the workspace; copy the file instead",
    ),
    "dotdot name": (
        lambda root: ["ingest", "-", "--name", "../x.md"],
        "--name: the name '..' is not allowed; rename it",
    ),
    "control name": (
        lambda root: ["ingest", "-", "--name", "a\nb.md"],
        "--name: the name 'a\\nb.md' contains control characters; rename it",
    ),
    "stdin no name": (
        lambda root: ["ingest", "-"],
        "reading from stdin ('-') needs --name FILE.md to name the note",
    ),
    "inside .wiki": (
        lambda root: ["ingest", str(root / ".wiki" / "index.md")],
        "{root}/.wiki/index.md: is inside .wiki/; ingest files from the repository instead",
    ),
    "unknown key": (
        _config("colour = 'red'\n"),
        ".wiki/config.toml: colour: unknown key; known keys here: fingerprint, lessons, lint, lock_timeout, maintain, max_file_bytes, recall, suggest",
    ),
    "unknown nested key": (
        _config("[recall]\nbudgett = 10\n"),
        ".wiki/config.toml: recall.budgett: unknown key; known keys here: budget, half_life_days, max_entries, min_confidence",
    ),
    "wrong type": (
        _config("max_file_bytes = 'big'\n"),
        ".wiki/config.toml: max_file_bytes: must be an integer, not 'big'",
    ),
    "bad value": (
        _config("fingerprint = 'md5'\n"),
        ".wiki/config.toml: fingerprint: must be one of xxh3, fnv1a64",
    ),
    "invalid toml": (
        _config("x = \n"),
        ".wiki/config.toml: invalid TOML (Invalid value (at line 1, column 5)); fix the syntax",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input(ws: Path, invoke: Invoke, case: str) -> None:
    setup, expected = CASES[case]
    args = setup(ws)
    before = snapshot(ws)
    result = invoke(*args, "-w", str(ws), input="# from stdin\n")
    assert result.exit_code == 2, result.output
    outside = (ws.parent / "outside.md").resolve()
    assert result.stderr == "Error: " + expected.format(root=ws, outside=outside) + "\n"
    assert result.stdout == ""
    assert snapshot(ws) == before


def test_no_workspace(tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKILLWIKI_WORKSPACE", raising=False)
    for command in (["status"], ["query", "x"], ["lint"], ["compile"], ["show", "x"]):
        result = invoke(*command)
        assert result.exit_code == 2
        assert (
            result.stderr
            == f"Error: no .wiki/ found at or above {tmp_path}; run 'skillwiki init'\n"
        )


def test_workspace_option_pointing_at_nothing(tmp_path: Path, invoke: Invoke) -> None:
    result = invoke("status", "-w", str(tmp_path / "missing"))
    assert result.stderr == f"Error: workspace {tmp_path / 'missing'} is not a directory\n"
    result = invoke("status", "-w", str(tmp_path))
    assert result.stderr == f"Error: no .wiki/ found in {tmp_path}; run 'skillwiki init'\n"


def test_one_bad_file_in_a_folder_stops_the_whole_ingest(ws: Path, invoke: Invoke) -> None:
    write(ws / "docs" / "a.md", "# Fine\n")
    write(ws / "docs" / "b.md", b"\xff\xfe\x00bad")
    before = snapshot(ws)
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert result.exit_code == 2
    assert result.stderr == f"Error: {ws}/docs/b.md: file is UTF-16 encoded; save it as UTF-8\n"
    assert snapshot(ws) == before


def test_read_only_workspace_is_a_clear_error(ws: Path, invoke: Invoke) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores file permissions")
    note = write(ws / "a.md", "# A\n")
    os.chmod(ws / ".wiki", 0o555)
    try:
        result = invoke("ingest", "-w", str(ws), str(note))
    finally:
        os.chmod(ws / ".wiki", 0o755)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
