"""hook: answer an agent client's hook, failing safe."""

# No `from __future__ import annotations` here: Typer reads every parameter's annotation each
# time the command starts, and annotations kept as strings are compiled and evaluated first.

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import typer

from skillwiki.cli import budget
from skillwiki.cli.common import WorkspaceOption, chosen_workspace

# A payload is read whole, however large, so that the client never writes into a closed pipe;
# past this size it is not parsed, and the hook answers nothing.
MAX_PAYLOAD = 64 << 20


def register(app: typer.Typer) -> None:
    app.command("hook", no_args_is_help=True)(hook)


def hook(
    ctx: typer.Context,
    client: Annotated[str, typer.Argument(help="claude-code, codex or cursor.")],
    event: Annotated[
        str,
        typer.Argument(help="session-start, user-prompt, pre-tool, post-tool-failure or stop."),
    ],
    agent: Annotated[
        str | None, typer.Option(help="The agent name lessons target (default: the client).")
    ] = None,
    workspace: WorkspaceOption = None,
) -> None:
    """Answer an agent client's hook: read its JSON payload on stdin, print what it expects.

    Never gets in the agent's way: outside a workspace, on any error, or past
    SKILLWIKI_HOOK_SECONDS (above 0, at most 600; default 5) it prints nothing and exits 0.
    The workspace is -w, else $CLAUDE_PROJECT_DIR, else the payload's cwd (Cursor:
    workspace_roots), else here.

    Examples:
      skillwiki hook claude-code session-start
      skillwiki hook claude-code user-prompt
      skillwiki hook codex pre-tool --agent coder
    """
    if not budget.armed():  # the command line arms it first thing; a test calls in here
        budget.arm(hard=False)
    try:
        output = _answer(ctx, client, event, agent, workspace)
    except (Exception, budget.OutOfTime):  # noqa: BLE001 - a hook fails silently, and at once
        output = ""
    finally:
        budget.disarm()
    if output:
        sys.stdout.write(output + "\n")


def _answer(
    ctx: typer.Context, client: str, event: str, agent: str | None, workspace: Path | None
) -> str:
    from skillwiki.config import load_config
    from skillwiki.hooks import CLIENTS, EVENTS, Hook, answer, start_folder
    from skillwiki.workspace import find_workspace

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
    ws = find_workspace(Path(start or os.getcwd()), chosen_workspace(ctx, workspace))
    config = load_config(ws.config_file, shown=ws.rel(ws.config_file))
    return answer(ws, config, Hook(client, event, payload, agent or client))


def _read_all(stream: BinaryIO) -> bytes | None:
    """The payload, read to its end; None past MAX_PAYLOAD (the rest is read and dropped)."""
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) <= MAX_PAYLOAD:
        return data
    while stream.read(1 << 20):
        pass
    return None
