"""hook: answer an agent client's hook, failing safe; and the hook's plain form, read without
the CLI framework.

A client runs its hook on every prompt and tool call, in the form docs/agents.md gives
(`skillwiki hook claude-code user-prompt --agent coder`). That form is read here and answered
without importing Typer, which alone costs about half of a hook's start. Any other form (help,
another option, a typo) goes through Typer (cli/hook_cmd.py), which calls `run` with what it
parsed; tests/cli/test_hook_form.py holds `plain_form` equal to Typer's parse.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from skillwiki.cli import budget

# A payload is read whole, however large, so that the client never writes into a closed pipe;
# past this size it is not parsed, and the hook answers nothing.
MAX_PAYLOAD = 64 << 20


class HookCall(NamedTuple):
    client: str
    event: str
    agent: str | None = None
    workspace: Path | None = None  # -w, else the workspace is looked for (see `run`)


def plain_form(args: Sequence[str], environ: Mapping[str, str] = os.environ) -> HookCall | None:
    """The hook the arguments call, when they are in its plain form: `[-w DIR] hook CLIENT
    EVENT [--agent NAME]`, with no SKILLWIKI_WORKSPACE set; None for any other form."""
    rest = list(args)
    workspace = None
    if len(rest) > 1 and rest[0] in ("-w", "--workspace") and _plain(rest[1]):
        workspace, rest = Path(rest[1]), rest[2:]
    if "SKILLWIKI_WORKSPACE" in environ or len(rest) < 3 or rest[0] != "hook":
        return None
    _, client, event, *options = rest
    agent = _agent(options)
    if agent is None or not (_plain(client) and _plain(event)):
        return None
    return HookCall(client, event, agent or None, workspace)


def _agent(options: Sequence[str]) -> str | None:
    """The agent the options after the event name ("" where they name none); None when they
    are not `--agent NAME` or `--agent=NAME`."""
    if not options:
        return ""
    if len(options) == 2 and options[0] == "--agent" and _plain(options[1]):
        return options[1]
    if len(options) == 1 and options[0].startswith("--agent=") and len(options[0]) > 8:
        return options[0][8:]
    return None


def _plain(value: str) -> bool:
    """A value the plain form takes as it stands: not empty, not an option."""
    return bool(value) and not value.startswith("-")


def run(call: HookCall) -> None:
    """Answer the hook: print what the client expects, or nothing.

    Never gets in the agent's way: outside a workspace, on any error, or past
    SKILLWIKI_HOOK_SECONDS it prints nothing and exits 0."""
    if not budget.armed():  # the command line arms it first thing; a test calls in here
        budget.arm(hard=False)
    try:
        output = _answer(call)
    except (Exception, budget.OutOfTime):  # noqa: BLE001 - a hook fails silently, and at once
        output = ""
    finally:
        budget.disarm()
    if output:
        sys.stdout.write(output + "\n")


def _answer(call: HookCall) -> str:
    from skillwiki.config import load_config
    from skillwiki.hooks import CLIENTS, EVENTS, Hook, answer, start_folder
    from skillwiki.workspace import find_workspace

    client, event = call.client, call.event
    data = _read_all(sys.stdin.buffer)  # first: a client never writes into a closed pipe
    if client not in CLIENTS or event not in EVENTS:  # a typo in the client's settings
        sys.stderr.write(
            f"Warning: no hook {client} {event}: the clients are {', '.join(CLIENTS)}, "
            f"the events {', '.join(EVENTS)}\n"
        )
        return ""
    payload: Any = None if data is None else json.loads(data or b"{}")
    if not isinstance(payload, dict):
        return ""
    start = os.environ.get("CLAUDE_PROJECT_DIR") if client == "claude-code" else None
    start = start or start_folder(client, payload)
    ws = find_workspace(Path(start or os.getcwd()), call.workspace)
    config = load_config(ws.config_file, shown=ws.rel(ws.config_file))
    return answer(ws, config, Hook(client, event, payload, call.agent or client))


def _read_all(stream: BinaryIO) -> bytes | None:
    """The payload, read to its end; None past MAX_PAYLOAD (the rest is read and dropped)."""
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) <= MAX_PAYLOAD:
        return data
    while stream.read(1 << 20):
        pass
    return None
