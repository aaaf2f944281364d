from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import Invoke, put_in_every_state, snapshot, write

LESSON = "2026-11-30-channel-op-allowedtools-must-include-telegram-send"


@pytest.mark.parametrize(
    "key",
    [
        LESSON,
        f".wiki/wiki/lessons/{LESSON}.md",
        f"wiki/lessons/{LESSON}.md",
        f".wiki/raw/lessons/{LESSON}.md",
        f"raw/lessons/{LESSON}.md",
        f"lessons/{LESSON}.md",
    ],
)
def test_show_by_id_article_path_or_raw_path(demo: Path, invoke: Invoke, key: str) -> None:
    result = invoke("show", "-w", str(demo), key)
    assert result.exit_code == 0, result.output
    article = demo / ".wiki" / "wiki" / "lessons" / f"{LESSON}.md"
    assert result.stdout == article.read_text()


def test_show_takes_a_path_from_the_working_directory(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a folder of the checkout, `../.wiki/wiki/x.md` is the article it names (it was "no
    article or lesson"); in .wiki/raw/, a raw file's own path; from the root, as before."""
    article = demo / ".wiki" / "wiki" / "lessons" / f"{LESSON}.md"
    (demo / "src").mkdir()
    for here, key in [
        (demo / "src", f"../.wiki/wiki/lessons/{LESSON}.md"),
        (demo / ".wiki" / "raw", f"lessons/{LESSON}.md"),
        (demo / ".wiki" / "raw" / "lessons", f"{LESSON}.md"),
        (demo, f".wiki/wiki/lessons/{LESSON}.md"),
    ]:
        monkeypatch.chdir(here)
        result = invoke("show", key)
        assert result.exit_code == 0, (here, key, result.output)
        assert result.stdout == article.read_text()


def test_show_json(demo: Path, invoke: Invoke) -> None:
    shown = json.loads(invoke("show", "-w", str(demo), "raw/docs/oncall.txt", "--json").stdout)
    assert shown["path"] == ".wiki/wiki/docs/oncall.txt.md"
    assert shown["meta"]["title"] == "Oncall"
    assert shown["body"].startswith("# Oncall\n\n```text\n")


def test_show_unknown_is_exit_2(demo: Path, invoke: Invoke) -> None:
    result = invoke("show", "-w", str(demo), "no-such-thing")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "Error: no article or lesson 'no-such-thing'; try: skillwiki query \"no-such-thing\"\n"
    )


def test_status_reports_every_state_and_never_writes(demo: Path, invoke: Invoke) -> None:
    put_in_every_state(demo)
    before = snapshot(demo)
    result = invoke("status", "-w", str(demo))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "edited  .wiki/wiki/docs/agents.md",
        "stale   .wiki/wiki/docs/ci.md",
        "orphan  .wiki/wiki/docs/deployment.md",
        "new     .wiki/raw/docs/new.md",
        "13 articles: 9 fresh, 1 new, 1 stale, 1 orphan, 1 edited",
    ]
    assert invoke("status", "-w", str(demo), "--check").exit_code == 1
    assert snapshot(demo) == before
    assert not (demo / ".wiki" / ".cache").exists()


def test_status_json_lists_every_file_or_those_not_fresh_and_the_problems(
    demo: Path, invoke: Invoke
) -> None:
    put_in_every_state(demo)
    write(demo / ".wiki" / "raw" / "docs" / "x.txt", "plain\n")  # both make docs/x.txt.md
    write(demo / ".wiki" / "raw" / "docs" / "x.txt.md", "# X\n")
    every = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert every["fresh"] is False and every["totals"]["fresh"] == 9
    assert len(every["files"]) == sum(every["totals"].values()) == 14
    assert every["problems"] == [
        {
            "path": ".wiki/raw/docs/x.txt",
            "message": "compiles to the same article as raw/docs/x.txt.md; rename one",
        }
    ]
    changed = json.loads(invoke("status", "-w", str(demo), "--json", "--not-fresh").stdout)
    assert [(f["state"], f["article"]) for f in changed["files"]] == [
        ("edited", ".wiki/wiki/docs/agents.md"),
        ("stale", ".wiki/wiki/docs/ci.md"),
        ("orphan", ".wiki/wiki/docs/deployment.md"),
        ("new", ".wiki/wiki/docs/new.md"),
        ("new", ".wiki/wiki/docs/x.txt.md"),
    ]
    assert {key: value for key, value in changed.items() if key != "files"} == {
        key: value for key, value in every.items() if key != "files"
    }


def test_status_json_of_a_big_folder_spread_over_buckets(ws: Path, invoke: Invoke) -> None:
    """A folder of more than 512 files is answered bucket by bucket from the stat cache: each
    fresh file is listed once, under its own bucket, and the others as in a small folder."""
    big = ws / ".wiki" / "raw" / "big"
    for number in range(1100):
        write(big / f"page-{number:04}.md", f"# Page {number}\n")
    write(big / "plain.txt", "plain\n")  # both make big/plain.txt.md
    write(big / "plain.txt.md", "# Plain\n")
    compiled = invoke("compile", "-w", str(ws))
    assert compiled.exit_code == 2 and "1101 written" in compiled.stdout  # the pair refused
    invoke("status", "-w", str(ws))  # the stat cache settled: the next look uses its records
    write(big / "page-0007.md", "# Page 7, again\n")
    every = json.loads(invoke("status", "-w", str(ws), "--json").stdout)
    fresh = [f["article"] for f in every["files"] if f["state"] == "fresh"]
    expected = [f".wiki/wiki/big/page-{number:04}.md" for number in range(1100) if number != 7]
    assert fresh == sorted([*expected, ".wiki/wiki/big/plain.txt.md"])
    assert every["totals"] == {"fresh": 1100, "new": 0, "stale": 1, "orphan": 0, "edited": 0}
    changed = json.loads(invoke("status", "-w", str(ws), "--json", "--not-fresh").stdout)
    assert changed["files"] == [f for f in every["files"] if f["state"] != "fresh"]
    assert [f["article"] for f in changed["files"]] == [".wiki/wiki/big/page-0007.md"]
    assert len(every["problems"]) == 1


def test_status_check_passes_when_fresh(demo: Path, invoke: Invoke) -> None:
    result = invoke("status", "-w", str(demo), "--check", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["fresh"] is True and report["totals"]["fresh"] == 12


def test_workspace_found_upwards_and_by_env(demo: Path, invoke: Invoke, monkeypatch) -> None:
    monkeypatch.chdir(demo / "docs")
    assert invoke("status", "--check").exit_code == 0
    monkeypatch.chdir(demo.parent)
    monkeypatch.setenv("SKILLWIKI_WORKSPACE", str(demo))
    assert invoke("status", "--check").exit_code == 0
    monkeypatch.delenv("SKILLWIKI_WORKSPACE")
    assert invoke("-w", str(demo), "status", "--check").exit_code == 0


# Raw files compile refuses, each with what it writes there (in a workspace whose limit is
# max_file_bytes = 200): status names every one of them, as compile does.
REFUSED: dict[str, str | bytes] = {
    "unclosed.md": "---\ntitle: [unclosed\n---\nbody\n",
    "list.md": "---\n- a\n- b\n---\nbody\n",
    "tags.md": "---\ntags:\n  a: 1\n---\nbody\n",
    "origin.md": "---\norigin: [a, b]\n---\nbody\n",  # compile reads a Markdown file's origin
    "title.txt": "---\ntitle: [a, b]\n---\nbody\n",
    "latin1.txt": b"caf\xe9\n",
    "binary.md": b"# Binary\n\x00\x01\n",
    "utf16.md": "# Wide\n".encode("utf-16"),
    "big.md": "# Big\n\n" + "word " * 60 + "\n",
    "pair.txt": "plain\n",  # pair.txt.md makes the same article
    "pair.txt.md": "# Pair\n",
}


def test_status_names_every_raw_file_compile_refuses_and_never_writes(
    ws: Path, invoke: Invoke
) -> None:
    write(ws / ".wiki" / "config.toml", "max_file_bytes = 200\n")
    write(ws / ".wiki" / "raw" / "fine.md", "# Fine\n")
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    write(ws / ".wiki" / "raw" / "fine.md", "---\ntitle: [broken since\n---\n")  # now stale
    for name, text in REFUSED.items():
        write(ws / ".wiki" / "raw" / "notes" / name, text)
    write(ws / ".wiki" / "raw" / "notes" / "origin.txt", REFUSED["origin.md"])  # not a .txt's
    before = snapshot(ws)
    shown = invoke("status", "-w", str(ws), "--json")
    assert shown.exit_code == 0, shown.output
    problems = json.loads(shown.stdout)["problems"]
    human = invoke("status", "-w", str(ws))
    assert invoke("status", "-w", str(ws), "--check").exit_code == 1
    assert snapshot(ws) == before
    compiled = invoke("compile", "-w", str(ws), "--json")
    assert compiled.exit_code == 2
    assert problems == sorted(json.loads(compiled.stdout)["problems"], key=lambda p: p["path"])
    refused = {".wiki/raw/fine.md"} | {
        f".wiki/raw/notes/{name}" for name in REFUSED if name != "pair.txt.md"
    }
    assert {problem["path"] for problem in problems} == refused
    assert human.exit_code == 0
    warned = [line for line in human.stderr.splitlines() if line.startswith("Warning: ")]
    assert warned == [f"Warning: {p['path']}: {p['message']}" for p in problems]


def test_show_a_key_no_file_name_can_hold_is_no_article(demo: Path, invoke: Invoke) -> None:
    """A key longer than the system lets a file name be was an OSError and a traceback (and
    over MCP, "Error executing tool show" with the key logged whole)."""
    key = "k" * 300
    result = invoke("show", "-w", str(demo), key)
    assert (result.exit_code, result.stderr) == (
        2,
        f"Error: no article or lesson '{key}'; try: skillwiki query \"{key}\"\n",
    )
