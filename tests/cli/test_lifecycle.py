"""feedback and confidence, review, maintain, and record-lesson --dedupe."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from skillwiki.config import load_config
from skillwiki.memory.evidence import add_evidence, confidence
from skillwiki.memory.maintain import Action, plan
from skillwiki.memory.store import Evidence, load_lessons, parse_evidence
from skillwiki.workspace import Workspace
from tests.support import Invoke, snapshot, write
from tests.support.lessons import lesson

DAY = date(2026, 11, 30)
LESSON_ID = "2026-11-30-channel-op-allowedtools-must-include-telegram-send"


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        ([], 0.5),
        ([("2026-11-30", "helped")], 2 / 3),
        ([("2026-11-30", "not-helped")], 1 / 3),
        ([("2026-11-30", "failed-again")] * 3, 1 / 5),
        # 90 days old: half the weight. (0.5 + 1) / (0.5 + 2)
        ([("2026-09-01", "helped")], 1.5 / 2.5),
        # 180 days old helped, today not-helped: (0.25 + 1) / (1.25 + 2)
        ([("2026-06-03", "helped"), ("2026-11-30", "not-helped")], 1.25 / 3.25),
    ],
)
def test_confidence_decays_with_age(pieces: list[tuple[str, str]], expected: float) -> None:
    evidence = tuple(Evidence(date.fromisoformat(day), outcome, "") for day, outcome in pieces)
    assert confidence(evidence, DAY, 90) == pytest.approx(expected)


def test_add_evidence_creates_then_extends_the_section() -> None:
    body = "## What Happened\n\nX\n\n## Next Time\n\n- W\n"
    once = add_evidence(body, "- 2026-11-30 helped")
    assert once == body + "\n## Evidence\n\n- 2026-11-30 helped\n"
    twice = add_evidence(once + "\n## Later\n\nmore\n", "- 2026-12-01 not-helped: meh")
    assert "- 2026-11-30 helped\n- 2026-12-01 not-helped: meh\n\n## Later" in twice
    assert [e.outcome for e in parse_evidence(twice)] == ["helped", "not-helped"]


def test_feedback_cli_records_evidence_and_compile_keeps_it(demo: Path, invoke: Invoke) -> None:
    result = invoke(
        "feedback",
        "-w",
        str(demo),
        LESSON_ID,
        "--outcome",
        "helped",
        "--note",
        "caught it",
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["evidence"] == 1 and out["confidence"] == pytest.approx(0.6667, abs=1e-4)
    assert out["flagged"] is False
    raw = (demo / ".wiki" / "raw" / "lessons" / f"{LESSON_ID}.md").read_text()
    assert raw.rstrip().endswith(": caught it") and "## Evidence\n\n- " in raw
    article = (demo / ".wiki" / "wiki" / "lessons" / f"{LESSON_ID}.md").read_text()
    assert "## Evidence" in article and "caught it" in article
    assert invoke("lint", "-w", str(demo)).exit_code == 0


def test_failed_again_after_a_recall_flags_for_review(demo: Path, invoke: Invoke) -> None:
    invoke("feedback", "-w", str(demo), LESSON_ID, "--outcome", "failed-again")
    assert "0 lesson(s) waiting" in invoke("review", "-w", str(demo)).stdout  # never recalled yet
    invoke("recall", "-w", str(demo), "--agent", "channel-op")
    flagged = json.loads(
        invoke("feedback", "-w", str(demo), LESSON_ID, "--outcome", "failed-again", "--json").stdout
    )
    assert flagged["flagged"] is True
    pending = json.loads(invoke("review", "-w", str(demo), "--json").stdout)["pending"]
    assert [(p["id"], p["status"]) for p in pending] == [(LESSON_ID, "active")]
    assert pending[0]["reason"].startswith("failed again after being recalled")
    assert (
        invoke("review", "-w", str(demo), LESSON_ID, "--accept").stdout
        == f"{LESSON_ID} is now active\n"
    )
    assert json.loads(invoke("review", "-w", str(demo), "--json").stdout)["pending"] == []


def test_feedback_unknown_lesson_or_outcome(demo: Path, invoke: Invoke) -> None:
    result = invoke("feedback", "-w", str(demo), "nope", "--outcome", "helped")
    assert result.exit_code == 2
    assert result.stderr == "Error: no lesson with id 'nope'; list them with: skillwiki review\n"
    assert invoke("feedback", "-w", str(demo), LESSON_ID, "--outcome", "great").exit_code == 2


def test_review_candidates(ws: Path, invoke: Invoke) -> None:
    (ws / ".wiki" / "config.toml").write_text("[lessons]\nrequire_review = true\n")
    sections = ["--what-happened", "It failed.", "--root-cause", "A cause."]
    sections += ["--optimization", "A fix.", "--prevention-rule", "Check it first."]
    one = json.loads(
        invoke(
            "record-lesson", "-w", str(ws), "--title", "One", "--summary", "S.", *sections, "--json"
        ).stdout
    )
    two = json.loads(
        invoke("record-lesson", "-w", str(ws), "--title", "Two", "--summary", "S.", "--json").stdout
    )
    assert one["status"] == two["status"] == "candidate"
    assert json.loads(invoke("recall", "-w", str(ws), "--json").stdout)["block"] == ""
    listed = invoke("review", "-w", str(ws)).stdout
    assert (
        one["id"] in listed and two["id"] in listed and "2 lesson(s) waiting for review" in listed
    )
    before = snapshot(ws)
    unfinished = invoke("review", "-w", str(ws), two["id"], "--accept")
    assert (unfinished.exit_code, unfinished.stderr) == (
        2,
        f"Error: .wiki/raw/lessons/{two['id']}.md: cannot be accepted while unfinished: "
        "Root Cause, Optimization, Next Time, prevention rule; fill it in first\n",
    )
    assert snapshot(ws) == before
    assert invoke("review", "-w", str(ws), one["id"], "--accept").exit_code == 0
    invoke("review", "-w", str(ws), two["id"], "--reject", "--reason", "a one-off")
    lessons = load_lessons(Workspace(ws), load_config(ws / ".wiki" / "config.toml"))
    assert lessons[one["id"]].status == "active"
    assert lessons[two["id"]].status == "archived"
    assert lessons[two["id"]].meta["archived_reason"] == "a one-off"
    assert "One" in json.loads(invoke("recall", "-w", str(ws), "--json").stdout)["block"]
    assert (
        invoke("review", "-w", str(ws), one["id"]).stderr
        == "Error: give exactly one of --accept or --reject\n"
    )


def test_maintain_plan_with_fixed_dates(ws: Path) -> None:
    # created 2026-11-01, never recalled; each with its own rule: no three share a cause
    lesson(ws, "a-old-low", severity="LOW", tags="x", rule="Pin the base image.")
    lesson(ws, "b-old-high", severity="HIGH", tags="y", rule="Rotate the log files daily.")
    lesson(ws, "c-dup-older", tags="retry, backoff, jitter, timeout", rule="Back off on 429.")
    lesson(ws, "d-dup-newer", tags="retry, backoff, jitter, timeout, 429", rule="Add jitter.")
    for name in ("c-dup-older", "d-dup-newer"):
        path = ws / ".wiki" / "raw" / "lessons" / f"{name}.md"
        path.write_text(path.read_text().replace("tags:", "category: net\ntags:"))
    newer = ws / ".wiki" / "raw" / "lessons" / "d-dup-newer.md"
    newer.write_text(newer.read_text().replace("created: 2026-11-01", "created: 2026-11-02"))
    hits = {
        "b-old-high": {"count": 11, "last": "2026-11-29T10:00:00Z"},
        "c-dup-older": {"count": 1, "last": "2026-11-29T10:00:00Z"},
        "d-dup-newer": {"count": 1, "last": "2026-11-29T10:00:00Z"},
    }
    write(ws / ".wiki" / ".cache" / "hits.json", json.dumps(hits))
    ws_ = Workspace(ws)
    config = load_config(ws / ".wiki" / "config.toml")
    assert plan(ws_, config, date(2026, 12, 1)) == [
        Action(
            "supersede", "c-dup-older", "category 'net', tag similarity 0.80", into="d-dup-newer"
        ),
        Action(
            "promote",
            "b-old-high",
            "recalled 11 times over 30 days: make this a documented practice",
        ),
    ]
    later = plan(ws_, config, date(2027, 2, 1))  # 92 days after a-old-low was created
    assert Action("archive", "a-old-low", "LOW, no recall for 92 days") in later
    assert not any(a.id == "b-old-high" and a.kind == "archive" for a in later)  # HIGH: never


def test_maintain_apply_supersedes_and_merges(ws: Path, invoke: Invoke) -> None:
    lesson(ws, "c-dup-older", tags="retry, backoff, jitter, timeout, dns", agents="a1")
    lesson(ws, "d-dup-newer", tags="retry, backoff, jitter, timeout, 429, dns", agents="a2")
    for name in ("c-dup-older", "d-dup-newer"):
        path = ws / ".wiki" / "raw" / "lessons" / f"{name}.md"
        path.write_text(path.read_text().replace("tags:", "category: net\ntags:"))
    newer = ws / ".wiki" / "raw" / "lessons" / "d-dup-newer.md"
    newer.write_text(newer.read_text().replace("created: 2026-11-01", "created: 2026-11-02"))
    dry = invoke("maintain", "-w", str(ws))
    assert "supersede c-dup-older by d-dup-newer" in dry.stdout and "dry run" in dry.stdout
    assert "superseded" not in (ws / ".wiki" / "raw" / "lessons" / "c-dup-older.md").read_text()
    applied = json.loads(invoke("maintain", "-w", str(ws), "--apply", "--json").stdout)
    assert [a["kind"] for a in applied["done"]] == ["supersede"]
    lessons = load_lessons(Workspace(ws), load_config(ws / ".wiki" / "config.toml"))
    assert lessons["c-dup-older"].status == "superseded"
    assert lessons["c-dup-older"].meta["superseded_by"] == "d-dup-newer"
    assert lessons["d-dup-newer"].strings("agents") == ["a2", "a1"]
    assert "maintain supersede c-dup-older" in (ws / ".wiki" / "log.md").read_text()
    shown = invoke("show", "-w", str(ws), "c-dup-older")
    assert shown.exit_code == 0 and "status: superseded" in shown.stdout
    assert json.loads(invoke("query", "-w", str(ws), "dup older", "--json").stdout)[
        "results"
    ] == [] or all(
        "c-dup-older" not in r["path"]
        for r in json.loads(invoke("query", "-w", str(ws), "dup older", "--json").stdout)["results"]
    )


def test_record_lesson_dedupe(demo: Path, invoke: Invoke) -> None:
    args = (
        "--title",
        "Whitelist every MCP tool",
        "--summary",
        "Another agent missed a tool.",
        "--category",
        "agent-config",
        "--tag",
        "allowedTools",
        "--tag",
        "mcp-tools",
        "--tag",
        "telegram_send",
    )
    deduped = json.loads(
        invoke("record-lesson", "-w", str(demo), *args, "--dedupe", "--json").stdout
    )
    assert (
        deduped["created"] is False
        and deduped["id"] == LESSON_ID
        and deduped["similar"] == [LESSON_ID]
    )
    recorded = json.loads(invoke("record-lesson", "-w", str(demo), *args, "--json").stdout)
    assert recorded["created"] is True and recorded["similar"] == [LESSON_ID]
