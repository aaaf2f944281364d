"""`skillwiki hook <client> <event>` on recorded payloads of Claude Code and Codex: the
answer each client expects, one hit per lesson per session, and silence on any failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support import DATA, Invoke, snapshot

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
        ("claude-code", "pre-tool", '{"tool_name": "Edit", "tool_input": {"file_path": 5}}'),
    ],
)
def test_a_hook_fails_safe(demo: Path, invoke: Invoke, client: str, event: str, stdin: str) -> None:
    result = invoke("hook", client, event, "-w", str(demo), input=stdin)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize(("client", "event"), [("claude-code", "nope"), ("Claude-Code", "stop")])
def test_a_hook_the_command_does_not_know_is_said_on_stderr(
    demo: Path, invoke: Invoke, client: str, event: str
) -> None:
    """A typo in a client's settings is one line on stderr, and still exit 0: a client may
    read another status as "block this tool call"."""
    result = invoke("hook", client, event, "-w", str(demo), input="{}")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        f"Warning: no hook {client} {event}: the clients are claude-code, codex, cursor, the "
        "events session-start, user-prompt, pre-tool, post-tool-failure, stop\n"
    )


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
    from skillwiki.hooks import sessions
    from skillwiki.workspace import find_workspace

    ws = find_workspace(demo)
    monkeypatch.setattr(sessions, "SESSIONS_BYTES", 2000)
    log = demo / ".wiki" / ".cache" / "hook-sessions.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(f"old-{n:03d} lesson-{n}\n" for n in range(200)))
    assert sessions.claim(ws, "new-session", ["lesson-a", "lesson-b"]) == ["lesson-a", "lesson-b"]
    kept = log.read_text().splitlines()
    assert len(log.read_bytes()) <= 2000
    assert [line.partition("\t")[0] for line in kept[-2:]] == [
        "new-session lesson-a",
        "new-session lesson-b",
    ]
    assert all(line.startswith(("old-", "new-session ")) and " lesson-" in line for line in kept)
    assert "old-000 lesson-0" not in kept and "old-199 lesson-199" in kept
    assert sessions.shown_in(ws, "new-session") == {"lesson-a", "lesson-b"}
    assert sessions.claim(ws, "new-session", ["lesson-c"]) == ["lesson-c"]  # only appended
    assert log.read_text().splitlines()[:-1] == kept
    assert sessions.claim(ws, "new-session", ["lesson-a"]) == []  # claimed before: not again


def test_a_fresh_clone_is_answered_from_the_lessons_alone(demo: Path, invoke: Invoke) -> None:
    """A clone has no .wiki/.cache (it is not in git): the hooks answer from the lessons in
    raw/, the prompt scored against the lessons alone, without building the wiki's search
    index (longer than a hook's budget on a large wiki) and without compiling anything."""
    from skillwiki.search import index_path
    from skillwiki.workspace import find_workspace

    (demo / ".wiki" / "raw" / "docs").mkdir(parents=True, exist_ok=True)
    (demo / ".wiki" / "raw" / "docs" / "new.md").write_text("# New\n\nNever compiled.\n")
    before = snapshot(demo)
    start = _payload("claude-code/session-start.json", demo)
    prompt = _payload("claude-code/user-prompt.json", demo, session_id="s-2")
    edit = _payload("claude-code/pre-tool-edit.json", demo, session_id="s-3")
    answers = [
        _hook(invoke, demo, "claude-code", event, payload, "--agent", "channel-op")
        for event, payload in (
            ("session-start", start),
            ("user-prompt", prompt),
            ("pre-tool", edit),
        )
    ]
    blocks = [answer["hookSpecificOutput"]["additionalContext"] for answer in answers]
    assert all("Prevention: When creating or changing an agent" in block for block in blocks)
    assert blocks[1].index("allowedTools") < blocks[1].index("cost budget")  # the task ranks
    assert snapshot(demo) == before  # nothing compiled, no article written
    assert not index_path(find_workspace(demo)).exists()


def _bounded(
    args: list[str], stdin: bytes, cwd: Path, *, close: bool = True, **env: str
) -> tuple[int, str, str, float]:
    """Run the command line in a process of its own, as a client runs a hook; `close` off:
    the payload is written and stdin left open, as by a client that never closes it."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillwiki", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, **env},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(60, proc.kill)  # a hook that hangs fails the test, not the run
    watchdog.start()
    try:
        proc.stdin.write(stdin)  # a hook that stopped reading early would break this pipe
        proc.stdin.flush()
        if close:
            proc.stdin.close()
        out, err = proc.stdout.read(), proc.stderr.read()  # to their end: the process ended
        status = proc.wait()
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    return status, out.decode(), err.decode(), time.monotonic() - started


@pytest.mark.parametrize(("value", "said"), [("1", ""), ("0", "Warning: ")])
def test_the_budget_bounds_a_client_that_never_closes_stdin(
    demo: Path, value: str, said: str
) -> None:
    """0 lifted the limit: a client that never closed stdin waited for ever. Now it is said,
    and the default 5 s holds."""
    payload = _payload("claude-code/session-start.json", demo).encode()
    status, out, err, _ = _bounded(
        ["hook", "claude-code", "session-start"],
        payload,
        demo,
        close=False,
        SKILLWIKI_HOOK_SECONDS=value,
    )
    assert (status, out, err[: len(said)]) == (0, "", said)


@pytest.mark.parametrize("value", ["0", "-1", "abc", "nan", "inf", "601", "1e400"])
def test_a_budget_out_of_range_is_said_and_the_default_holds(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """0 or -1 must not lift the limit and a typo must not turn every hook off: one line on
    stderr, and the default 5 s."""
    monkeypatch.setenv("SKILLWIKI_HOOK_SECONDS", value)
    payload = _payload("claude-code/session-start.json", demo)
    result = invoke("hook", "claude-code", "session-start", "-w", str(demo), input=payload)
    assert result.exit_code == 0
    assert result.stderr == (
        f"Warning: SKILLWIKI_HOOK_SECONDS={value!r} is not a number of seconds above 0 and "
        "at most 600; using 5\n"
    )
    assert "Lessons learned" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


# Every module the command line imports once started is found this much later, as on a slow
# disk: the budget must be running before the first of them.
_SLOW_IMPORTS = """
import signal, sys, time

SLOW = sys.argv[-1] == "slow"

class Slow:
    def find_spec(self, name, path=None, target=None):
        if name == "skillwiki.hooks":
            armed = signal.getitimer(signal.ITIMER_REAL)[0] > 0
            sys.stderr.write(f"armed before the hooks: {armed}\\n")
        if SLOW:
            time.sleep(0.1)
        return None

sys.meta_path.insert(0, Slow())
sys.argv = ["skillwiki", *sys.argv[1:-1]]
from skillwiki.cli import main
main()
"""


def test_the_budget_is_armed_before_the_command_line_is_imported(demo: Path) -> None:
    payload = _payload("claude-code/session-start.json", demo)
    args = [sys.executable, "-c", _SLOW_IMPORTS, "hook", "claude-code", "session-start"]
    quick = subprocess.run(
        [*args, "-"], input=payload, capture_output=True, text=True, cwd=demo, timeout=60
    )
    assert quick.stderr == "armed before the hooks: True\n"
    assert "SessionStart" in quick.stdout
    # ~170 modules, 0.1 s each: 17 s and more of imports, cut at the budget.
    started = time.monotonic()
    slow = subprocess.run(
        [*args, "slow"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=demo,
        timeout=60,
        env={**os.environ, "SKILLWIKI_HOOK_SECONDS": "1"},
    )
    assert (slow.returncode, slow.stdout) == (0, "")
    assert time.monotonic() - started < 10


def test_a_payload_is_read_whole_however_large(demo: Path) -> None:
    """A Write of a 5 MiB file is answered (the payload was cut at 4 MiB, unreadable, and the
    client's write hit a closed pipe); past 64 MiB it is read to its end and not answered,
    not even by an event that needs nothing of it."""
    write = json.loads(_payload("claude-code/pre-tool-edit.json", demo))
    write["tool_name"] = "Write"
    write["tool_input"] = {
        "file_path": str(demo / "agents/channel-op.json"),
        "content": "x" * (5 << 20),
    }
    start = json.loads(_payload("claude-code/session-start.json", demo))
    start["padding"] = "x" * (65 << 20)
    for event, payload, answered in (("pre-tool", write, True), ("session-start", start, False)):
        status, out, _, _ = _bounded(
            ["hook", "claude-code", event, "--agent", "channel-op"],
            json.dumps(payload).encode(),
            demo,
            SKILLWIKI_HOOK_SECONDS="30",
        )
        assert status == 0
        assert ("allowedTools" in out) is answered


def test_a_due_lesson_is_named_once_a_session_and_not_once_recorded(
    demo: Path, invoke: Invoke
) -> None:
    """Claude Code's Stop comes at the end of every turn: the same proposal is not made again
    in that session; and once the lesson is recorded, no session is told of it again."""
    stop = _payload("claude-code/stop.json", demo)
    first = _hook(invoke, demo, "claude-code", "stop", stop)
    assert first["systemMessage"].startswith("skillwiki: this session may hold a lesson")
    assert _hook(invoke, demo, "claude-code", "stop", stop) == {}
    proposal = json.loads(invoke("suggest", "-w", str(demo), "-", input=stop).stdout)
    recorded = invoke(*proposal["command"][1:], "-w", str(demo))
    assert recorded.exit_code == 0, recorded.output
    later = _payload("claude-code/stop.json", demo, session_id="s-later")
    assert _hook(invoke, demo, "claude-code", "stop", later) == {}
