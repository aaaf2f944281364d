"""The hooks on payloads written from each client's own documentation (tests/data/clients/,
README.md there names the pages): every field a client documents for the files edited, the
error and the session is read, and the hook answers only where the client reads an answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import Invoke
from tests.support.payloads import CLIENTS, TRANSCRIPT, documented


def write_lesson(root: Path, name: str, paths: list[str]) -> None:
    """An active lesson about `paths`, the only one in the workspace."""
    lessons = root / ".wiki" / "raw" / "lessons"
    for old in lessons.glob("*.md"):
        old.unlink()
    listed = "".join(f"  - {path}\n" for path in paths)
    (lessons / f"{name}.md").write_text(
        "---\ntype: lesson\n"
        f"id: {name}\ntitle: Mind {name}\nsummary: Edits of it went wrong.\n"
        "trigger: manual\nseverity: HIGH\nscope: global\n"
        f"prevention_rule: Check {name} twice.\npaths:\n{listed}status: active\n"
        "created: 2026-11-30\n---\n## What Happened\n\nIt broke.\n\n## Root Cause\n\nHaste.\n\n"
        "## Optimization\n\nA check.\n\n## Next Time\n\n- Check it twice.\n",
        encoding="utf-8",
    )


def answer(invoke: Invoke, root: Path, client: str, event: str, payload: str) -> dict:
    result = invoke("hook", client, event, "-w", str(root), input=payload)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return json.loads(result.stdout) if result.stdout else {}


def test_claude_code_notebook_edit_names_the_notebook(demo: Path, invoke: Invoke) -> None:
    write_lesson(demo, "explore-notebook", ["notebooks/explore.ipynb"])
    payload = documented("claude-code/PreToolUse-NotebookEdit.json", demo)
    out = answer(invoke, demo, "claude-code", "pre-tool", payload)
    assert "Check explore-notebook twice." in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit"])
def test_claude_code_edits_name_their_file(demo: Path, invoke: Invoke, tool: str) -> None:
    payload = json.loads(documented(f"claude-code/PreToolUse-{tool}.json", demo))
    edited = Path(payload["tool_input"]["file_path"]).relative_to(demo).as_posix()
    write_lesson(demo, "edited-file", [edited])
    out = answer(invoke, demo, "claude-code", "pre-tool", json.dumps(payload))
    assert "Check edited-file twice." in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    "path",
    ["src/app.py", "docs/new.md", "old.txt", "legacy/place.py", "new/place.py"],
    ids=["update", "add", "delete", "moved-from", "moved-to"],
)
def test_codex_apply_patch_names_every_file_of_its_patch(
    demo: Path, invoke: Invoke, path: str
) -> None:
    write_lesson(demo, "patched-file", [path])
    payload = documented("codex/PreToolUse-apply_patch.json", demo)
    out = answer(invoke, demo, "codex", "pre-tool", payload)
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "Check patched-file twice." in out["hookSpecificOutput"]["additionalContext"]


def test_codex_apply_patch_about_other_files_says_nothing(demo: Path, invoke: Invoke) -> None:
    write_lesson(demo, "elsewhere", ["src/other.py"])
    payload = documented("codex/PreToolUse-apply_patch.json", demo)
    assert answer(invoke, demo, "codex", "pre-tool", payload) == {}


def test_patched_files_reads_only_file_lines() -> None:
    from skillwiki.hooks import patched_files

    patch = json.loads((CLIENTS / "codex" / "PreToolUse-apply_patch.json").read_text())
    command = patch["tool_input"]["command"]
    names = ["src/app.py", "docs/new.md", "old.txt", "legacy/place.py", "new/place.py"]
    assert patched_files(command) == names
    assert patched_files(["apply_patch", command]) == names  # as an argv
    hunk = "*** Begin Patch\n*** Add File: a.md\n+*** Update File: b.md\n*** End Patch\n"
    assert patched_files(hunk) == ["a.md"]  # a line added to a file is not a file line
    assert patched_files(None) == [] and patched_files(7) == []


@pytest.mark.parametrize(
    ("client", "event", "name", "reads"),
    [
        ("claude-code", "session-start", "claude-code/SessionStart.json", "hookSpecificOutput"),
        ("codex", "session-start", "codex/SessionStart.json", "hookSpecificOutput"),
        ("cursor", "session-start", "cursor/sessionStart.json", "additional_context"),
        ("claude-code", "user-prompt", "claude-code/UserPromptSubmit.json", "hookSpecificOutput"),
        ("codex", "user-prompt", "codex/UserPromptSubmit.json", "hookSpecificOutput"),
        ("cursor", "user-prompt", "cursor/beforeSubmitPrompt.json", None),
    ],
)
def test_each_client_s_documented_payload_is_answered_as_it_reads(
    demo: Path, invoke: Invoke, client: str, event: str, name: str, reads: str | None
) -> None:
    """Recall answers where the client documents a field it reads, in that field; Cursor's
    beforeSubmitPrompt reads none, so nothing is said (and nothing counted)."""
    write_lesson(demo, "everywhere", ["src/app.py"])
    out = answer(invoke, demo, client, event, documented(name, demo))
    if reads is None:
        assert out == {}
        assert not (demo / ".wiki" / ".cache" / "hits.log").exists()
        return
    block = out[reads]["additionalContext"] if reads == "hookSpecificOutput" else out[reads]
    assert "Check everywhere twice." in block


def test_cursor_post_tool_failure_answers_nothing(demo: Path, invoke: Invoke) -> None:
    """Cursor documents no output field for postToolUseFailure: a due lesson waits for stop."""
    payload = documented("cursor/postToolUseFailure.json", demo, transcript_path=str(TRANSCRIPT))
    assert answer(invoke, demo, "cursor", "post-tool-failure", payload) == {}


def test_cursor_stop_names_a_due_lesson_once(demo: Path, invoke: Invoke) -> None:
    """stop reads `followup_message`, which Cursor sends to the agent as the user's next
    message; the stop after that one comes with loop_count 1 and is answered with nothing."""
    first = documented("cursor/stop.json", demo, transcript_path=str(TRANSCRIPT))
    out = answer(invoke, demo, "cursor", "stop", first)
    assert list(out) == ["followup_message"]
    assert out["followup_message"].startswith("skillwiki: this session may hold a lesson")
    again = documented("cursor/stop.json", demo, transcript_path=str(TRANSCRIPT), loop_count=1)
    assert answer(invoke, demo, "cursor", "stop", again) == {}


@pytest.mark.parametrize("name", ["cursor/postToolUseFailure.json", "cursor/stop.json"])
def test_suggest_reads_the_cursor_payload_the_hook_says_to_pipe(
    demo: Path, invoke: Invoke, name: str
) -> None:
    payload = documented(name, demo, transcript_path=str(TRANSCRIPT))
    result = invoke("suggest", "-w", str(demo), "-", input=payload)
    assert result.exit_code == 0, result.output
    proposal = json.loads(result.stdout)
    assert proposal["suggest"] is True
    assert proposal["failed_tools"] == ["mcp__telegram__send"]


def test_cursor_error_message_is_the_failed_call_s_error() -> None:
    """Without a transcript, a failure payload is its one failed call: Cursor names the error
    `error_message` where Claude Code and Codex say `error`."""
    from skillwiki.memory.clients import feedback_of

    cursor = json.loads((CLIENTS / "cursor" / "postToolUseFailure.json").read_text())
    cursor["transcript_path"] = None
    calls = feedback_of(cursor, "stdin", 20)["tool_calls"]
    assert calls == [{"tool": "Shell", "success": False, "error": cursor["error_message"]}]
    claude = json.loads((CLIENTS / "claude-code" / "PostToolUseFailure.json").read_text())
    claude["transcript_path"] = None
    assert feedback_of(claude, "stdin", 20)["tool_calls"][0]["error"] == claude["error"]


def test_a_transcript_that_is_not_a_file_is_not_waited_for(demo: Path, tmp_path: Path) -> None:
    """A FIFO named as the transcript would block its reader until something writes to it:
    suggest (which has no time budget) reads only regular files."""
    fifo = tmp_path / "transcript"
    os.mkfifo(fifo)
    payload = documented("claude-code/Stop.json", demo, transcript_path=str(fifo))
    done = subprocess.run(
        [sys.executable, "-m", "skillwiki", "-w", str(demo), "suggest", "-"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, json.loads(done.stdout)) == (0, {"suggest": False})


CODEX_TRANSCRIPT = CLIENTS / "codex" / "transcript.jsonl"  # a rollout: three failed shell calls


def test_suggest_reads_the_codex_rollout_its_stop_names(demo: Path, invoke: Invoke) -> None:
    """Codex's transcript is its rollout: a shell call whose output says `Exit code: 1` failed,
    and the user's message (not the environment context before it) is the task."""
    payload = documented("codex/Stop.json", demo, transcript_path=str(CODEX_TRANSCRIPT))
    result = invoke("suggest", "-w", str(demo), "-", input=payload)
    assert result.exit_code == 0, result.output
    proposal = json.loads(result.stdout)
    assert proposal["suggest"] is True
    assert proposal["failed_tools"] == ["shell_command"]
    assert "does not match format" in proposal["error_summaries"][0]


def test_codex_stop_answers_a_system_message(demo: Path, invoke: Invoke) -> None:
    payload = documented("codex/Stop.json", demo, transcript_path=str(CODEX_TRANSCRIPT))
    out = answer(invoke, demo, "codex", "stop", payload)
    assert list(out) == ["systemMessage"]
    assert "shell_command" in out["systemMessage"]


def test_a_codex_rollout_whose_calls_succeeded_proposes_nothing(
    demo: Path, invoke: Invoke, tmp_path: Path
) -> None:
    lines = CODEX_TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(
        "\n".join(line.replace("Exit code: 1", "Exit code: 0") for line in lines) + "\n",
        encoding="utf-8",
    )
    payload = documented("codex/Stop.json", demo, transcript_path=str(rollout))
    result = invoke("suggest", "-w", str(demo), "-", input=payload)
    assert (result.exit_code, json.loads(result.stdout)) == (0, {"suggest": False})


def test_codex_rollout_calls_fail_as_codex_reports_them(tmp_path: Path) -> None:
    """Each way Codex's source records a failed call: an exit code in the output's text or in
    its JSON metadata, a patch that did not apply, an MCP call that erred."""
    from skillwiki.memory.clients import feedback_of

    def item(kind: str, **payload: object) -> str:
        return json.dumps(
            {"timestamp": "2026-08-24T10:15:02.318Z", "type": kind, "payload": payload}
        )

    exec_out = "Chunk ID: 4f2a\nWall time: 0.2000 seconds\nProcess exited with code 2\nOutput:\nno"
    structured = json.dumps(
        {"output": "boom\n", "metadata": {"exit_code": 1, "duration_seconds": 0.1}}
    )
    mcp = {"Ok": {"content": [{"type": "text", "text": "denied"}], "isError": True}}
    lines = [
        item("event_msg", type="user_message", message="Ship it"),
        item(
            "response_item", type="function_call", name="exec_command", arguments="{}", call_id="a"
        ),
        item("response_item", type="function_call_output", call_id="a", output=exec_out),
        item("response_item", type="local_shell_call", call_id="b", status="completed", action={}),
        item("response_item", type="function_call_output", call_id="b", output=structured),
        item("response_item", type="custom_tool_call", call_id="c", name="apply_patch", input=""),
        item(
            "event_msg",
            type="patch_apply_end",
            call_id="c",
            stdout="",
            stderr="no hunk",
            success=False,
        ),
        item("response_item", type="custom_tool_call_output", call_id="c", output="patch failed"),
        item(
            "response_item",
            type="function_call",
            name="send",
            namespace="mcp__chat__",
            arguments="{}",
            call_id="d",
        ),
        item(
            "event_msg",
            type="mcp_tool_call_end",
            call_id="d",
            invocation={"server": "chat", "tool": "send"},
            result=mcp,
        ),
        item(
            "response_item",
            type="function_call_output",
            call_id="d",
            output=[{"type": "input_text", "text": "denied"}],
        ),
        item("response_item", type="function_call_output", call_id="e", output="plain text"),
    ]
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("\n".join(lines) + "\n", encoding="utf-8")
    payload = {"hook_event_name": "Stop", "transcript_path": str(rollout)}
    feedback = feedback_of(payload, "stdin", 20)
    assert feedback["task"] == "Ship it"
    assert feedback["tool_calls"] == [
        {"tool": "exec_command", "success": False, "error": "no"},
        {"tool": "local_shell", "success": False, "error": "boom"},
        {"tool": "apply_patch", "success": False, "error": "no hunk"},
        {"tool": "mcp__chat__send", "success": False, "error": "denied"},
        {"tool": "", "success": True, "error": ""},
    ]
