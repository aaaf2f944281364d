"""recall: scoring by hand, budgets, the block's stability, --write byte for byte."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skillwiki.config import load_config
from skillwiki.memory.block import (
    END_MARKER,
    START_MARKER,
    code_ranges,
    inert,
    neutralise_markers,
    write_block,
)
from skillwiki.memory.recall import HEADER, Request, recall
from skillwiki.workspace import Workspace
from tests.support import Invoke, write
from tests.support.lessons import lesson

DAY = date(2026, 11, 30)


def _recall(root: Path, request: Request, scores: dict[str, float] | None = None):
    ws = Workspace(root)
    return recall(ws, load_config(ws.config_file), request, DAY, scores or {})


def test_scores_by_hand(ws: Path) -> None:
    lesson(ws, "a-global-high", severity="HIGH", tags="retry, network")
    lesson(
        ws,
        "b-targeted",
        scope="targeted",
        agents="coder",
        severity="CRITICAL",
        paths="src/app.py=xxh3:0000000000000000",
    )
    lesson(ws, "c-other-agent", scope="targeted", agents="reviewer")
    result = _recall(
        ws,
        Request(agent="coder", tags=("retry", "disk"), paths=("src/",), task="t"),
        {"a-global-high": 0.5},
    )
    by_id = {item.id: item for item in result.lessons}
    # global 0.3 + tags 0.3 * 1/2 + HIGH 0.15 + task 0.5 * 0.5, times confidence 0.5 (no evidence)
    assert by_id["a-global-high"].parts == {
        "scope": 0.3,
        "agent": 0.0,
        "tags": 0.15,
        "paths": 0.0,
        "severity": 0.15,
        "task": 0.25,
        "confidence": 0.5,
    }
    assert by_id["a-global-high"].score == 0.425
    # agent 0.5 + paths 0.4 + CRITICAL 0.2, times 0.5
    assert by_id["b-targeted"].score == 0.55
    assert by_id["c-other-agent"].included is False
    assert by_id["c-other-agent"].reason == "targeted at other agents (reviewer)"
    assert result.included == ["b-targeted", "a-global-high"]
    assert result.block == (
        HEADER
        + "\n- [CRITICAL] B Targeted\n  Prevention: Do the right thing.\n"
        + "\n- [HIGH] A Global High\n  Prevention: Do the right thing.\n"
    )


def test_never_recalled_unless_active(ws: Path) -> None:
    for status in ("candidate", "archived", "superseded"):
        lesson(ws, f"x-{status}", status=status, severity="CRITICAL")
    result = _recall(ws, Request())
    assert result.block == ""
    assert {item.reason for item in result.lessons} == {
        "status candidate: only active lessons are recalled",
        "status archived: only active lessons are recalled",
        "status superseded: only active lessons are recalled",
    }


def test_budget_drops_whole_entries_and_counts_characters(ws: Path) -> None:
    lesson(ws, "a-first", severity="HIGH", rule="重试之前先检查权限。" * 3)
    lesson(ws, "b-second", severity="MEDIUM", rule="Short rule.")
    first = "\n- [HIGH] A First\n  Prevention: " + "重试之前先检查权限。" * 3 + "\n"
    second = "\n- [MEDIUM] B Second\n  Prevention: Short rule.\n"
    exact = len(HEADER) + len(first) + len(second)
    assert _recall(ws, Request(budget=exact)).block == HEADER + first + second
    # One character less: the first entry no longer fits with the second, so the lower one is dropped.
    tight = _recall(ws, Request(budget=exact - 1))
    assert tight.block == HEADER + first
    assert len(tight.block) <= exact - 1
    # Too small for the first: it is skipped whole, and the next one that fits is taken.
    small = _recall(ws, Request(budget=len(HEADER) + len(second)))
    assert small.block == HEADER + second
    assert [i.reason for i in small.lessons if not i.included] == [
        f"would not fit in the budget of {len(HEADER) + len(second)} characters"
    ]


def test_max_entries(ws: Path) -> None:
    for n in range(7):
        lesson(ws, f"l-{n}")
    (ws / ".wiki" / "config.toml").write_text("[recall]\nmax_entries = 3\n")
    result = _recall(ws, Request())
    assert result.included == ["l-0", "l-1", "l-2"]
    assert {i.reason for i in result.lessons if not i.included} == {"beyond recall.max_entries (3)"}


def test_low_confidence_lessons_stop_being_recalled(ws: Path) -> None:
    def failures(count: int) -> str:
        return "\n## Evidence\n\n" + "- 2026-11-30 failed-again\n" * count

    lesson(ws, "a-muted", severity="CRITICAL", evidence=failures(4))  # 1 / (4 + 2) = 0.17
    lesson(ws, "b-at-the-limit", evidence=failures(3))  # 1 / (3 + 2) = 0.2: not below it
    lesson(ws, "c-too-little-evidence", evidence=failures(2))
    result = {item.id: item for item in _recall(ws, Request()).lessons}
    assert result["a-muted"].included is False
    assert result["a-muted"].reason == (
        "low confidence 0.17 after 4 pieces of evidence (recall.min_confidence 0.2)"
    )
    assert result["b-at-the-limit"].included is True
    assert result["c-too-little-evidence"].included is True


def test_cli_json_trace_and_hits(demo: Path, invoke: Invoke) -> None:
    result = invoke(
        "recall",
        "-w",
        str(demo),
        "--agent",
        "channel-op",
        "--task",
        "send digest to telegram",
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert list(out) == ["block", "lessons"]
    first = out["lessons"][0]
    assert first["id"] == "2026-11-30-channel-op-allowedtools-must-include-telegram-send"
    assert (
        first["included"] is True and first["parts"]["agent"] == 0.5 and first["parts"]["task"] > 0
    )
    assert "Prevention: When creating or changing an agent" in out["block"]
    hits = (demo / ".wiki" / ".cache" / "hits.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in hits].count(first["id"]) == 1
    traced = invoke("recall", "-w", str(demo), "--agent", "channel-op", "--trace")
    assert traced.stdout.startswith(HEADER)
    assert "scope=" in traced.stderr and "confidence=0.5" in traced.stderr
    again = invoke("recall", "-w", str(demo), "--agent", "channel-op", "--trace")
    assert again.stdout == traced.stdout  # the same inputs give the same block


def test_cli_warns_of_a_lesson_that_cannot_be_compiled(demo: Path, invoke: Invoke) -> None:
    """A lesson file that cannot be compiled is not recalled; recall says so, as query does."""
    write(demo / ".wiki" / "raw" / "lessons" / "broken.md", "---\nid: [unclosed\n---\n# B\n")
    result = invoke("recall", "-w", str(demo), "--agent", "channel-op", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["lessons"]  # the others are recalled as before
    assert result.stderr.startswith(
        "Warning: .wiki/raw/lessons/broken.md: unparsable YAML frontmatter"
    )
    assert result.stderr.endswith("(not compiled)\n")


def test_write_adds_markers_then_replaces_between_them(demo: Path, invoke: Invoke) -> None:
    agents = demo / "AGENTS.md"
    agents.write_bytes(b"# Agents\r\n\r\nKeep this line.  \r\n")
    written = invoke("recall", "-w", str(demo), "--write", str(agents))
    assert written.exit_code == 0
    assert written.stderr.startswith(f"updated {agents} (") and written.stderr.endswith(
        " lesson(s))\n"
    )
    text = agents.read_bytes()
    assert text.startswith(  # the file's lines end in CRLF: the block's do too
        b"# Agents\r\n\r\nKeep this line.  \r\n\r\n" + START_MARKER.encode() + b"\r\n## Lessons"
    )
    assert text.endswith(END_MARKER.encode() + b"\r\n")
    assert text.count(b"\n") == text.count(b"\r\n") > 6
    agents.write_bytes(text + b"\r\nA line after the block.\r\n")
    before = agents.read_bytes()
    invoke("recall", "-w", str(demo), "--write", str(agents))
    assert agents.read_bytes() == before  # idempotent
    invoke("recall", "-w", str(demo), "--budget", "200", "--write", str(agents))
    after = agents.read_bytes()
    assert after.endswith(END_MARKER.encode() + b"\r\n\r\nA line after the block.\r\n")
    assert after.startswith(b"# Agents\r\n\r\nKeep this line.  \r\n\r\n" + START_MARKER.encode())
    assert after.count(b"\n") == after.count(b"\r\n")
    lf = demo / "CLAUDE.md"
    lf.write_bytes(b"# Claude\n\nKeep.\r\n")  # a first line ending in LF: LF
    invoke("recall", "-w", str(demo), "--write", str(lf))
    assert lf.read_bytes().startswith(b"# Claude\n\nKeep.\r\n\n" + START_MARKER.encode() + b"\n")


def test_write_keeps_cursor_rule_frontmatter_valid(demo: Path, invoke: Invoke) -> None:
    import yaml

    rule = demo / ".cursor" / "rules" / "lessons.mdc"
    write(
        rule,
        "---\ndescription: Lessons from past failures\nalwaysApply: true\n---\n\nRead these first.\n",
    )
    invoke("recall", "-w", str(demo), "--write", str(rule))
    text = rule.read_text()
    front = text.split("---\n")[1]
    assert yaml.safe_load(front) == {
        "description": "Lessons from past failures",
        "alwaysApply": True,
    }
    assert START_MARKER in text and "Prevention:" in text


text_pieces = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(before=text_pieces, after=text_pieces, block=text_pieces, old=text_pieces)
def test_write_block_preserves_every_byte_outside_the_markers(
    tmp_path: Path, before: str, after: str, block: str, old: str
) -> None:
    before = before.replace(START_MARKER, "").replace(END_MARKER, "")
    after = after.replace(START_MARKER, "").replace(END_MARKER, "")
    old = old.replace(START_MARKER, "").replace(END_MARKER, "")
    block = neutralise_markers(inert(block))  # the block's controls are written escaped
    target = tmp_path / "AGENTS.md"
    data = f"{before}{START_MARKER}{old}{END_MARKER}{after}".encode()
    # Markers that CommonMark reads as code (after a tab or an open fence) are the file's own
    # text, left alone by design: another test covers those.
    assume(not any(first <= len(before.encode()) < last for first, last in code_ranges(data)))
    target.write_bytes(data)
    write_block(target, block)
    assert target.read_bytes() == f"{before}{START_MARKER}\n{block}{END_MARKER}{after}".encode()
    write_block(target, block)
    assert target.read_bytes() == f"{before}{START_MARKER}\n{block}{END_MARKER}{after}".encode()


MARKER_FILES = {  # what a user's AGENTS.md may say of the markers itself
    "start mentioned in prose": f"# Agents\n\nThe block goes after `{START_MARKER}`.\nMine 1.\n",
    "start alone on a line": f"# Agents\n\n{START_MARKER}\nMine 1.\nMine 2.\n",
    "end mentioned first": f"# Agents\n\nIt ends at `{END_MARKER}`.\nMine 1.\n",
    "both mentioned, reversed": f"Ends `{END_MARKER}`, starts `{START_MARKER}`.\nMine 1.\n",
}


@pytest.mark.parametrize("case", MARKER_FILES, ids=str)
def test_markers_the_user_wrote_never_cost_a_line(tmp_path: Path, case: str) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text(MARKER_FILES[case], encoding="utf-8")
    for number in range(3):
        write_block(target, f"## Lessons\n\n- rule {number}\n")
        with target.open("a", encoding="utf-8") as handle:
            handle.write(f"Added after write {number}.\n")
    text = target.read_text(encoding="utf-8")
    assert text.startswith(MARKER_FILES[case])  # every byte of the user's text, in place
    for number in range(3):
        assert f"Added after write {number}.\n" in text
    assert text.count("- rule") == 1 and "- rule 2\n" in text  # one block, the newest


def test_a_lesson_quoting_a_marker_cannot_grow_the_file(tmp_path: Path) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text("# Agents\n", encoding="utf-8")
    quoting = f"## Lessons\n\n- never write {END_MARKER} or {START_MARKER} by hand\n"
    write_block(target, quoting)
    once = target.read_bytes()
    for _ in range(3):
        write_block(target, quoting)
    assert target.read_bytes() == once
    write_block(target, "## Lessons\n\n- another rule\n")  # the lesson was rejected
    text = target.read_text(encoding="utf-8")
    assert "by hand" not in text and text.count(END_MARKER) == 1


def test_a_line_appended_while_the_block_is_written_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillwiki import fsio

    target = tmp_path / "AGENTS.md"
    target.write_text("# Agents\n", encoding="utf-8")
    real = fsio.write_temp
    appended: list[bool] = []

    def racing(path: Path, data: bytes, *, sync: bool) -> tuple[Path, tuple[int, int, int, int]]:
        temp = real(path, data, sync=sync)
        if not appended:  # someone appends between our read and our rename
            with target.open("a", encoding="utf-8") as handle:
                handle.write("Appended meanwhile.\n")
            appended.append(True)
        return temp

    monkeypatch.setattr(fsio, "write_temp", racing)
    assert write_block(target, "## Lessons\n\n- rule\n")
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Agents\nAppended meanwhile.\n") and "- rule\n" in text


def test_markers_shown_in_code_are_not_markers(tmp_path: Path) -> None:
    """A file that documents the markers in a code block keeps that code as it is."""
    doc = tmp_path / "AGENTS.md"
    shown = f"```markdown\n{START_MARKER}\nexample\n{END_MARKER}\n```\n\n    {START_MARKER}\n    {END_MARKER}\n"
    doc.write_text("# Agents\n\n" + shown)
    assert write_block(doc, HEADER + "\n- [HIGH] one\n  Prevention: two\n")
    text = doc.read_text()
    assert text.startswith("# Agents\n\n" + shown + "\n" + START_MARKER + "\n" + HEADER)
    assert text.count(START_MARKER) == 3
    write_block(doc, HEADER)  # the real block, after the code, is the one replaced
    assert (
        doc.read_text()
        == "# Agents\n\n" + shown + "\n" + START_MARKER + "\n" + HEADER + END_MARKER + "\n"
    )


@pytest.mark.parametrize(
    ("rel", "args", "front"),
    [
        (
            ".cursor/rules/lessons.mdc",
            [],
            "---\ndescription: Known failures in this repository, from skillwiki recall\n"
            "alwaysApply: true\n---\n",
        ),
        (
            ".cursor/rules/deploy.mdc",
            ["--path", "deploy/**", "--path", "ci/*.yml"],
            "---\ndescription: Known failures in this repository, from skillwiki recall\n"
            "globs: deploy/**,ci/*.yml\n---\n",
        ),
        (".claude/rules/deploy.md", ["--path", "deploy/**"], '---\npaths: ["deploy/**"]\n---\n'),
        (".claude/rules/all.md", [], ""),
        ("AGENTS.md", ["--path", "deploy/**"], ""),
    ],
)
def test_a_new_rule_file_gets_its_clients_frontmatter(
    demo: Path, invoke: Invoke, rel: str, args: list[str], front: str
) -> None:
    import yaml

    target = demo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    result = invoke(
        "recall", "-w", str(demo), "--agent", "channel-op", *args, "--write", str(target)
    )
    assert result.exit_code == 0, result.output
    text = target.read_text()
    assert text.startswith(front + ("\n" if front else "") + START_MARKER)
    if front:
        meta = yaml.safe_load(front.strip().strip("-"))
        assert isinstance(meta, dict) and meta
