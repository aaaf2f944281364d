"""Rules from lessons, end to end on a team's four-week history (tests/data/rules/): maintain
proposes one rule for each cause, record-rule puts it in the lessons' place, outcomes give it
confidence, a contradicting lesson puts it in review and feedback decides it."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from skillwiki import api
from skillwiki.config import Config, load_config
from skillwiki.memory.confidence import rule_confidence
from skillwiki.memory.store import Evidence, load_lessons
from skillwiki.workspace import Workspace
from tests.support import Invoke, snapshot
from tests.support.lessons import lesson

HISTORY = json.loads(
    (Path(__file__).parent.parent / "data" / "rules" / "history.json").read_text("utf-8")
)
CAUSES = {"A", "B", "C", "D"}  # X: one-off lessons, each its own cause


def _on(monkeypatch: pytest.MonkeyPatch, day: str) -> None:
    monkeypatch.setenv("SKILLWIKI_NOW", f"{day}T10:00:00Z")


def _record(ws: Workspace, config: Config, item: dict[str, Any]) -> api.RecordAnswer:
    lesson_ = api.lesson_input(
        item["title"],
        item["summary"],
        what_happened=item["what_happened"],
        root_cause=item["root_cause"],
        optimization=item["optimization"],
        trigger=item["trigger"],
        severity=item["severity"],
        agent=item["agent"],
        tag=item["tag"],
        category=item["category"],
        prevention_rule=item["prevention_rule"],
    )
    return api.record_lesson(ws, config, lesson_)


@pytest.fixture
def history(ws: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The history up to 2026-11-30, the conflicting lesson left out: each lesson's key and id."""
    workspace = Workspace(ws)
    config = load_config(workspace.config_file)
    events = [(item["created"], 0, item) for item in HISTORY["lessons"] if not item["conflict"]]
    events += [(item["on"], 1, item) for item in HISTORY["feedback"]]
    ids: dict[str, str] = {}
    for day, kind, item in sorted(events, key=lambda event: (event[0], event[1])):
        _on(monkeypatch, day)
        if kind == 0:
            ids[item["key"]] = _record(workspace, config, item).recorded.id
        elif item["key"] in ids:
            api.feedback(workspace, config, ids[item["key"]], item["outcome"], note=item["note"])
    _on(monkeypatch, "2026-11-30")
    return ids


def _recall(invoke: Invoke, ws: Path, *args: str) -> dict[str, Any]:
    result = invoke("recall", "-w", str(ws), "--format", "json", *args)
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def _maintain(invoke: Invoke, ws: Path) -> dict[str, Any]:
    result = invoke("maintain", "-w", str(ws), "--json")
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def _cause(ids: dict[str, str], lesson_id: str) -> str:
    key = next(key for key, known in ids.items() if known == lesson_id)
    return key[0]


def _tokens(block: str) -> int:
    """Tokens as a model's tokenizer roughly counts English: a word or mark about 4 chars."""
    return math.ceil(len(block) / 4)


def test_the_history_consolidates_into_one_rule_a_cause_and_the_prompt_shrinks(
    ws: Path, invoke: Invoke, history: dict[str, str]
) -> None:
    task = ("--agent", "coder", "--tag", "wsl2", "--task", "start the dev server on WSL2")
    before = _recall(invoke, ws, *task)
    shown = [item["id"] for item in before["lessons"] if item["included"]]
    # Before: the block is near-repeats of one cause, each line too narrow.
    assert Counter(_cause(history, item) for item in shown)["B"] >= 3

    plan = _maintain(invoke, ws)
    groups = [{_cause(history, item) for item in rule["lessons"]} for rule in plan["rules"]]
    assert sorted(min(group) for group in groups) == sorted(CAUSES)
    assert all(len(group) == 1 for group in groups)  # each group is one cause
    sizes = {_cause(history, rule["lessons"][0]): len(rule["lessons"]) for rule in plan["rules"]}
    assert sizes == {"A": 9, "B": 6, "C": 8, "D": 5}  # every lesson of a cause, no one-off
    assert plan["consolidation"]["due"] is True
    assert plan["consolidation"]["new_lessons"] == 39
    for rule in plan["rules"]:  # a draft from the lessons' own fields, as a command to run
        assert rule["command"][:2] == ["skillwiki", "record-rule"]
        assert rule["rule"]["evidence"] == rule["lessons"]
        lessons = load_lessons(Workspace(ws), load_config(ws / ".wiki" / "config.toml"))
        assert rule["rule"]["then"] in {lessons[item].rule.rstrip(".") for item in rule["lessons"]}
    assert not any(ws.joinpath(".wiki/raw/lessons").glob("*-rule-*"))  # nothing written yet

    recorded = []
    for rule in plan["rules"]:
        result = invoke(*rule["command"][1:], "-w", str(ws), "--json")
        assert result.exit_code == 0, result.output
        recorded.append(json.loads(result.stdout))
    assert [item["superseded"] for item in recorded] == [rule["lessons"] for rule in plan["rules"]]
    assert _maintain(invoke, ws)["rules"] == []  # nothing left to consolidate
    assert _maintain(invoke, ws)["consolidation"]["due"] is False

    after = _recall(invoke, ws, *task)
    entries = [item for item in after["lessons"] if item["included"]]
    assert len(entries) <= 4
    causes = ["rule" if item["kind"] == "rule" else _cause(history, item["id"]) for item in entries]
    assert [item["kind"] for item in entries].count("rule") >= 2
    # One line for the WSL2 cause, as "When <condition>: <action>.", no lesson of it beside.
    wsl = [item for item in entries if item["kind"] == "rule" and item["layer"] == "task"]
    assert len(wsl) == 1
    assert "\n- [MEDIUM] When coder or deployer works on wsl2, ipv6" in after["block"]
    assert "B" not in causes
    assert _tokens(after["block"]) < _tokens(before["block"])
    # Recalled in their place: a superseded lesson is still found with --all.
    superseded = plan["rules"][0]["lessons"][0]
    reason = next(item for item in after["lessons"] if item["id"] == superseded)["reason"]
    assert reason == "status superseded: only active lessons are recalled"
    title = load_lessons(Workspace(ws), load_config(ws / ".wiki/config.toml"))[superseded].title
    found = invoke("query", title, "-w", str(ws), "--all", "--json")
    assert superseded in found.stdout


def test_a_rule_s_confidence_pools_its_lessons_outcomes_discounted_for_support(
    ws: Path, invoke: Invoke, history: dict[str, str]
) -> None:
    for rule in _maintain(invoke, ws)["rules"]:
        assert invoke(*rule["command"][1:], "-w", str(ws)).exit_code == 0
    workspace = Workspace(ws)
    config = load_config(workspace.config_file)
    lessons = load_lessons(workspace, config)
    status = json.loads(invoke("status", "-w", str(ws), "--json").stdout)["rules"]
    assert len(status) == 4
    for item in status:
        rule = lessons[item["id"]]
        pieces = [piece for key in rule.evidence_ids for piece in lessons[key].evidence]
        outcomes = [f for f in HISTORY["feedback"] if history.get(f["key"]) in rule.evidence_ids]
        assert item["support"] == len(pieces) == len(outcomes)
        # The formula, by hand: share of helped (age-weighted), times ln(1 + n) / ln(11).
        day = __import__("datetime").date(2026, 11, 30)
        weights = [0.5 ** ((day - piece.day).days / 90) for piece in pieces]
        helped = sum(w for w, p in zip(weights, pieces, strict=True) if p.outcome == "helped")
        vouched = min(1.0, math.log1p(sum(weights)) / math.log1p(10))
        expected = vouched * helped / sum(weights) + (1 - vouched) * 0.5
        assert item["confidence"] == pytest.approx(expected, abs=1e-4)
        # The article shows both numbers, as of the day they were written.
        article = (ws / ".wiki" / "wiki" / "lessons" / f"{rule.id}.md").read_text()
        assert f"support: {item['support']}\n" in article and "confidence: 0." in article
        assert "kind: rule\n" in article and "evidence:\n" in article


def test_three_of_three_is_worth_less_than_thirty_two_of_thirty_eight() -> None:
    from datetime import date

    day = date(2026, 11, 30)
    config = Config()

    def measured(helped: int, total: int) -> float:
        pieces = [Evidence(day, "helped" if n < helped else "not-helped", "") for n in range(total)]
        return rule_confidence(pieces, day, config).confidence

    assert measured(3, 3) < measured(32, 38)
    assert measured(3, 3) < config.rules.global_confidence <= measured(32, 38)
    assert rule_confidence([], day, config).confidence == 0.5  # no outcome: neutral
    assert measured(0, 3) < measured(1, 3) < measured(2, 3) < measured(3, 3)
    assert measured(0, 5) < config.rules.min_confidence  # muted, once it has support


def test_a_contradicting_lesson_puts_the_rule_in_review_and_feedback_decides_it(
    ws: Path, invoke: Invoke, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for rule in _maintain(invoke, ws)["rules"]:
        assert invoke(*rule["command"][1:], "-w", str(ws)).exit_code == 0
    workspace = Workspace(ws)
    config = load_config(workspace.config_file)
    rule_b = next(
        item.id
        for item in load_lessons(workspace, config).values()
        if item.is_rule and history["B1"] in item.evidence_ids
    )
    conflict = next(item for item in HISTORY["lessons"] if item["conflict"])
    _on(monkeypatch, "2026-12-01")
    answer = _record(workspace, config, conflict)
    assert answer.rules_in_review == (rule_b,)
    rule = load_lessons(workspace, config)[rule_b]
    assert rule.status == "reviewing" and rule.strings("conflicts") == [answer.recorded.id]
    assert rule.text("reviewing_since") == "2026-12-01"
    # Still recalled, with its confidence and the new lesson beside it; never both as entries.
    recalled = _recall(invoke, ws, "--agent", "coder", "--task", "dev server localhost WSL2")
    assert "  In review (confidence 0." in recalled["block"]
    assert f"lesson {conflict['title']} says:" in recalled["block"]
    beside = next(item for item in recalled["lessons"] if item["id"] == answer.recorded.id)
    assert beside["reason"] == f"rule {rule_b} is recalled in its place" and not beside["included"]
    review = invoke("review", "-w", str(ws), "--json")
    assert rule_b in [item["id"] for item in json.loads(review.stdout)["pending"]]

    def feedback(day: str, outcome: str) -> dict[str, Any]:
        _on(monkeypatch, day)
        result = invoke("feedback", rule_b, "--outcome", outcome, "-w", str(ws), "--json")
        assert result.exit_code == 0, result.output
        answer: dict[str, Any] = json.loads(result.stdout)
        return answer

    # Outcomes within the review window do not decide it: no flip within one window.
    assert feedback("2026-12-04", "helped")["status"] == "reviewing"
    assert feedback("2026-12-09", "helped")["status"] == "reviewing"
    assert feedback("2026-12-12", "not-helped")["status"] == "reviewing"
    decided = feedback("2026-12-15", "helped")  # 14 days on, 4 outcomes, 3 of them helped
    assert decided["status"] == "active"
    lessons = load_lessons(workspace, config)
    rule = lessons[rule_b]
    assert rule.text("decided_on") == "2026-12-15" and "conflicts" not in rule.meta
    # It stands: the lesson it was in conflict with joins its evidence, superseded by it.
    assert rule.evidence_ids[-1] == answer.recorded.id
    assert f"- {answer.recorded.id}: {conflict['title']}\n" in rule.body
    assert "- 2026-12-15 helped\n" in rule.body  # its own outcomes kept
    assert lessons[answer.recorded.id].text("superseded_by") == rule_b
    assert decided["decided"] is True
    # Decided: a failure after a recall, within the next window, does not send it back.
    assert _recall(invoke, ws, "--agent", "coder", "--task", "WSL2 localhost")["block"]
    assert feedback("2026-12-20", "failed-again")["status"] == "active"
    assert feedback("2026-12-31", "failed-again")["status"] == "reviewing"


def test_a_rule_rejected_in_review_gives_its_lessons_back(ws: Path, invoke: Invoke) -> None:
    for name in ("one", "two", "three"):
        lesson(ws, name, tags="wsl2, ipv6", rule=f"Use 127.0.0.1 for {name}.")
    made = invoke(
        "record-rule", "-w", str(ws), "--when", "on WSL2", "--then", "use 127.0.0.1",
        "--evidence", "one", "--evidence", "two", "--evidence", "three", "--json",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    rule = json.loads(made.stdout)
    assert rule["superseded"] == ["one", "two", "three"] and rule["status"] == "active"
    config = load_config(ws / ".wiki" / "config.toml")
    assert {item.status for item in load_lessons(Workspace(ws), config).values()} == {
        "active",
        "superseded",
    }
    rejected = invoke("review", rule["id"], "--reject", "--reason", "too broad", "-w", str(ws))
    assert rejected.exit_code == 0 and f"{rule['id']} is now retired" in rejected.stdout
    lessons = load_lessons(Workspace(ws), config)
    assert lessons[rule["id"]].status == "retired"
    assert lessons[rule["id"]].text("retired_reason") == "too broad"
    assert all(lessons[name].status == "active" for name in ("one", "two", "three"))
    assert all("superseded_by" not in lessons[name].meta for name in ("one", "two", "three"))


def test_lessons_of_a_rule_that_cannot_be_read_are_recalled_again(ws: Path, invoke: Invoke) -> None:
    """A rule whose frontmatter was broken by a hand edit is not read; the lessons it
    superseded are recalled in its place until it is mended, not lost to recall."""
    for name in ("one", "two"):
        lesson(ws, name, tags="wsl2", rule=f"Use 127.0.0.1 for {name}.")
    made = invoke(
        "record-rule", "-w", str(ws), "--when", "on WSL2", "--then", "use 127.0.0.1",
        "--evidence", "one", "--evidence", "two", "--json",
    )  # fmt: skip
    rule_file = ws / json.loads(made.stdout)["path"]
    assert "When on WSL2: use 127.0.0.1." in _recall(invoke, ws, "--task", "WSL2")["block"]
    rule_file.write_text(rule_file.read_text().replace("when:", "when: [unclosed", 1))
    block = _recall(invoke, ws, "--task", "WSL2")["block"]
    assert "Use 127.0.0.1 for one." in block and "Use 127.0.0.1 for two." in block
    assert "When on WSL2" not in block


@pytest.mark.parametrize(
    ("evidence", "message"),
    [
        (["one", "nope"], "--evidence 'nope' names no lesson in .wiki/raw/lessons/"),
        (["one"], "a rule needs at least 2 lessons: give --evidence ID for each"),
        (["one", "old"], "--evidence 'old' is archived; only active lessons make a rule"),
        (["one", "gone"], "--evidence 'gone' is superseded by one; name that one"),
        (
            ["one", "new"],
            "--evidence 'new' is a candidate; accept it first: skillwiki review new --accept",
        ),
        (["one", "one", "new"], "--evidence 'one' is given twice; name each lesson once"),
    ],
)
def test_record_rule_refuses_what_is_not_live_evidence(
    ws: Path, invoke: Invoke, evidence: list[str], message: str
) -> None:
    lesson(ws, "one")
    lesson(ws, "old", status="archived")
    lesson(ws, "new", status="candidate")
    lesson(ws, "gone", status="superseded")
    gone = ws / ".wiki/raw/lessons/gone.md"
    gone.write_text(gone.read_text().replace("status:", "superseded_by: one\nstatus:"))
    before = snapshot(ws)
    args = [part for item in evidence for part in ("--evidence", item)]
    result = invoke("record-rule", "-w", str(ws), "--when", "w", "--then", "t", *args)
    assert (result.exit_code, result.stderr) == (2, f"Error: {message}\n")
    assert snapshot(ws) == before


@pytest.mark.parametrize("option", ["--tag", "--agent"])
def test_record_rule_refuses_a_blank_tag_or_agent(ws: Path, invoke: Invoke, option: str) -> None:
    lesson(ws, "one")
    lesson(ws, "two")
    before = snapshot(ws)
    result = invoke(
        "record-rule", "-w", str(ws), "--when", "w", "--then", "t",
        "--evidence", "one", "--evidence", "two", option, " ",
    )  # fmt: skip
    assert (result.exit_code, result.stderr) == (2, f"Error: {option} must not be empty\n")
    assert snapshot(ws) == before


def test_a_confident_rule_with_wide_support_is_recalled_for_every_task(
    ws: Path, invoke: Invoke
) -> None:
    helped = "\n## Evidence\n\n" + "".join(f"- 2026-11-{day:02d} helped\n" for day in range(2, 14))
    for name in ("a", "b", "c"):
        lesson(ws, name, tags="deploy", rule=f"Pass --env for {name}.", evidence=helped)
    lesson(ws, "other", tags="css", rule="Check the stylesheet.")
    made = invoke(
        "record-rule", "-w", str(ws), "--when", "deploying", "--then", "pass --env",
        "--evidence", "a", "--evidence", "b", "--evidence", "c", "--json",
    )  # fmt: skip
    rule_id = json.loads(made.stdout)["id"]
    answer = _recall(invoke, ws, "--tag", "css", "--task", "fix the stylesheet")
    first = answer["lessons"][0]
    assert (first["id"], first["layer"], first["kind"], first["included"]) == (
        rule_id,
        "global",
        "rule",
        True,
    )
    assert first["support"] == 36 and first["confidence"] >= 0.8
    assert [item["layer"] for item in answer["lessons"] if item["included"]] == ["global", "task"]
    assert "- [MEDIUM] When deploying: pass --env.\n" in answer["block"]


def test_the_stop_hook_names_a_due_consolidation_once_a_session(
    ws: Path, invoke: Invoke, history: dict[str, str]
) -> None:
    payload = json.dumps({"session_id": "s1", "cwd": str(ws), "hook_event_name": "Stop"})
    first = invoke("hook", "claude-code", "stop", input=payload)
    assert first.exit_code == 0
    said = json.loads(first.stdout)["systemMessage"]
    assert said.startswith("skillwiki: consolidation of lessons into rules is due (")
    assert "4 rule(s) to propose" in said and "`skillwiki maintain`" in said
    assert invoke("hook", "claude-code", "stop", input=payload).stdout == ""  # said once
    other = json.dumps({"session_id": "s2", "cwd": str(ws), "hook_event_name": "Stop"})
    for rule in _maintain(invoke, ws)["rules"]:
        assert invoke(*rule["command"][1:], "-w", str(ws)).exit_code == 0
    assert invoke("hook", "claude-code", "stop", input=other).stdout == ""  # nothing due now


def _three_and_a_rule(
    ws: Path, invoke: Invoke, *more: str, then: str = "use 127.0.0.1."
) -> dict[str, Any]:
    for name in ("one", "two", "three"):
        lesson(ws, name, tags="wsl2, ipv6", rule=f"Use 127.0.0.1 for {name}.")
    made = invoke(
        "record-rule", "-w", str(ws), "--when", "on WSL2", "--then", then,
        "--evidence", "one", "--evidence", "two", "--evidence", "three", "--json", *more,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    answer: dict[str, Any] = json.loads(made.stdout)
    return answer


def test_a_rule_retired_by_its_outcomes_gives_its_lessons_back(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    _on(monkeypatch, "2026-12-01")
    rule = _three_and_a_rule(ws, invoke)
    assert rule["id"] == "2026-12-01-rule-use-127-0-0-1"  # its title from its own action
    assert invoke("recall", "-w", str(ws), "--tag", "wsl2").exit_code == 0  # a recall hit
    outcomes = [
        ("2026-12-02", "failed-again"),
        ("2026-12-05", "not-helped"),
        ("2026-12-09", "failed-again"),
        ("2026-12-16", "helped"),
    ]
    said = []
    for day, outcome in outcomes:
        _on(monkeypatch, day)
        result = invoke("feedback", rule["id"], "--outcome", outcome, "-w", str(ws), "--json")
        said.append(json.loads(result.stdout)["status"])
    assert said == ["reviewing", "reviewing", "reviewing", "retired"]
    lessons = load_lessons(Workspace(ws), load_config(ws / ".wiki/config.toml"))
    assert lessons[rule["id"]].text("retired_reason") == "outcomes since the review began"
    assert [lessons[name].status for name in ("one", "two", "three")] == ["active"] * 3
    block = _recall(invoke, ws, "--tag", "wsl2")["block"]
    assert "Use 127.0.0.1 for one." in block and "When on WSL2" not in block


def test_a_candidate_rule_holds_its_lessons_and_a_rule_blocks_no_lesson(
    ws: Path, invoke: Invoke
) -> None:
    (ws / ".wiki/config.toml").write_text("[lessons]\nrequire_review = true\n")
    rule = _three_and_a_rule(ws, invoke)
    assert rule["status"] == "candidate" and rule["superseded"] == []
    assert _maintain(invoke, ws)["rules"] == []  # its lessons are not proposed again
    record = [
        "record-lesson", "-w", str(ws), "--title", "Four", "--summary", "S.",
        "--tag", "wsl2", "--tag", "ipv6", "--dedupe", "--json",
    ]  # fmt: skip
    assert json.loads(invoke(*record).stdout)["created"] is True  # the rule is no duplicate
    accepted = invoke("review", rule["id"], "--accept", "-w", str(ws))
    assert accepted.exit_code == 0, accepted.output
    lessons = load_lessons(Workspace(ws), load_config(ws / ".wiki/config.toml"))
    assert [lessons[name].status for name in ("one", "two", "three")] == ["superseded"] * 3


def test_record_rule_takes_one_line_each_for_its_condition_and_action(
    ws: Path, invoke: Invoke
) -> None:
    for name in ("one", "two"):
        lesson(ws, name)
    before = snapshot(ws)
    for option in ("--when", "--then"):
        args = {"--when": "deploying", "--then": "pass --env"} | {option: "a\nstatus: active"}
        given = [part for pair in args.items() for part in pair]
        result = invoke(
            "record-rule", "-w", str(ws), *given, "--evidence", "one", "--evidence", "two"
        )
        assert (result.exit_code, result.stderr) == (2, f"Error: {option} must be one line\n")
    assert snapshot(ws) == before


@pytest.mark.parametrize(
    ("action", "in_review"),
    [
        ("Never use 127.0.0.1 on WSL2; disable IPv6 instead.", True),  # the opposite
        ("Disable IPv6 in .wslconfig so localhost works.", True),  # another action
        ("Use 127.0.0.1 in every config on WSL2.", False),  # the same, worded otherwise
    ],
)
def test_a_new_lesson_that_negates_or_replaces_the_rule_s_action_puts_it_in_review(
    ws: Path, invoke: Invoke, action: str, in_review: bool
) -> None:
    rule = _three_and_a_rule(ws, invoke, then="Use 127.0.0.1 in configs on WSL2.")
    record = [
        "record-lesson", "-w", str(ws), "--title", "Four", "--summary", "S.", "--tag", "wsl2",
        "--tag", "ipv6", "--root-cause", "R.", "--optimization", "O.", "--prevention-rule",
        action, "--json",
    ]  # fmt: skip
    answer = json.loads(invoke(*record).stdout)
    assert answer["rules_in_review"] == ([rule["id"]] if in_review else [])


def test_a_rejected_rule_s_lessons_are_not_proposed_again_within_the_window(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    _on(monkeypatch, "2026-12-01")
    rule = _three_and_a_rule(ws, invoke)
    assert invoke("review", rule["id"], "--reject", "-w", str(ws)).exit_code == 0
    assert _maintain(invoke, ws)["rules"] == []
    _on(monkeypatch, "2026-12-15")  # a review window later
    assert _maintain(invoke, ws)["rules"][0]["lessons"] == ["one", "three", "two"]
