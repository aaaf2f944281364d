"""What agent clients send, read as run feedback: a Claude Code, Codex or Cursor hook payload
(PostToolUseFailure, Stop, SubagentStop) and the session transcript it points to.

Each transcript line is read by its shape; a line of neither shape is skipped:

- Claude Code (JSONL: `assistant` lines carry `tool_use` blocks, `user` lines the matching
  `tool_result` blocks with `is_error`); Cursor's lines are read where they hold the same blocks.
- Codex's rollout (`{"timestamp", "type", "payload"}` lines), read as Codex's source writes it,
  which Codex says may change: `response_item` calls (`function_call`, `custom_tool_call`,
  `local_shell_call`) paired by `call_id` with their `function_call_output` /
  `custom_tool_call_output`; a shell call failed when its output says so (`Exit code: N`,
  `Process exited with code N`, or `metadata.exit_code` in a JSON output, N not 0); the
  `event_msg` lines `patch_apply_end` (`success: false`) and `mcp_tool_call_end` (an `Err`, or
  `isError`) fail their call too. Codex writes no call's `success` into the file, so an error a
  tool answers as plain text reads as a success. The task is the first `user_message` event.

The transcript gives every tool call of the session and the user's first prompt as the task;
without a readable transcript, a PostToolUseFailure payload is one failed call. Other events
carry no run to judge: they are refused by name.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from skillwiki.errors import InputError

RUN_EVENTS = ("PostToolUseFailure", "Stop", "SubagentStop")
# Cursor names the same events in camelCase (postToolUseFailure, stop, subagentStop).
_CURSOR_NAMES = {event[0].lower() + event[1:]: event for event in RUN_EVENTS}
MAX_TRANSCRIPT_BYTES = 64 << 20  # the tail of a longer session is read
MAX_OUTPUT_ERROR = 1000  # a failed Codex shell call's error: the head of its output
# How Codex's shell tools tell the model a command's exit status, in the output's text.
_EXIT_LINE = re.compile(r"^(?:Exit code:|Process exited with code) (-?[0-9]+)$", re.MULTILINE)
_CODEX_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_CODEX_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def is_hook_payload(data: dict[str, Any]) -> bool:
    return isinstance(data.get("hook_event_name"), str)


def feedback_of(data: dict[str, Any], where: str, max_calls: int) -> dict[str, Any]:
    """The feedback object a hook payload stands for (task, tool_calls)."""
    event = _CURSOR_NAMES.get(data["hook_event_name"], data["hook_event_name"])
    if event not in RUN_EVENTS:
        raise InputError(
            where,
            f"a {event} hook payload carries no run to judge; pipe "
            f"{', '.join(RUN_EVENTS)}, or the run's feedback object",
        )
    calls, task = _transcript(data.get("transcript_path"), max_calls)
    if not calls and event == "PostToolUseFailure":
        error = data.get("error") or data.get("error_message")  # Cursor: error_message
        calls = [_call(data.get("tool_name"), False, error)]
    return {"task": task, "tool_calls": calls}


def _call(tool: object, success: bool, error: object) -> dict[str, Any]:
    return {
        "tool": tool if isinstance(tool, str) else "",
        "success": success,
        "error": _text(error),
    }


def _text(content: object) -> str:
    """A tool result's text: a string, or the text blocks of a list (Codex: `input_text`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") in ("text", "input_text")
        )
    return ""


@dataclass
class _Run:
    """What a transcript's lines say so far: tool names by call id, the calls by call id (in
    the order their results came), and the task."""

    names: dict[str, str] = field(default_factory=dict)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    task: str = ""

    def result(self, call_id: object, call: dict[str, Any]) -> None:
        """A call's result; a call already failed stays failed (a Codex call can be told by
        its output and by an event)."""
        key = call_id if isinstance(call_id, str) else f"#{len(self.calls)}"
        known = self.calls.get(key)
        if known is None or known["success"]:
            self.calls[key] = call


def _transcript(path: object, max_calls: int) -> tuple[list[dict[str, Any]], str]:
    """The tool calls (the last `max_calls`) and first user prompt of a session transcript;
    nothing when it cannot be read."""
    if not isinstance(path, str) or not path:
        return [], ""
    try:
        with _regular_file(Path(path).expanduser()) as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - MAX_TRANSCRIPT_BYTES))
            lines = handle.read().decode("utf-8", errors="replace").split("\n")
    except OSError:
        return [], ""
    run = _Run()
    for line in lines:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # a line nested too deep is no line of a client
            continue
        if not isinstance(event, dict):
            continue
        if isinstance(event.get("payload"), dict) and isinstance(event.get("type"), str):
            _rollout_line(event["type"], event["payload"], run)
        elif isinstance(event.get("message"), dict):
            _claude_line(event, event["message"], run)
    calls = list(run.calls.values())[-max_calls:] if max_calls > 0 else []
    return calls, " ".join(run.task.split())[:200]


def _claude_line(event: dict[str, Any], message: dict[str, Any], run: _Run) -> None:
    """A Claude Code (or Cursor) line: `tool_use` blocks name calls, `tool_result` blocks end
    them; a user line's string content is a prompt."""
    content = message.get("content")
    user = event.get("type") == "user" or event.get("role") == "user"  # Cursor: role
    if isinstance(content, str) and user and not run.task:
        run.task = content
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            run.names[str(block.get("id"))] = str(block.get("name") or "")
        elif block.get("type") == "tool_result":
            tool = run.names.get(str(block.get("tool_use_id")), "")
            failed = block.get("is_error") is True
            error = block.get("content") if failed else ""
            run.result(block.get("tool_use_id"), _call(tool, not failed, error))


def _rollout_line(kind: str, payload: dict[str, Any], run: _Run) -> None:
    """A Codex rollout line: a `response_item` or an `event_msg`; other kinds (session_meta,
    turn_context, compacted, ...) say nothing about calls."""
    if kind == "response_item":
        _rollout_item(payload, run)
    elif kind == "event_msg":
        _rollout_event(payload, run)


def _rollout_item(item: dict[str, Any], run: _Run) -> None:
    """A call names its tool; its output (paired by `call_id`) says whether it failed."""
    call_id = item.get("call_id")
    if item.get("type") in _CODEX_CALLS and isinstance(call_id, str):
        local = "local_shell" if item.get("type") == "local_shell_call" else ""
        run.names[call_id] = str(item.get("namespace") or "") + str(item.get("name") or local)
    elif item.get("type") in _CODEX_OUTPUTS:
        error = _exit_failure(_text(item.get("output")))
        run.result(call_id, _call(run.names.get(str(call_id), ""), error is None, error))


def _rollout_event(event: dict[str, Any], run: _Run) -> None:
    """The user's message is the task; a patch that did not apply, or an MCP call that erred,
    fails its call."""
    call_id = event.get("call_id")
    if event.get("type") == "user_message" and not run.task:
        run.task = str(event.get("message") or "")
    elif event.get("type") == "patch_apply_end" and event.get("success") is False:
        tool = run.names.get(str(call_id), "apply_patch")
        run.result(call_id, _call(tool, False, event.get("stderr") or event.get("stdout")))
    elif event.get("type") == "mcp_tool_call_end":
        error = _mcp_failure(event.get("result"))
        tool = run.names.get(str(call_id), _mcp_name(event))
        if error is not None:
            run.result(call_id, _call(tool, False, error))


def _exit_failure(output: str) -> str | None:
    """The error of a Codex shell call's output when its exit code is not 0 (the output after
    the header, or the JSON output's `output`); None when it says it succeeded or says nothing."""
    try:
        data = json.loads(output)
    except (ValueError, RecursionError):
        data = None
    metadata = data.get("metadata") if isinstance(data, dict) else None
    if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
        failed, body = metadata["exit_code"] != 0, _text(data.get("output"))
    else:
        header, _, body = output.partition("\nOutput:\n")
        found = _EXIT_LINE.search(header)  # the header only: the rest is the command's own
        # not 0, told by its digits: int() refuses a code of 5000 digits (and any length is
        # the output's to choose)
        failed, body = found is not None and found.group(1).lstrip("-0") != "", body or output
    return body.strip()[:MAX_OUTPUT_ERROR] if failed else None


def _mcp_failure(result: object) -> str | None:
    """The error of an MCP call's `Result`: its `Err`, or the text of an `Ok` with `isError`."""
    if not isinstance(result, dict):
        return None
    if "Err" in result:
        return str(result["Err"])
    ok = result.get("Ok")
    if isinstance(ok, dict) and ok.get("isError") is True:
        return _text(ok.get("content"))
    return None


def _mcp_name(payload: dict[str, Any]) -> str:
    invocation = payload.get("invocation")
    if not isinstance(invocation, dict):
        return ""
    return f"mcp__{invocation.get('server', '')}__{invocation.get('tool', '')}"


def _regular_file(path: Path) -> BinaryIO:
    """The file at `path` open for reading, if it is a regular file: a FIFO or a device named
    as the transcript would block the reader forever, or never end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)  # a link swapped in: refused
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
