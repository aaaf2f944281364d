"""Agent clients' hooks: what `skillwiki hook <client> <event>` answers to a hook payload.

A face of its own, beside the command line (skillwiki.cli) and the MCP server
(skillwiki.server): it calls the memory core and renders its answers as each client reads
them. The readers of the clients' payloads and transcripts (memory/clients.py) stay in the
core, since suggest reads a hook payload on every face.

Claude Code and Codex send one JSON object on stdin and read `hookSpecificOutput` with
`additionalContext` (added to the model's context) or `systemMessage` (shown to the user):

- session-start (SessionStart, every source: startup, resume, clear, compact, fork): the
  recall block for the agent, again after the context was cleared or compacted;
- user-prompt (UserPromptSubmit): recall with the user's prompt as the task, leaving out what
  this session was shown already;
- pre-tool (PreToolUse): before an edit, the lessons about the edited files, if any (Claude
  Code's Edit, Write, MultiEdit and NotebookEdit; the files a Codex apply_patch names);
- post-tool-failure (PostToolUseFailure) and stop (Stop): the session's run through suggest; a
  due lesson is named to the model (after a failure) or to the user (at the end), never
  recorded: recording stays the user's call. At the end, once a session, also that
  consolidation is due, when lessons that share a cause wait for a rule (see maintain).

Cursor (`.cursor/hooks.json`, version 1) sends `conversation_id` and `workspace_roots`. Its
documentation gives output fields to sessionStart (`additional_context`: the recall block) and
stop (`followup_message`, sent to the agent as the user's next message: a due lesson, for the
agent to ask the user about, at the first stop of a loop only); postToolUseFailure and the
prompt and edit events read nothing, so there the hook answers nothing and recall's `.mdc`
rule carries the lessons.

A lesson counts one recall hit per session, however often the session is shown it, and
however many of its hooks run at once (see `sessions.claim`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillwiki import clock
from skillwiki.config import Config
from skillwiki.hooks import sessions
from skillwiki.workspace import Workspace

CLIENTS = ("claude-code", "codex", "cursor")
EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-tool": "PreToolUse",
    "post-tool-failure": "PostToolUseFailure",
    "stop": "Stop",
}
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"})


@dataclass(frozen=True)
class Hook:
    client: str
    event: str  # a key of EVENTS
    payload: dict[str, Any]
    agent: str  # whom targeted lessons must name

    @property
    def session(self) -> str:
        value = self.payload.get("conversation_id" if self.client == "cursor" else "session_id")
        return value if isinstance(value, str) and "\n" not in value else ""


# The events whose answer Cursor reads, as its documentation gives them.
_CURSOR_ANSWERS = ("session-start", "stop")


def start_folder(client: str, payload: dict[str, Any]) -> str | None:
    """Where the client says the project is: Cursor's first workspace root, else `cwd`."""
    roots = payload.get("workspace_roots")
    if client == "cursor" and isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) else None


def answer(ws: Workspace, config: Config, hook: Hook) -> str:
    """What to print on stdout for this hook ("" for nothing)."""
    if hook.client == "cursor" and hook.event not in _CURSOR_ANSWERS:
        return ""
    if hook.event in ("post-tool-failure", "stop"):
        return _judge_run(ws, config, hook)
    return _recall(ws, config, hook)


def _recall(ws: Workspace, config: Config, hook: Hook) -> str:
    from skillwiki import api
    from skillwiki.memory import usage

    task = hook.payload.get("prompt") if hook.event == "user-prompt" else None
    task = task if isinstance(task, str) and task.strip() else None
    paths: tuple[str, ...] = ()
    if hook.event == "pre-tool":
        paths = _edited_files(ws, hook.payload)
        if not paths:
            return ""
    seen = sessions.shown_in(ws, hook.session)
    # After a start (or a clear or compaction) the context holds nothing: show it all again.
    skip = seen if hook.event != "session-start" else frozenset()
    # Nothing is compiled and the wiki's search index is not opened: lessons are read from
    # raw/ and a task is scored against an index of the lessons alone, so a hook on a fresh
    # clone answers within its budget where building the wiki's index would not, and leaves
    # that to the first query. A lesson counts once a session: the ones this call claims.
    answer = api.recall(
        api.Wiki(ws, config),
        agent=hook.agent,
        task=task,
        paths=paths,
        skip=skip,
        paths_only=bool(paths),
        count=False,
    )
    new = [lesson_id for lesson_id in answer.included if lesson_id not in seen]
    usage.count(ws, sessions.claim(ws, hook.session, new), clock.stamp())
    if not answer.block:
        return ""
    return _context(hook, answer.block)


def _judge_run(ws: Workspace, config: Config, hook: Hook) -> str:
    """Name a lesson the session's run calls for, once a session for each event: to the model
    after a failure and to the user at the end (Claude Code's Stop comes at the end of every
    turn), and not once the lesson is recorded (its title is the proposal's, unless the user
    changed it)."""
    from skillwiki import api

    payload = {**hook.payload, "hook_event_name": EVENTS[hook.event]}
    proposal = api.suggest(payload, config.suggest, where="stdin").proposal
    said = []
    if proposal is not None and _first_to_say(ws, config, hook, proposal.proposed_title):
        said.append(
            # the title names the trigger: `consecutive_tool_failures: publish the digest`
            f"skillwiki: this session may hold a lesson: {proposal.proposed_title}. "
            f"Draft prevention rule: {proposal.proposed_prevention_rule} "
            "Ask the user whether to record it; only if they agree, pipe this session's hook "
            "payload into `skillwiki suggest -` and run the `command` it prints."
        )
    if hook.event == "stop":
        said.append(_consolidation_due(ws, config, hook))
    text = " ".join(filter(None, said))
    if not text:
        return ""
    if hook.client == "cursor":  # stop: sent to the agent as the user's next message
        return json.dumps({"followup_message": text}, ensure_ascii=False)
    if hook.event == "stop":
        return json.dumps({"systemMessage": text}, ensure_ascii=False)
    return _context(hook, text)


def _consolidation_due(ws: Workspace, config: Config, hook: Hook) -> str:
    """At the end of a session's turn, once a session: that consolidation is due (see
    skillwiki.memory.consolidate), and what to run, when lessons that share a cause wait for
    a rule."""
    from skillwiki import api

    said = "consolidation due"
    if hook.session and said in sessions.shown_in(ws, hook.session):
        return ""
    due = api.maintain(ws, config).plan.due
    if not due.due or (hook.session and not sessions.claim(ws, hook.session, [said])):
        return ""
    return (
        f"skillwiki: consolidation of lessons into rules is due ({due.reason}). "
        "`skillwiki maintain` shows each proposed rule with the record-rule command that "
        "records it, once you agree (its condition and action may be rewritten first)."
    )


def _first_to_say(ws: Workspace, config: Config, hook: Hook, title: str) -> bool:
    """Whether this hook call is the one to propose the lesson titled `title`: not said in this
    session at this event, not recorded already, and claimed before any other call of the
    session running at once."""
    from skillwiki.memory.store import load_lessons

    if hook.client == "cursor" and hook.payload.get("loop_count", 0) != 0:
        return False  # the stop that follows Cursor's own follow-up message: said already
    proposed = f"proposed at {hook.event}: {' '.join(title.split())}"
    if proposed in sessions.shown_in(ws, hook.session):
        return False
    if any(lesson.title == title for lesson in load_lessons(ws, config).values()):
        return False
    return not hook.session or bool(sessions.claim(ws, hook.session, [proposed]))


def _context(hook: Hook, text: str) -> str:
    if hook.client == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False)
    output = {
        "hookSpecificOutput": {"hookEventName": EVENTS[hook.event], "additionalContext": text}
    }
    return json.dumps(output, ensure_ascii=False)


def _edited_files(ws: Workspace, payload: dict[str, Any]) -> tuple[str, ...]:
    """The workspace-relative files an edit tool is about to change: Claude Code's
    `tool_input.file_path` (`notebook_path` for NotebookEdit), or the files Codex's
    apply_patch names in its patch (`tool_input.command`)."""
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if tool not in EDIT_TOOLS or not isinstance(tool_input, dict):
        return ()
    given: Sequence[object]
    if tool == "apply_patch":
        given = patched_files(tool_input.get("command"))
    else:
        given = [tool_input.get("notebook_path" if tool == "NotebookEdit" else "file_path")]
    cwd = payload.get("cwd")
    base = Path(cwd if isinstance(cwd, str) else os.getcwd())
    found = []
    for name in given:
        if not isinstance(name, str) or not name:
            continue
        try:
            found.append(Path(os.path.normpath(base / name)).relative_to(ws.root).as_posix())
        except ValueError:
            continue  # outside the workspace
    return tuple(dict.fromkeys(found))


# The lines of an apply_patch patch that name a file: added, deleted, updated, or moved to.
_PATCH_FILE_LINES = ("*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: ")


def patched_files(command: object) -> list[str]:
    """The files a Codex apply_patch patch names, in order (its text, or an argv holding it).
    A hunk's lines all start with a space, `+` or `-`, so none is taken for a file line."""
    if isinstance(command, list):
        command = "\n".join(part for part in command if isinstance(part, str))
    if not isinstance(command, str):
        return []
    return [
        line[len(mark) :].strip()
        for line in command.splitlines()
        for mark in _PATCH_FILE_LINES
        if line.startswith(mark)
    ]
