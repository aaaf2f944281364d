"""What agent clients send, read as run feedback: a Claude Code hook payload (PostToolUseFailure,
Stop, SubagentStop) and the session transcript it points to.

The transcript (JSONL: `assistant` lines carry `tool_use` blocks, `user` lines the matching
`tool_result` blocks with `is_error`) gives every tool call of the session and the user's first
prompt as the task; without a readable transcript, a PostToolUseFailure payload is one failed
call. Other events carry no run to judge: they are refused by name.
"""

from __future__ import annotations

import json
import os
import stat
from collections import deque
from pathlib import Path
from typing import Any, BinaryIO

from skillwiki.errors import InputError

RUN_EVENTS = ("PostToolUseFailure", "Stop", "SubagentStop")
# Cursor names the same events in camelCase (postToolUseFailure, stop, subagentStop).
_CURSOR_NAMES = {event[0].lower() + event[1:]: event for event in RUN_EVENTS}
MAX_TRANSCRIPT_BYTES = 64 << 20  # the tail of a longer session is read


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
    """A tool result's text: a string, or the text blocks of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


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
    names: dict[str, str] = {}
    calls: deque[dict[str, Any]] = deque(maxlen=max_calls)
    task = ""
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        message = event.get("message") if isinstance(event, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        user = event.get("type") == "user" or event.get("role") == "user"  # Cursor: role
        if isinstance(content, str) and user and not task:
            task = content
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                names[str(block.get("id"))] = str(block.get("name") or "")
            elif block.get("type") == "tool_result":
                tool = names.get(str(block.get("tool_use_id")), "")
                failed = block.get("is_error") is True
                calls.append(_call(tool, not failed, block.get("content") if failed else ""))
    return list(calls), " ".join(task.split())[:200]


def _regular_file(path: Path) -> BinaryIO:
    """The file at `path` open for reading, if it is a regular file: a FIFO or a device named
    as the transcript would block the reader forever, or never end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
