"""`skillwiki hook <client> <event>` on recorded payloads of Claude Code and Codex: the
answer each client expects, one hit per lesson per session, and silence on any failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import DATA, Invoke

CLIENTS = DATA / "clients"
SELECTED = "2026-11-30-channel-op-allowedtools-must-include-telegram-send"
COST = "2026-11-30-stop-a-run-at-twice-its-cost-budget"


def _payload(name: str, cwd: Path, **changes: object) -> str:
    text = (CLIENTS / name).read_text(encoding="utf-8")
    transcript = CLIENTS / "claude-code" / "transcript.jsonl"
    payload = json.loads(text.replace("TRANSCRIPT", str(transcript)).replace("CWD", str(cwd)))
    return json.dumps({**payload, **changes})


def _hook(invoke: Invoke, demo: Path, client: str, event: str, payload: str, *args: str) -> dict:
    result = invoke("hook", client, event, "-w", str(demo), *args, input=payload)
    assert result.exit_code == 0 and result.stderr == "", result.output
    return json.loads(result.stdout) if result.stdout else {}


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact", "fork"])
def test_session_start_gives_the_block_for_every_source(
    demo: Path, invoke: Invoke, source: str
) -> None:
    payload = _payload("claude-code/session-start.json", demo, source=source)
    out = _hook(invoke, demo, "claude-code", "session-start", payload, "--agent", "channel-op")
    context = out["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart"
    assert context["additionalContext"].startswith("## Lessons learned (skillwiki)\nKnown failures")
    assert "Prevention: When creating or changing an agent" in context["additionalContext"]


def test_user_prompt_recalls_for_the_prompt_once_per_session(demo: Path, invoke: Invoke) -> None:
    payload = _payload("claude-code/user-prompt.json", demo)
    out = _hook(invoke, demo, "claude-code", "user-prompt", payload, "--agent", "channel-op")
    context = out["hookSpecificOutput"]["additionalContext"]
    assert context.index("allowedTools") < context.index("cost budget")  # the task ranks
    again = _hook(invoke, demo, "claude-code", "user-prompt", payload, "--agent", "channel-op")
    assert again == {}  # everything was shown in this session already
    other = _payload("claude-code/user-prompt.json", demo, session_id="s-2")
    assert _hook(invoke, demo, "claude-code", "user-prompt", other, "--agent", "channel-op")
    hits = (demo / ".wiki" / ".cache" / "hits.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in hits].count(SELECTED) == 2  # once per session


def test_pre_tool_gives_the_lessons_about_the_edited_file(demo: Path, invoke: Invoke) -> None:
    edit = _payload("claude-code/pre-tool-edit.json", demo)
    out = _hook(invoke, demo, "claude-code", "pre-tool", edit, "--agent", "channel-op")
    context = out["hookSpecificOutput"]
    assert context["hookEventName"] == "PreToolUse"
    assert "allowedTools" in context["additionalContext"]
    assert "cost budget" not in context["additionalContext"]  # not about this file
    elsewhere = json.loads(edit)
    elsewhere["tool_input"]["file_path"] = str(demo / "README.md")
    elsewhere["session_id"] = "s-3"
    assert _hook(invoke, demo, "claude-code", "pre-tool", json.dumps(elsewhere)) == {}
    read = {**json.loads(edit), "tool_name": "Read", "session_id": "s-4"}
    assert _hook(invoke, demo, "claude-code", "pre-tool", json.dumps(read)) == {}


def test_a_failing_session_names_the_lesson_never_records_it(demo: Path, invoke: Invoke) -> None:
    before = sorted((demo / ".wiki" / "raw" / "lessons").iterdir())
    failure = _payload("claude-code/post-tool-use-failure.json", demo)
    out = _hook(invoke, demo, "claude-code", "post-tool-failure", failure)
    context = out["hookSpecificOutput"]
    assert context["hookEventName"] == "PostToolUseFailure"
    assert context["additionalContext"].count("consecutive_tool_failures") == 1  # the title's
    assert "Ask the user" in context["additionalContext"]
    stop = _hook(invoke, demo, "claude-code", "stop", _payload("claude-code/stop.json", demo))
    assert stop["systemMessage"].startswith("skillwiki: this session may hold a lesson")
    assert sorted((demo / ".wiki" / "raw" / "lessons").iterdir()) == before


def test_codex_payloads(demo: Path, invoke: Invoke) -> None:
    start = _hook(
        invoke, demo, "codex", "session-start", _payload("codex/session-start.json", demo)
    )
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    prompt = _hook(invoke, demo, "codex", "user-prompt", _payload("codex/user-prompt.json", demo))
    assert prompt == {}  # the only lesson about cost was shown at session start
    other = _payload("codex/user-prompt.json", demo, session_id="019b")
    assert (
        "cost budget"
        in _hook(invoke, demo, "codex", "user-prompt", other)["hookSpecificOutput"][
            "additionalContext"
        ]
    )


@pytest.mark.parametrize(
    ("client", "event", "stdin"),
    [
        ("claude-code", "session-start", "not json"),
        ("claude-code", "session-start", "[1, 2]"),
        ("claude-code", "no-such-event", "{}"),
        ("no-such-client", "session-start", "{}"),
        ("claude-code", "pre-tool", '{"tool_name": "Edit", "tool_input": {"file_path": 5}}'),
    ],
)
def test_a_hook_fails_safe(demo: Path, invoke: Invoke, client: str, event: str, stdin: str) -> None:
    result = invoke("hook", client, event, "-w", str(demo), input=stdin)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def _run(args: list[str], stdin: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillwiki", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=60,
    )


def test_outside_a_workspace_or_past_the_time_budget_it_is_silent(
    demo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    payload = _payload("claude-code/session-start.json", outside)
    nothing = _run(["hook", "claude-code", "session-start"], payload, outside)
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (0, "", "")
    # $CLAUDE_PROJECT_DIR names the project whatever the current folder.
    found = _run(
        ["hook", "claude-code", "session-start"], payload, outside, CLAUDE_PROJECT_DIR=str(demo)
    )
    assert found.returncode == 0 and "SessionStart" in found.stdout
    late = _run(
        ["hook", "claude-code", "session-start"],
        payload,
        outside,
        CLAUDE_PROJECT_DIR=str(demo),
        SKILLWIKI_HOOK_SECONDS="0.000001",
    )
    assert (late.returncode, late.stdout, late.stderr) == (0, "", "")


def test_cursor_payloads(demo: Path, tmp_path: Path) -> None:
    """Cursor names the project in workspace_roots and the session in conversation_id; it reads
    additional_context at session start, and nothing the hook could add before a prompt."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    start = _run(
        ["hook", "cursor", "session-start"], _payload("cursor/session-start.json", demo), elsewhere
    )
    assert start.returncode == 0
    assert json.loads(start.stdout)["additional_context"].startswith("## Lessons learned")
    prompt = _run(
        ["hook", "cursor", "user-prompt"],
        _payload("cursor/before-submit-prompt.json", demo),
        elsewhere,
    )
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (0, "", "")
    sessions = (demo / ".wiki" / ".cache" / "hook-sessions.log").read_text()
    assert sessions.startswith("c-7f3a ")


def test_the_sessions_log_keeps_its_newest_half(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hook reads the log of what each session was shown: once it outgrows its size it
    keeps its newest whole lines, and what the current session was shown is still known."""
    from skillwiki.memory import hooks
    from skillwiki.workspace import find_workspace

    ws = find_workspace(demo)
    monkeypatch.setattr(hooks, "SESSIONS_BYTES", 2000)
    log = demo / ".wiki" / ".cache" / "hook-sessions.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(f"old-{n:03d} lesson-{n}\n" for n in range(200)))
    hooks._remember_shown(ws, "new-session", ["lesson-a", "lesson-b"])
    kept = log.read_text().splitlines()
    assert len(log.read_bytes()) <= 2000
    assert kept[-2:] == ["new-session lesson-a", "new-session lesson-b"]
    assert all(line.startswith(("old-", "new-session ")) and " lesson-" in line for line in kept)
    assert "old-000 lesson-0" not in kept and "old-199 lesson-199" in kept
    assert hooks._shown_in(ws, "new-session") == {"lesson-a", "lesson-b"}
    hooks._remember_shown(ws, "new-session", ["lesson-c"])  # below the size: only appended
    assert log.read_text().splitlines() == [*kept, "new-session lesson-c"]
