from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillwiki.memory.lessons import TEMPLATE_TEXT
from tests.support import TODAY, Invoke, snapshot, write


def _record(invoke: Invoke, root: Path, *args: str, input: str | None = None) -> dict:
    result = invoke("record-lesson", "-w", str(root), *args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_record_lesson_writes_all_sections_and_compiles(ws: Path, invoke: Invoke) -> None:
    report = _record(
        invoke,
        ws,
        "--title",
        "Retry storms on 429",
        "--summary",
        "The agent retried a 429 at once.",
        "--severity",
        "HIGH",
        "--agent",
        "fetcher",
        "--tag",
        "retry",
        "--category",
        "network",
        "--trigger",
        "retries",
        "--prevention-rule",
        "Back off on 429 using Retry-After.",
    )
    lesson_id = f"{TODAY}-retry-storms-on-429"
    assert report == {
        "id": lesson_id,
        "path": f".wiki/raw/lessons/{lesson_id}.md",
        "status": "candidate",  # two sections still hold the template: not recalled yet
        "created": True,
        "similar": [],
        "redacted": [],
        "unfinished": ["Root Cause", "Optimization"],
    }
    raw = (ws / report["path"]).read_text()
    assert raw == (
        "---\ntype: lesson\n"
        f"id: {lesson_id}\n"
        "title: Retry storms on 429\nsummary: The agent retried a 429 at once.\n"
        "trigger: retries\nseverity: HIGH\nscope: targeted\nagents:\n  - fetcher\n"
        "tags:\n  - retry\ncategory: network\n"
        "prevention_rule: Back off on 429 using Retry-After.\n"
        f"status: candidate\ncreated: {TODAY}\n---\n"
        "## What Happened\n\nThe agent retried a 429 at once.\n\nTrigger: retries.\n\n"
        f"## Root Cause\n\n{TEMPLATE_TEXT['Root Cause']}\n\n"
        f"## Optimization\n\n{TEMPLATE_TEXT['Optimization']}\n\n"
        "## Next Time\n\n- Back off on 429 using Retry-After.\n"
    )
    article = ws / ".wiki" / "wiki" / "lessons" / f"{lesson_id}.md"
    assert "severity: HIGH" in article.read_text()
    index = json.loads((ws / ".wiki" / "index.json").read_text())
    assert index["articles"][0]["id"] == lesson_id


def test_same_lesson_twice_creates_one_file(ws: Path, invoke: Invoke) -> None:
    args = ("--title", "Same", "--summary", "Same summary.")
    first = _record(invoke, ws, *args)
    second_run = invoke("record-lesson", "-w", str(ws), *args)
    assert second_run.exit_code == 0
    assert f"already recorded as {first['id']}; nothing new written" in second_run.stdout
    second = _record(invoke, ws, *args)
    assert second["created"] is False and second["id"] == first["id"]
    assert len(list((ws / ".wiki" / "raw" / "lessons").iterdir())) == 1


def test_same_title_other_body_gets_a_new_id_and_is_named_similar(ws: Path, invoke: Invoke) -> None:
    first = _record(invoke, ws, "--title", "Same", "--summary", "One.")
    second = _record(invoke, ws, "--title", "Same", "--summary", "Two.")
    assert second["id"] == first["id"] + "-2"
    assert second["similar"] == [first["id"]]


def test_multiline_summary_and_body_from_stdin(ws: Path, invoke: Invoke) -> None:
    body = "## What Happened\n\nA\n\n## Root Cause\n\nB\n\n## Optimization\n\nC\n\n## Next Time\n\n- D\n"
    report = _record(
        invoke, ws, "--title", "T", "--summary", "line one\nline two", "--body", "-", input=body
    )
    raw = (ws / report["path"]).read_text()
    assert "summary: line one line two\n" in raw
    assert raw.endswith("---\n" + body)


def test_secrets_are_redacted_with_notice(ws: Path, invoke: Invoke) -> None:
    token = "ghp_" + "a1B2c3D4e5" * 4
    result = invoke(
        "record-lesson",
        "-w",
        str(ws),
        "--title",
        "Leaked token",
        "--summary",
        f"The run printed {token} and password=hunter2hunter2",
    )
    assert result.exit_code == 0
    assert result.stderr.startswith(
        "Warning: redacted secrets from the lesson: github_token, password\n"
    )
    raw = next((ws / ".wiki" / "raw" / "lessons").iterdir()).read_text()
    assert token not in raw and "hunter2hunter2" not in raw
    assert "[REDACTED:github_token]" in raw and "password=[REDACTED:password]" in raw


def test_path_is_fingerprinted(ws: Path, invoke: Invoke) -> None:
    write(ws / "agents" / "a.json", "{}\n")
    report = _record(
        invoke, ws, "--title", "T", "--summary", "S.", "--path", str(ws / "agents" / "a.json")
    )
    raw = (ws / report["path"]).read_text()
    assert "paths:\n  - agents/a.json=xxh3:" in raw


def test_require_review_makes_candidates(ws: Path, invoke: Invoke) -> None:
    (ws / ".wiki" / "config.toml").write_text("[lessons]\nrequire_review = true\n")
    assert _record(invoke, ws, "--title", "T", "--summary", "S.")["status"] == "candidate"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--severity", "URGENT"),
            "Error: --severity 'URGENT' is not one of LOW, MEDIUM, HIGH, CRITICAL\n",
        ),
        (("--scope", "local"), "Error: --scope 'local' is not one of global, targeted\n"),
        (
            ("--trigger", "oops"),
            "Error: --trigger 'oops' is not one of replan, consecutive_tool_failures, "
            "repeated_tool_failures, retries, cost_overrun, low_confidence, rejected, manual\n",
        ),
        (("--scope", "targeted"), "Error: --scope targeted needs at least one --agent\n"),
        (
            ("--path", "missing.json"),
            "Error: missing.json: --path names no file; give a file the lesson is about\n",
        ),
    ],
)
def test_bad_values_are_exit_2_and_write_nothing(
    ws: Path, invoke: Invoke, args: tuple[str, ...], message: str
) -> None:
    before = snapshot(ws)
    result = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.", *args)
    assert result.exit_code == 2
    assert result.stderr == message
    assert snapshot(ws) == before


def test_a_lesson_whose_frontmatter_broke_is_never_written_over(ws: Path, invoke: Invoke) -> None:
    args = ["--title", "Pin the image", "--summary", "Builds drifted."]
    first = invoke("record-lesson", "-w", str(ws), *args, "--json")
    path = ws / json.loads(first.stdout)["path"]
    broken = "---\ntitle: [unclosed\n---\nMy hand-written notes.\n"
    path.write_text(broken, encoding="utf-8")
    second = invoke("record-lesson", "-w", str(ws), *args, "--json")
    assert second.exit_code == 0, second.output
    assert path.read_text(encoding="utf-8") == broken
    assert json.loads(second.stdout)["path"].endswith("-pin-the-image-2.md")
