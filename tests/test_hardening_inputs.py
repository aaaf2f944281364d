"""Inputs without bounds: settings out of range, a settings file that is no file, link
patterns that backtrack, links and lesson paths that lead out of the workspace, keys that no
file name can hold, queries of many words. Each row is one hostile input: refused with exit 2
and one `Error:` line, nothing on disk changed, or answered as the row says; never a
traceback."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from skillwiki import config as settings
from skillwiki.config import Config
from tests.support import Invoke, snapshot, write

CONFIG = ".wiki/config.toml"


def _refused(invoke: Invoke, root: Path, args: list[str], expected: str) -> None:
    """`args` exits 2 with exactly the `Error:` line `expected`, and changes nothing."""
    before = snapshot(root)
    result = invoke("-w", str(root), *args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == f"Error: {expected}\n"
    assert snapshot(root) == before


# Settings out of their range: one row per setting and side (below, above).
OUT_OF_RANGE: dict[str, tuple[str, str]] = {
    "archive after -1 days": ("[maintain]\narchive_after_days = -1\n", "from 1 to 36500 days"),
    "archive after 0 days": ("[maintain]\narchive_after_days = 0\n", "from 1 to 36500 days"),
    "archive after 10 centuries": (
        "[maintain]\narchive_after_days = 365000\n",
        "from 1 to 36500 days",
    ),
    "dedupe jaccard -1": ("[maintain]\ndedupe_jaccard = -1\n", "from 0 to 1"),
    "dedupe jaccard 2": ("[maintain]\ndedupe_jaccard = 2\n", "from 0 to 1"),
    "promote hits -1": ("[maintain]\npromote_hits = -1\n", "from 0 to 1000000"),
    "promote min age -5": ("[maintain]\npromote_min_age_days = -5\n", "from 0 to 36500 days"),
    "min confidence 5": ("[recall]\nmin_confidence = 5\n", "from 0 to 1"),
    "min confidence -0.1": ("[recall]\nmin_confidence = -0.1\n", "from 0 to 1"),
    "budget 0": ("[recall]\nbudget = 0\n", "from 1 to 1000000 characters"),
    "budget of ten million": ("[recall]\nbudget = 10000000\n", "from 1 to 1000000 characters"),
    "max entries 100000": ("[recall]\nmax_entries = 100000\n", "from 1 to 1000"),
    "half life 0": ("[recall]\nhalf_life_days = 0\n", "greater than 0 and at most 36500 days"),
    "replans -1": ("[suggest]\nreplans = -1\n", "from 1 to 1000"),
    "replans 0": ("[suggest]\nreplans = 0\n", "from 1 to 1000"),
    "consecutive failures -3": ("[suggest]\nconsecutive_failures = -3\n", "from 1 to 1000"),
    "repeated failures -3": ("[suggest]\nrepeated_failures = -3\n", "from 1 to 1000"),
    "retries -2": ("[suggest]\nretries = -2\n", "from 1 to 1000"),
    "cost factor -2": ("[suggest]\ncost_factor = -2.0\n", "greater than 0 and at most 1000"),
    "cost factor 0": ("[suggest]\ncost_factor = 0\n", "greater than 0 and at most 1000"),
    "confidence low -1": ("[suggest]\nconfidence_low = -1\n", "from 0 to 1"),
    "confidence high 7": ("[suggest]\nconfidence_high = 7\n", "from 0 to 1"),
    "near duplicate jaccard -1": ("[lint]\nnear_duplicate_jaccard = -1\n", "from 0 to 1"),
    "max file bytes -1": ("max_file_bytes = -1\n", "from 1 to 1073741824 bytes"),
    "max file bytes of a terabyte": (
        "max_file_bytes = 1000000000000\n",
        "from 1 to 1073741824 bytes",
    ),
}


def _key_of(text: str) -> str:
    table, _, line = text.strip().rpartition("\n")
    name = line.split("=")[0].strip()
    return f"{table.strip('[]')}.{name}" if table else name


@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=str)
def test_a_setting_out_of_its_range_is_refused_naming_file_key_and_range(
    ws: Path, invoke: Invoke, case: str
) -> None:
    text, allowed = OUT_OF_RANGE[case]
    write(ws / CONFIG, text)
    key = _key_of(text)
    for args in (["status"], ["maintain"], ["lint"], ["recall"]):
        _refused(invoke, ws, args, f"{CONFIG}: {key}: must be {allowed}")


def test_every_number_setting_has_a_range_holding_its_default() -> None:
    numbers = {
        f"{prefix}{field}"
        for prefix, part in [("", Config()), *_tables(Config())]
        for field, value in part._asdict().items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
    ranges = settings.RANGES
    assert numbers == set(ranges)
    assert all(ranges[key].holds(settings.value_of(Config(), key)) for key in ranges)


def _tables(part: Any, prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for name, value in part._asdict().items():
        if hasattr(value, "_asdict"):
            found.append((f"{prefix}{name}.", value))
            found += _tables(value, f"{prefix}{name}.")
    return found


def test_a_low_confidence_over_the_high_one_is_refused(ws: Path, invoke: Invoke) -> None:
    write(ws / CONFIG, "[suggest]\nconfidence_low = 0.8\nconfidence_high = 0.5\n")
    _refused(
        invoke,
        ws,
        ["status"],
        f"{CONFIG}: suggest.confidence_low: must not be over suggest.confidence_high",
    )


FOLDERS = {
    "root at /": 'root = "/"',
    "root at /etc": 'root = "/etc"',
    "root above the repository": 'root = "../.."',
    "root through a folder above": 'root = "docs/../../x"',
    "root on a windows drive": 'root = "C:/docs"',
    "static at /": 'static = ["docs", "/"]',
    "static above the repository": 'static = ["../shared"]',
}


@pytest.mark.parametrize("case", FOLDERS, ids=str)
def test_link_folders_outside_the_repository_are_refused(
    ws: Path, invoke: Invoke, case: str
) -> None:
    line = FOLDERS[case]
    write(ws / CONFIG, f"[lint.links]\n{line}\n")
    key = "lint.links." + line.split(" ")[0]
    value = json.loads(line.partition("= ")[2])
    folder = value if isinstance(value, str) else value[-1]
    _refused(
        invoke,
        ws,
        ["lint"],
        f"{CONFIG}: {key}: must be a folder inside the repository, relative to its root, "
        f"not {folder!r}",
    )


def _directory(path: Path) -> None:
    path.mkdir()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


NOT_A_FILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "a directory": (_directory, "is a directory; the settings must be a TOML file (or none)"),
    "a fifo": (_fifo, "is not a regular file; the settings must be a TOML file (or none)"),
}
COMMANDS = [
    ["status"],
    ["compile"],
    ["query", "x"],
    ["show", "x"],
    ["lint"],
    ["recall"],
    ["maintain"],
    ["review"],
    ["record-lesson", "--title", "t", "--summary", "s"],
]


@pytest.mark.parametrize("case", NOT_A_FILE, ids=str)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda args: args[0])
def test_a_settings_file_that_is_no_file_is_one_error_line(
    ws: Path, invoke: Invoke, case: str, command: list[str]
) -> None:
    (ws / CONFIG).unlink()
    make, message = NOT_A_FILE[case]
    make(ws / CONFIG)
    started = time.monotonic()
    _refused(invoke, ws, command, f"{CONFIG}: {message}")
    assert time.monotonic() - started < 10  # a FIFO is not waited on


def test_a_settings_file_of_over_a_megabyte_is_refused(ws: Path, invoke: Invoke) -> None:
    write(ws / CONFIG, "# " + "x" * (1 << 20) + "\n")
    _refused(invoke, ws, ["status"], f"{CONFIG}: is over 1048576 bytes; it cannot be the settings")


# Patterns a backtracking engine takes exponential or polynomial time over: refused, naming
# what they use.
REPEATS = "repeats something other than `.` without bound, or more than 8 times"
BACKTRACKING: dict[str, tuple[str, str]] = {
    "nested plus": ("^(a+)+$", REPEATS),
    "nested star": ("(a*)*b", REPEATS),
    "repeated alternatives": ("^(a|aa)+$", REPEATS),
    "a class repeated then a digit": ("[a-z]+\\d", REPEATS),
    "digits four times": ("\\d+\\d+\\d+\\d+x", REPEATS),
    "a count over eight": ("a{1,1000}", REPEATS),
    "a backreference": ("(a+)\\1", REPEATS),
    "a backreference alone": ("(a)\\1", "uses a backreference"),
    "a look-ahead": ("(?=a)b", "uses a look-ahead or look-behind"),
    "a word boundary": ("\\bapi", "uses a word boundary or a line anchor inside the pattern"),
    "too many alternatives": (
        "(ab|cd)(ef|gh)(ij|kl)(mn|op)(qr|st)(uv|wx)(yz|zy)",
        "stands for more than 64",
    ),
    "an anchor inside": ("a$b", "has `^` or `$` inside it"),
}


@pytest.mark.parametrize("case", BACKTRACKING, ids=str)
def test_link_patterns_that_can_backtrack_are_refused(ws: Path, invoke: Invoke, case: str) -> None:
    pattern, says = BACKTRACKING[case]
    write(ws / CONFIG, f"[lint.links]\nignore = [{json.dumps(pattern)}]\n")
    before = snapshot(ws)
    result = invoke("-w", str(ws), "lint")
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"Error: {CONFIG}: lint.links.ignore: {pattern!r}: {says}")
    assert snapshot(ws) == before


# Patterns people write: kept, each matched in time linear in the link's length.
KEPT = {
    "a prefix": "^/api/",
    "a suffix": "\\.pdf$",
    "either scheme": "^https?:",
    "alternatives": "^(mailto|tel):",
    "runs of any": "^/docs/.*/generated/.+\\.md$",
    "a class and a count": "^[a-z\\d-]{1,3}\\.example$",
    "no case": "(?i)^HTTP",
    "anywhere": "changelog",
}


@examples(max_examples=300)
@given(
    case=st.sampled_from(sorted(KEPT)),
    target=st.text(alphabet="/apidocs.mdfhtHTPexl-:1ge", max_size=40),
)
def test_kept_patterns_match_what_the_regular_expression_finds(case: str, target: str) -> None:
    import re

    pattern = KEPT[case]
    matchers = settings.link_pattern(pattern)
    assert any(m.match(target) for m in matchers) == bool(re.search(pattern, target))


def test_lint_with_kept_patterns_is_linear_on_links_built_to_hurt(ws: Path, invoke: Invoke) -> None:
    """Links of 80 kB that a backtracking search tries from every place, under every pattern
    kept: lint ends at once (`docs.*docs.*\\.md` alone takes hours on the first)."""
    write(
        ws / ".wiki" / "raw" / "docs" / "x.md",
        f"# X\n\n[one]({'docs' * 20_000}) [two](/docs/{'a/' * 40_000})\n",
    )
    assert invoke("-w", str(ws), "compile").exit_code == 0
    patterns = [*KEPT.values(), "docs.*docs.*\\.md"]
    write(ws / CONFIG, f"[lint.links]\nignore = {json.dumps(patterns)}\n")
    started = time.process_time()
    result = invoke("-w", str(ws), "lint", "--format", "json")
    assert time.process_time() - started < 5
    assert result.exit_code == 1, result.output
    found = json.loads(result.stdout)
    assert [finding["rule"] for finding in found["findings"]] == ["SW001", "SW001"]


# Links and lesson paths that lead out of the workspace: never told present or missing.
OUTSIDE_LINKS = {
    "up to /etc/passwd": "../../../../../../../../etc/passwd",
    "up to a missing file": "../../../../../../../../etc/no-such-file",
    "root-relative up": "/../../../../../../etc/passwd",
    "through a symlink out": "out/passwd",
    "through a symlink out, missing": "out/no-such-file",
}


@pytest.mark.parametrize("case", OUTSIDE_LINKS, ids=str)
def test_a_link_out_of_the_workspace_is_said_to_lead_outside(
    ws: Path, invoke: Invoke, case: str
) -> None:
    os.symlink("/etc", ws / ".wiki" / "wiki" / "out")
    target = OUTSIDE_LINKS[case]
    write(ws / ".wiki" / "raw" / "x.md", f"# X\n\n[a]({target})\n")
    assert invoke("-w", str(ws), "compile").exit_code == 0
    result = invoke("-w", str(ws), "lint", "--format", "json")
    messages = [finding["message"] for finding in json.loads(result.stdout)["findings"]]
    assert messages == [
        f"link to {target} leads outside the workspace; lint looks only inside it"
    ], messages


OUTSIDE_PATHS = {
    "an absolute file": "/etc/passwd",
    "an absolute missing file": "/etc/no-such-file",
    "up and out": "../../../../../../../etc/passwd",
    "a device": "/dev/zero",
}


@pytest.mark.parametrize("case", OUTSIDE_PATHS, ids=str)
def test_a_lesson_path_out_of_the_workspace_is_said_to_lie_outside(
    ws: Path, invoke: Invoke, case: str
) -> None:
    rel = OUTSIDE_PATHS[case]
    lesson = (
        "---\ntype: lesson\ntitle: T\nsummary: S\nseverity: LOW\ncategory: c\n"
        f"prevention_rule: R\npaths: [{rel}=xxh3:0000000000000000]\nstatus: active\n"
        "created: 2026-11-30\n---\n# T\n\n## What Happened\n\nS\n"
    )
    write(ws / ".wiki" / "raw" / "lessons" / "2026-11-30-t.md", lesson)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    started = time.monotonic()
    result = invoke("-w", str(ws), "lint", "--format", "json")
    assert time.monotonic() - started < 10
    found = json.loads(result.stdout)["findings"]
    messages = [finding["message"] for finding in found if finding["rule"] == "SW013"]
    assert messages == [f"{rel} lies outside the workspace; a lesson is about its files"]


# Keys no file name can hold: `show` says no article has them, in one line.
LONG = "\U0001d400"  # MATHEMATICAL BOLD CAPITAL A: four bytes in UTF-8
KEYS = {
    "300 letters": "a" * 300,
    "300 four-byte letters": LONG * 300,
    "a dated id of 56 four-byte letters": "2026-11-30-" + LONG * 56,
    "a dated id of 70 four-byte letters": "2026-11-30-" + LONG * 70,
    "a lesson path of four-byte letters": "lessons/" + LONG * 80 + ".md",
    "a raw path past PATH_MAX": "raw/" + "a/" * 3000 + "x.md",
    "a wiki path past PATH_MAX": ".wiki/wiki/" + "ab/" * 2000 + "x.md",
}


@pytest.mark.parametrize("case", KEYS, ids=str)
def test_show_of_a_key_no_file_name_can_hold_names_no_article(
    ws: Path, invoke: Invoke, case: str
) -> None:
    key = KEYS[case]
    hint = json.dumps(key, ensure_ascii=False)
    _refused(
        invoke,
        ws,
        ["show", key],
        f"no article or lesson {key!r}; try: skillwiki query {hint}",
    )


# Queries of many distinct words: searched for by their first MAX_QUERY_WORDS, and said so.
QUERIES = {
    "65 words": (" ".join(f"w{number}" for number in range(65)), 1),
    "a thousand words": (" ".join(f"w{number}" for number in range(1000)), 936),
    "a run of 100 chinese characters": ("".join(chr(0x4E00 + n) for n in range(100)), 35),
    "words and stop words": (" ".join(f"the w{number} of" for number in range(70)), 6),
}


@pytest.mark.parametrize("case", QUERIES, ids=str)
def test_a_query_of_many_words_is_cut_with_a_warning(ws: Path, invoke: Invoke, case: str) -> None:
    text, left_out = QUERIES[case]
    result = invoke("-w", str(ws), "query", text, "--json")
    assert result.exit_code == 0, result.output
    words = "1 more word" if left_out == 1 else f"{left_out} more words"
    assert result.stderr == (
        f"Warning: searched for the query's first 64 distinct words only; {words} left out\n"
    )
    assert json.loads(result.stdout)["results"] == []


def test_a_query_of_64_words_says_nothing(ws: Path, invoke: Invoke) -> None:
    result = invoke("-w", str(ws), "query", " ".join(f"w{number}" for number in range(64)))
    assert result.exit_code == 0
    assert result.stderr == ""


# Titles whose letters take four bytes: a lesson's file name is cut by bytes, not characters.
TITLES = {
    "56 four-byte letters": LONG * 56,
    "200 four-byte letters": LONG * 200,
    "80 three-byte letters": "\u90e8" * 80,
    "60 four-byte letters in words": " ".join([LONG * 6] * 10),
}


@pytest.mark.parametrize("case", TITLES, ids=str)
def test_a_lesson_titled_in_long_letters_is_recorded_and_shown(
    ws: Path, invoke: Invoke, case: str
) -> None:
    recorded = invoke(
        "record-lesson", "-w", str(ws), "--title", TITLES[case], "--summary", "It broke.",
        "--prevention-rule", "Check it.", "--json",
    )  # fmt: skip
    assert recorded.exit_code == 0, recorded.output
    lesson_id = json.loads(recorded.stdout)["id"]
    assert len(f"{lesson_id}.md".encode()) <= 200
    shown = invoke("show", "-w", str(ws), lesson_id, "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["meta"]["title"] == TITLES[case]


def test_the_mcp_query_says_the_words_it_left_out(ws: Path) -> None:
    """The server's query warns as the CLI does, in a text block beside the answer."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    text = " ".join(f"w{number}" for number in range(70))

    async def run() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "skillwiki", "mcp", "-w", str(ws)]
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("query", {"text": text})
            return [getattr(block, "text", "") for block in result.content]

    blocks = asyncio.run(run())
    assert json.loads(blocks[0])["results"] == []
    assert blocks[1:] == [
        "Warning: searched for the query's first 64 distinct words only; 6 more words left out"
    ]
