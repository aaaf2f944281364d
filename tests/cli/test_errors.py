"""Bad input: exit 2, exactly one `Error:` line naming the problem, nothing on disk changed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import Invoke, snapshot, write

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


def _symlink_loop(root: Path) -> list[str]:
    os.symlink(root / "b.md", root / "a.md")
    os.symlink(root / "a.md", root / "b.md")
    return ["ingest", str(root / "a.md")]


def _dangling(root: Path) -> list[str]:
    os.symlink(root / "gone.md", root / "l.md")
    return ["ingest", str(root / "l.md")]


def _stdin_name(name: str) -> Setup:
    return lambda root: ["ingest", "-", "--name", name]


def _suggest(text: str) -> Setup:
    def setup(root: Path) -> list[str]:
        write(root / "feedback.json", text)
        return ["suggest", str(root / "feedback.json")]

    return setup


def _lesson(*options: str) -> Setup:
    return lambda root: ["record-lesson", "--title", "T", "--summary", "S.", *options]


def _folder_for_file(root: Path) -> list[str]:
    (root / "somedir").mkdir()
    return ["suggest", str(root / "somedir")]


def _folder_for_path(root: Path) -> list[str]:
    (root / "somedir").mkdir()
    return ["record-lesson", "--title", "T", "--summary", "S.", "--path", str(root / "somedir")]


BILLION_LAUGHS = (
    b'---\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    b"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n---\nbody\n"
)
TEN_THOUSAND_TAGS = (
    "---\ntags: [" + ", ".join(f"t{n}" for n in range(10_000)) + "]\n---\nbody\n"
).encode()

CASES: dict[str, tuple[Setup, str]] = {
    "nul in text": (
        _file("nul.md", b"# Title\n\nsome text\x00more text\n"),
        "{root}/nul.md: binary file (contains NUL bytes); only text files can be used",
    ),
    "utf-16 no bom": (
        _file("wide16.md", "# Notes".encode("utf-16-le")),
        "{root}/wide16.md: binary file (contains NUL bytes); only text files can be used",
    ),
    "utf-16 be bom": (
        _file("wide16be.md", "\ufeff# x".encode("utf-16-be")),
        "{root}/wide16be.md: file is UTF-16 encoded; save it as UTF-8",
    ),
    "empty file": (
        _file("empty.md", b""),
        "{root}/empty.md: the file is empty; there is nothing to ingest",
    ),
    "whitespace file": (
        _file("blank.md", b"  \n\n\t\n"),
        "{root}/blank.md: the file is empty; there is nothing to ingest",
    ),
    "billion laughs": (
        _file("lol.md", BILLION_LAUGHS),
        "{root}/lol.md: unparsable YAML frontmatter (line 3): aliases (*name) are not allowed",
    ),
    "title of 100 kB": (
        _file("long-title.md", b"---\ntitle: " + b"x" * 100_000 + b"\n---\nbody\n"),
        "{root}/long-title.md: frontmatter key 'title' is 100000 characters; at most 500",
    ),
    "ten thousand tags": (
        _file("tags.md", TEN_THOUSAND_TAGS),
        "{root}/tags.md: 10000 tags; at most 100",
    ),
    "very long line": (
        _file("line.md", b"# T\n\n" + b"word " * 30_000 + b"\n"),
        "{root}/line.md: line 3 of the body is 150000 characters; at most 100000",
    ),
    "symlink loop": (
        _symlink_loop,
        "{root}/a.md: is a symbolic link loop; point the link at a file",
    ),
    "dangling symlink": (
        _dangling,
        "{root}/l.md: is a symbolic link to nothing; point it at a file",
    ),
    "slash name": (_stdin_name("/etc/passwd"), "--name: the name '' is not allowed; rename it"),
    "backslash name": (
        _stdin_name("a\\b.md"),
        "--name: the name 'a\\\\b.md' contains a path separator; rename it",
    ),
    "nul name": (
        _stdin_name("a\x00b.md"),
        "--name: the name 'a\\x00b.md' contains control characters; rename it",
    ),
    "newline name": (
        _stdin_name("a\nb.md"),
        "--name: the name 'a\\nb.md' contains control characters; rename it",
    ),
    "dash name": (_stdin_name("-rf.md"), "--name: the name '-rf.md' starts with '-'; rename it"),
    "hidden name": (
        _stdin_name(".env.md"),
        "--name: the name '.env.md' starts with '.'; rename it",
    ),
    "windows name": (
        _stdin_name("CON.md"),
        "--name: the name 'CON.md' is reserved on Windows; rename it",
    ),
    "folder for a file": (
        _folder_for_file,
        "{root}/somedir: cannot be read ([Errno 21] Is a directory: '{root}/somedir')",
    ),
    "folder for --path": (
        _folder_for_path,
        "{root}/somedir: --path names no file; give a file the lesson is about",
    ),
    "unknown severity": (
        _lesson("--severity", "URGENT"),
        "--severity 'URGENT' is not one of LOW, MEDIUM, HIGH, CRITICAL",
    ),
    "unknown scope": (_lesson("--scope", "team"), "--scope 'team' is not one of global, targeted"),
    "huge title": (_lesson("--title", "t" * 1000), "--title is 1000 characters; at most 500"),
    "empty tag": (_lesson("--tag", "ok", "--tag", ""), "--tag must not be empty"),
    "blank agent": (_lesson("--agent", "  "), "--agent must not be empty"),
    "empty path": (_lesson("--path", ""), "--path must not be empty"),
    "suggest not an object": (
        _suggest("[1, 2, 3]"),
        "{root}/feedback.json: the feedback must be a JSON object",
    ),
    "suggest wrong type": (
        _suggest('{"replans": "many"}'),
        "{root}/feedback.json: 'replans' must be a whole number of 0 or more",
    ),
    "suggest huge array": (
        _suggest('{"tool_calls": [' + ", ".join(['{"tool": "x"}'] * 20_000) + "]}"),
        "{root}/feedback.json: 'tool_calls' has 20000 entries; at most 10000",
    ),
    "config section not a table": (
        _config("lint = 3\n"),
        ".wiki/config.toml: lint: must be a table",
    ),
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
    "bad TOML": (
        _file("t.md", b"+++\ntitle = \n+++\nbody\n"),
        "{root}/t.md: unparsable TOML frontmatter: Invalid value (at line 2, column 9)",
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
        ".wiki/config.toml: colour: unknown key; known keys here: fingerprint, lessons, lint, lock_timeout, maintain, max_file_bytes, recall, rules, search, serve, suggest",
    ),
    "unknown nested key": (
        _config("[recall]\nbudgett = 10\n"),
        ".wiki/config.toml: recall.budgett: unknown key; known keys here: budget, half_life_days, max_entries, min_confidence",
    ),
    "wrong type": (
        _config("max_file_bytes = 'big'\n"),
        ".wiki/config.toml: max_file_bytes: must be an integer, not 'big'",
    ),
    **{
        f"compile would refuse: {front}": (
            _file("typed.md", f"---\n{front}\n---\n# T\n\nBody.\n".encode()),
            "{root}/typed.md: frontmatter key " + message,
        )
        for front, message in (
            ("tags: {a: 1}", "'tags' must be a list of strings"),
            ("tags: [[a]]", "'tags' must be a list of strings"),
            ("title: [a, b]", "'title' must be a string"),
            ("summary: {x: 1}", "'summary' must be a string"),
            ("type: [lesson]", "'type' must be a string"),
            ("origin: [x]", "'origin' must be a string"),
            ("title: true", "'title' must be a string"),
        )
    },
    "lock_timeout nan": (
        _config("lock_timeout = nan\n"),
        ".wiki/config.toml: lock_timeout: must be a finite number, not nan",
    ),
    "lock_timeout inf": (
        _config("lock_timeout = inf\n"),
        ".wiki/config.toml: lock_timeout: must be a finite number, not inf",
    ),
    "lock_timeout a day": (
        _config("lock_timeout = 86400\n"),
        ".wiki/config.toml: lock_timeout: must be from 0 to 3600 seconds",
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


def test_odd_files_in_a_folder_are_refused_one_by_one(ws: Path, invoke: Invoke) -> None:
    """Each file that cannot be ingested is named with why, and the exit is 1; an empty one
    (a package's `__init__.py`) is left out and counted, for it holds nothing to lose."""
    write(ws / "docs" / "a.md", "# Fine\n")
    write(ws / "docs" / "b.md", b"\xff\xfe\x00bad")
    write(ws / "docs" / "empty.md", b"")
    write(ws / "docs" / "pkg" / "__init__.py", b"")
    write(ws / "docs" / "blank.txt", " \n\n")
    write(ws / "docs" / "bad.md", "---\ntitle: [\n---\ntext\n")
    write(ws / "docs" / "_index.md", "---\ntitle: Section\n---\n")  # a valid page
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"), "--include", "*.py")
    assert result.exit_code == 1, result.output
    refused = sorted(line for line in result.stderr.splitlines() if line.startswith("refused"))
    assert refused == [
        f"refused {ws}/docs/b.md: file is UTF-16 encoded; save it as UTF-8",
        f"refused {ws}/docs/bad.md: unparsable YAML frontmatter (line 3): expected the node content, but found '<stream end>'",
    ]
    assert "skipped 3 empty file(s)\n" in result.stdout
    assert sorted(p.name for p in (ws / ".wiki" / "raw" / "docs").iterdir()) == [
        "_index.md",
        "a.md",
    ]
    section = (ws / ".wiki" / "wiki" / "docs" / "_index.md").read_text()
    assert "title: Section\n" in section and "summary: Section\n" in section


def test_one_bad_file_named_alone_stops_the_ingest(ws: Path, invoke: Invoke) -> None:
    write(ws / "docs" / "a.md", "# Fine\n")
    write(ws / "docs" / "b.md", b"\xff\xfe\x00bad")
    before = snapshot(ws)
    result = invoke("ingest", "-w", str(ws), str(ws / "docs" / "a.md"), str(ws / "docs" / "b.md"))
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


def _can_mount_read_only() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount --bind / /mnt && mount -o remount,bind,ro /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_read_only(), reason="needs root and mount namespaces")
def test_read_only_workspace_changes_nothing(ws: Path) -> None:
    note = write(ws.parent / "outside.md", "# Outside\n\nA note.\n")
    before = snapshot(ws)
    cli = f"{shlex.quote(sys.executable)} -m skillwiki -w {shlex.quote(str(ws))}"
    script = (
        f"mount --bind {shlex.quote(str(ws))} {shlex.quote(str(ws))} && "
        f"mount -o remount,bind,ro {shlex.quote(str(ws))} && "
        f"{cli} ingest {shlex.quote(str(note))}"
    )
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        result.stderr
        == f"Error: {ws}/.wiki: cannot write to the workspace (Read-only file system)\n"
    )
    assert snapshot(ws) == before


def test_unreadable_files_are_a_clear_error(ws: Path, invoke: Invoke) -> None:
    """A file the OS will not read: /proc/self/mem refuses even root; a 000 file, others."""
    before = snapshot(ws)
    result = invoke("ingest", "-w", str(ws), "/proc/self/mem")
    assert result.exit_code == 2
    assert result.stderr == "Error: /proc/self/mem: cannot be read (Input/output error)\n"
    if os.geteuid() != 0:
        locked = write(ws / "locked.md", "# Locked\n")
        os.chmod(locked, 0)
        result = invoke("ingest", "-w", str(ws), str(locked))
        assert result.stderr == f"Error: {locked}: cannot be read (permission denied)\n"
        os.chmod(locked, 0o644)
        locked.unlink()
    assert snapshot(ws) == before


@pytest.mark.skipif(not _can_mount_read_only(), reason="needs root and mount namespaces")
def test_query_and_lint_work_in_a_read_only_checkout(demo: Path) -> None:
    shutil.rmtree(demo / ".wiki" / ".cache", ignore_errors=True)
    before = snapshot(demo)
    cli = f"{shlex.quote(sys.executable)} -m skillwiki -w {shlex.quote(str(demo))}"
    script = (
        f"mount --bind {shlex.quote(str(demo))} {shlex.quote(str(demo))} && "
        f"mount -o remount,bind,ro {shlex.quote(str(demo))} && "
        f"{cli} query 'tool failure retry' --json && {cli} lint --format json && "
        f"{cli} recall --agent channel-op --task 'send the digest' --format json"
    )
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert ".wiki/wiki/docs/tool-calls.md" in result.stdout
    assert "Prevention:" in result.stdout
    assert snapshot(demo) == before
    assert not (demo / ".wiki" / ".cache").exists()


# Click's usage errors, as one `Error:` line that names the help to read.
USAGE = {
    "unknown option": (
        ["query", "x", "--nope"],
        "No such option: --nope (Possible options: --no-compile, --type) "
        "(see 'skillwiki query --help')",
    ),
    "unknown global option": (["--bogus"], "No such option: --bogus (see 'skillwiki --help')"),
    "unknown command": (["bogus"], "No such command 'bogus' (see 'skillwiki --help')"),
    "value out of range": (
        ["query", "x", "--limit", "0"],
        "Invalid value for '--limit': 0 is not in the range 1<=x<=1000 "
        "(see 'skillwiki query --help')",
    ),
    "bad choice": (
        ["query", "x", "--type", "foo"],
        "Invalid value for '--type': 'foo' is not one of 'document', 'lesson' "
        "(see 'skillwiki query --help')",
    ),
    "missing option": (
        ["record-lesson", "--summary", "s"],
        "Missing option '--title' (see 'skillwiki record-lesson --help')",
    ),
}


@pytest.mark.parametrize("case", sorted(USAGE))
def test_usage_errors_are_one_line(ws: Path, invoke: Invoke, case: str) -> None:
    args, expected = USAGE[case]
    before = snapshot(ws)
    result = invoke(*args, "-w", str(ws))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: {expected}\n"
    assert snapshot(ws) == before


def test_usage_error_from_the_command_line_is_one_line(ws: Path) -> None:
    command = [sys.executable, "-m", "skillwiki", "query", "x", "y", "-w", str(ws)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("Error: Got unexpected extra argument")
    assert line.endswith("(y) (see 'python -m skillwiki query --help')")


def test_a_command_without_its_arguments_still_shows_its_help(invoke: Invoke) -> None:
    result = invoke("query")
    assert result.exit_code == 2
    assert "Usage: skillwiki query [OPTIONS] {text}" in result.output
    assert "Error:" not in result.output


def test_a_hook_s_usage_error_is_a_warning_and_status_0(demo: Path, invoke: Invoke) -> None:
    """A client takes a hook's exit status 2 as a block (of the tool call, the prompt, the
    stop): a typo in its command line is said, and gets out of the way."""
    before = snapshot(demo)
    result = invoke("hook", "claude-code", "pre-tool", "--agnet", "coder", "-w", str(demo))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "Warning: no hook answered: No such option: --agnet (Possible options: --agent) "
        "(see 'skillwiki hook --help')\n"
    )
    assert snapshot(demo) == before


@pytest.mark.parametrize(
    ("command", "status", "said"),
    [
        ("query x", 2, "Error: standard output is closed; nothing could be printed\n"),
        ("--version", 2, "Error: standard output is closed; nothing could be printed\n"),
        ("hook claude-code session-start", 0, ""),
    ],
)
def test_a_closed_stdout_is_one_error_line_or_a_silent_hook(
    ws: Path, command: str, status: int, said: str
) -> None:
    script = f'exec "$0" -m skillwiki {command} -w "$1" >&- </dev/null'
    done = subprocess.run(
        ["sh", "-c", script, sys.executable, str(ws)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (status, said)
