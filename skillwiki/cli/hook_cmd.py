"""hook: answer an agent client's hook, failing safe."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from skillwiki.cli.common import WorkspaceOption, chosen_workspace

MAX_PAYLOAD = 4 << 20
DEFAULT_SECONDS = 5.0


def register(app: typer.Typer) -> None:
    app.command("hook", no_args_is_help=True)(hook)


class _OutOfTime(Exception):
    pass


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
    SKILLWIKI_HOOK_SECONDS (default 5) it prints nothing and exits 0. The workspace is
    -w, else $CLAUDE_PROJECT_DIR, else the payload's cwd (Cursor: workspace_roots), else here.

    Examples:
      skillwiki hook claude-code session-start
      skillwiki hook claude-code user-prompt
      skillwiki hook codex pre-tool --agent coder
    """
    output = ""
    try:
        try:
            seconds = float(os.environ.get("SKILLWIKI_HOOK_SECONDS") or DEFAULT_SECONDS)
            _alarm(seconds)
            output = _answer(ctx, client, event, agent, workspace)
        finally:
            _alarm(0)
    except Exception:  # noqa: BLE001 - a hook that fails must fail silently, and at once
        output = ""
    if output:
        sys.stdout.write(output + "\n")


def _answer(
    ctx: typer.Context, client: str, event: str, agent: str | None, workspace: Path | None
) -> str:
    from skillwiki.config import load_config
    from skillwiki.memory.hooks import CLIENTS, EVENTS, Hook, answer, start_folder
    from skillwiki.workspace import find_workspace

    if client not in CLIENTS or event not in EVENTS:
        return ""
    payload: Any = json.loads(sys.stdin.buffer.read(MAX_PAYLOAD + 1)[:MAX_PAYLOAD] or b"{}")
    if not isinstance(payload, dict):
        return ""
    start = os.environ.get("CLAUDE_PROJECT_DIR") if client == "claude-code" else None
    start = start or start_folder(client, payload)
    ws = find_workspace(Path(start or os.getcwd()), chosen_workspace(ctx, workspace))
    config = load_config(ws.config_file, shown=ws.rel(ws.config_file))
    return answer(ws, config, Hook(client, event, payload, agent or client))


def _alarm(seconds: float) -> None:
    """Give up (raise _OutOfTime) after `seconds`; 0 cancels."""
    if not hasattr(signal, "setitimer"):
        return

    def out_of_time(signum: int, frame: object) -> None:
        raise _OutOfTime

    if seconds > 0:
        signal.signal(signal.SIGALRM, out_of_time)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
