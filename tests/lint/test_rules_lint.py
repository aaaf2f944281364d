"""Lint and rules (`kind: rule` in raw/lessons/): SW014 on a rule's evidence, SW007 on a rule's
condition, action and status (and a lesson's status), and no false finding on a rule that is
well formed, from SW009 (a rule shares its lessons' tags) or any other rule."""

from __future__ import annotations

import json
from pathlib import Path

from skillwiki.fingerprint import fingerprint
from tests.support import Invoke, write

LESSON = """---
type: lesson
id: {id}
title: {title}
summary: S.
trigger: manual
severity: HIGH
scope: global
tags: [{tags}]
category: agent-config
prevention_rule: Check allowedTools.
{extra}status: {status}
created: 2026-11-30
---
## What Happened

X

## Root Cause

Y

## Optimization

Z

## Next Time

- W
"""

RULE_BODY = """## Rule

When channel-op changes allowedTools: check that allowedTools covers every MCP tool.

## From Lessons

- a-lesson: A lesson

## Evidence

- 2026-12-06 helped
"""


def _lessons(root: Path) -> Path:
    return root / ".wiki" / "raw" / "lessons"


def _lesson(
    root: Path,
    name: str,
    *,
    status: str = "active",
    superseded_by: str | None = None,
    tags: str = "allowedTools, mcp-tools, telegram_send",
    extra: str = "",
) -> None:
    if superseded_by is not None:
        extra += f"superseded_by: {superseded_by}\n"
    text = LESSON.format(id=name, title=name.title(), tags=tags, status=status, extra=extra)
    write(_lessons(root) / f"{name}.md", text)


def _rule(root: Path, name: str, body: str = RULE_BODY, **fields: str | None) -> Path:
    """A rule as record-rule writes it; a field given replaces the written value of its key,
    None leaves the key out."""
    keys: dict[str, str | None] = {
        "type": "lesson",
        "kind": "rule",
        "id": name,
        "title": f"Rule {name}",
        "summary": "Consolidated from 2 lessons.",
        "when": "channel-op changes allowedTools (tags allowedTools, mcp-tools)",
        "then": "check that allowedTools covers every MCP tool the prompt asks for",
        "evidence": "[a-lesson, b-lesson]",
        "severity": "HIGH",
        "scope": "global",
        "tags": "[allowedTools, mcp-tools]",
        "category": "agent-config",
        "status": "active",
        "confidence": "0.79",
        "support": "3",
        "confidence_on": "2026-12-05",
        "created": "2026-12-05",
    }
    keys.update(fields)
    lines = [f"{key}: {value}" for key, value in keys.items() if value is not None]
    return write(_lessons(root) / f"{name}.md", "---\n" + "\n".join(lines) + "\n---\n" + body)


def _line(path: Path, start: str) -> int:
    """The 1-based number of the first line of a file that starts with `start`."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, start=1) if line.startswith(start))


def _lint(invoke: Invoke, root: Path, *args: str) -> dict:
    result = invoke("lint", "-w", str(root), "--format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _found(invoke: Invoke, root: Path, rule: str) -> list[tuple[str, int, str, str]]:
    return [
        (f["path"].rsplit("/", 1)[-1], f["line"], f["severity"], f["message"])
        for f in _lint(invoke, root)["findings"]
        if f["rule"] == rule
    ]


def test_well_formed_rules_with_live_evidence_give_no_finding(ws: Path, invoke: Invoke) -> None:
    """An accepted rule whose lessons it supersedes, tied to a file like them; a candidate
    rule whose lessons are still active and share its tags (SW009 would have called the rule
    and the first lesson near-duplicates: 2 of 3 tags, over the 0.6 threshold)."""
    data = write(ws / "agents" / "channel-op.json", '{"allowedTools": ["telegram_send"]}\n')
    paths = f"paths: [agents/channel-op.json={fingerprint(data.read_bytes())}]\n"
    accepted = "2026-12-05-rule-accepted"
    _lesson(ws, "a-lesson", status="superseded", superseded_by=accepted, extra=paths)
    _lesson(ws, "b-lesson", status="superseded", superseded_by=accepted, extra=paths)
    _rule(ws, accepted, paths=paths.split(": ", 1)[1].strip())
    _lesson(ws, "c-lesson", tags="allowedTools, mcp-tools, telegram_send")
    _lesson(ws, "d-lesson", tags="allowedTools, mcp-tools, x_post")  # 2 of 4 with c: 0.5
    _rule(ws, "2026-12-06-rule-candidate", evidence="[c-lesson, d-lesson]", status="candidate")
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    findings = _lint(invoke, ws)["findings"]
    # SW006 is left aside: it still asks a rule, like any `type: lesson` file, for a trigger.
    assert [f for f in findings if f["rule"] != "SW006"] == []
    # The rule checks did look: a changed file is reported on the rule as on its lessons.
    data.write_text('{"allowedTools": []}\n')
    changed = sorted(name for name, *_ in _found(invoke, ws, "SW013"))
    assert changed == [f"{accepted}.md", "a-lesson.md", "b-lesson.md"]


def test_sw014_a_rule_without_evidence(ws: Path, invoke: Invoke) -> None:
    _lesson(ws, "a-lesson")
    _rule(ws, "r-absent", evidence=None)
    empty = _rule(ws, "r-empty", evidence="[]")
    scalar = _rule(ws, "r-scalar", evidence="a-lesson")
    numbers = _rule(ws, "r-numbers", evidence="[a-lesson, 12]")
    blank = _rule(ws, "r-blank", evidence="['a-lesson', '  ']")
    none = (
        "rule without evidence; list in `evidence:` the ids of the lessons it was consolidated from"
    )
    not_ids = "`evidence:` must be a list of lesson ids"
    assert _found(invoke, ws, "SW014") == [
        ("r-absent.md", 1, "error", none),
        ("r-blank.md", _line(blank, "evidence:"), "error", not_ids),
        ("r-empty.md", _line(empty, "evidence:"), "error", none),
        ("r-numbers.md", _line(numbers, "evidence:"), "error", not_ids),
        ("r-scalar.md", _line(scalar, "evidence:"), "error", not_ids),
    ]
    assert _line(empty, "evidence:") == 9


def test_sw014_evidence_that_names_no_lesson_or_a_rule(ws: Path, invoke: Invoke) -> None:
    _lesson(ws, "a-lesson")
    _lesson(ws, "b-lesson")
    write(_lessons(ws) / "notes.md", "---\ntype: document\ntitle: Notes\n---\nText.\n")
    # Candidates: their lessons are active until they are accepted.
    wanting = "candidate"
    gone = _rule(
        ws, "r-gone", evidence="[a-lesson, no-such-lesson, ../b-lesson, notes]", status=wanting
    )
    on_rule = _rule(ws, "r-on-rule", evidence="[a-lesson, r-gone, r-on-rule]", status=wanting)
    _rule(ws, "r-fine", evidence="[a-lesson, b-lesson]", status=wanting)
    line = _line(gone, "evidence:")
    assert _line(on_rule, "evidence:") == line == 9
    a_rule = "is a rule, not a lesson; a rule's evidence is the lessons it was consolidated from"
    # Sorted as lint sorts: by path, line, then message.
    assert _found(invoke, ws, "SW014") == [
        ("r-gone.md", line, "error", "evidence '../b-lesson' names no lesson in raw/lessons/"),
        ("r-gone.md", line, "error", "evidence 'no-such-lesson' names no lesson in raw/lessons/"),
        ("r-gone.md", line, "error", "evidence 'notes' names no lesson in raw/lessons/"),
        ("r-on-rule.md", line, "error", f"evidence 'r-gone' {a_rule}"),
        ("r-on-rule.md", line, "error", f"evidence 'r-on-rule' {a_rule}"),
    ]


def test_sw014_a_rule_whose_lessons_are_all_retired(ws: Path, invoke: Invoke) -> None:
    _lesson(ws, "archived", status="archived")
    _lesson(ws, "by-other", status="superseded", superseded_by="newer-lesson")
    _lesson(ws, "by-nothing", status="superseded")
    _lesson(ws, "by-this", status="superseded", superseded_by="r-kept")
    _lesson(ws, "candidate", status="candidate")
    stale = _rule(ws, "r-stale", evidence="[archived, by-other, by-nothing]")
    _rule(ws, "r-kept", evidence="[archived, by-this]")  # one lesson still vouches: its own
    _rule(ws, "r-young", evidence="[archived, candidate]")
    _rule(ws, "r-retired", evidence="[archived, by-other]", status="retired")
    # Evidence that names no lesson is reported as such, not as retired.
    _rule(ws, "r-partly-gone", evidence="[archived, gone]")
    assert _found(invoke, ws, "SW014") == [
        (
            "r-partly-gone.md",
            9,
            "error",
            "evidence 'gone' names no lesson in raw/lessons/",
        ),
        (
            "r-stale.md",
            _line(stale, "evidence:"),
            "warning",
            "its lessons are all retired; retire the rule or give it live evidence",
        ),
    ]


def test_sw014_findings_in_other_formats_and_a_baseline(
    ws: Path, invoke: Invoke, tmp_path: Path
) -> None:
    _lesson(ws, "a-lesson")
    rule = _rule(ws, "r-gone", evidence="[a-lesson, no-such-lesson]", status="candidate")
    line = _line(rule, "evidence:")
    github = invoke("lint", "-w", str(ws), "--format", "github")
    assert (
        f"::error file=.wiki/raw/lessons/r-gone.md,line={line},col=1,title=SW014::"
        "evidence 'no-such-lesson' names no lesson in raw/lessons/"
    ) in github.stdout.splitlines()
    sarif = json.loads(invoke("lint", "-w", str(ws), "--format", "sarif").stdout)
    described = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "SW014" in described
    assert "SW014" in {result["ruleId"] for result in sarif["runs"][0]["results"]}

    baseline = tmp_path / "baseline.json"
    assert invoke("lint", "-w", str(ws), "--write-baseline", str(baseline)).exit_code == 0
    entries = json.loads(baseline.read_text())["findings"]
    assert ("SW014", ".wiki/raw/lessons/r-gone.md") in {(e["rule"], e["path"]) for e in entries}
    hidden = _lint(invoke, ws, "--baseline", str(baseline))
    assert [f for f in hidden["findings"] if f["rule"] == "SW014"] == []
    assert hidden["summary"]["baselined"] == len(entries)
    # Another missing lesson changes the line: the new finding is no longer hidden.
    rule.write_text(rule.read_text().replace("no-such-lesson", "other-gone"))
    shown = _lint(invoke, ws, "--baseline", str(baseline))
    assert [(f["rule"], f["line"]) for f in shown["findings"] if f["rule"] == "SW014"] == [
        ("SW014", line)
    ]


def test_sw007_a_rule_needs_one_line_when_and_then_and_a_rule_status(
    ws: Path, invoke: Invoke
) -> None:
    _lesson(ws, "a-lesson")
    _lesson(ws, "b-lesson")
    missing = _rule(ws, "r-missing", when="''", then=None)
    multi = _rule(ws, "r-multi", when="|\n  first line\n  second line", then="[a, b]")
    archived = _rule(ws, "r-archived", status="archived")
    _rule(ws, "r-reviewing", status="reviewing")  # no lesson sections asked of a rule
    assert _found(invoke, ws, "SW007") == [
        (
            "r-archived.md",
            _line(archived, "status:"),
            "error",
            "unknown rule status 'archived'; use one of candidate, active, reviewing, retired",
        ),
        (
            "r-missing.md",
            1,  # where the absent key would be: the file's first line
            "error",
            "rule key 'then' is missing or empty; a rule has a condition (when) and an action (then), one line each",
        ),
        (
            "r-missing.md",
            _line(missing, "when:"),
            "error",
            "rule key 'when' is missing or empty; a rule has a condition (when) and an action (then), one line each",
        ),
        ("r-multi.md", _line(multi, "when:"), "error", "rule key 'when' must be one line of text"),
        ("r-multi.md", _line(multi, "then:"), "error", "rule key 'then' must be one line of text"),
    ]


def test_sw007_a_lesson_status_and_an_unknown_kind(ws: Path, invoke: Invoke) -> None:
    _lesson(ws, "retired-lesson", status="retired")
    _lesson(ws, "reviewing-lesson", status="reviewing")
    _lesson(ws, "said-lesson", extra="kind: lesson\n", status="superseded")
    _lesson(ws, "recipe", extra="kind: recipe\n", status="active")
    _lesson(ws, "odd-status", extra="kind: recipe\n", status="paused")
    # A file of an unknown kind is held to neither a lesson's sections nor a rule's keys.
    write(_lessons(ws) / "bare.md", "---\ntype: lesson\nid: bare\nkind: [rule]\n---\nText.\n")
    lesson = _lessons(ws) / "retired-lesson.md"
    kind, status = _line(lesson, "prevention_rule:") + 1, _line(lesson, "status:")
    lesson_statuses = "use one of candidate, active, archived, superseded"
    kinds = "use one of lesson, rule"
    assert _found(invoke, ws, "SW007") == [
        ("bare.md", 4, "error", f"unknown kind ['rule']; {kinds}"),
        ("odd-status.md", kind, "error", f"unknown kind 'recipe'; {kinds}"),
        (
            "odd-status.md",
            status + 1,
            "error",
            "unknown status 'paused'; use one of candidate, active, archived, superseded, "
            "reviewing, retired",
        ),
        ("recipe.md", kind, "error", f"unknown kind 'recipe'; {kinds}"),
        (
            "retired-lesson.md",
            status,
            "error",
            f"unknown lesson status 'retired'; {lesson_statuses}",
        ),
        (
            "reviewing-lesson.md",
            status,
            "error",
            f"unknown lesson status 'reviewing'; {lesson_statuses}",
        ),
    ]


def test_sw014_a_recalled_rule_whose_lesson_is_still_active(ws: Path, invoke: Invoke) -> None:
    """A hand edit that makes a rule's lesson active again: recall shows the rule in its
    place, so lint says the lesson should be superseded by it."""
    from tests.support.lessons import lesson

    for name in ("one", "two"):
        lesson(ws, name, tags="wsl2")
    made = invoke(
        "record-rule", "-w", str(ws), "--when", "on WSL2", "--then", "use 127.0.0.1",
        "--evidence", "one", "--evidence", "two", "--json",
    )  # fmt: skip
    rule_id = json.loads(made.stdout)["id"]
    one = ws / ".wiki/raw/lessons/one.md"
    one.write_text(one.read_text().replace("status: superseded", "status: active"))
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    found = json.loads(invoke("lint", "-w", str(ws), "--format", "json").stdout)["findings"]
    assert [(f["rule"], f["severity"], f["path"], f["message"]) for f in found] == [
        (
            "SW014",
            "warning",
            f".wiki/raw/lessons/{rule_id}.md",
            "evidence 'one' is still active: recall shows the rule in its place; mark it "
            "superseded by the rule",
        )
    ]
