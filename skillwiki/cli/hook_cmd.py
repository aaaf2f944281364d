"""hook: answer an agent client's hook, failing safe (cli/hook_run.py answers it; this is
its Typer command, for every form but the plain one)."""

# No `from __future__ import annotations` here: Typer reads every parameter's annotation each
# time the command starts, and annotations kept as strings are compiled and evaluated first.

from typing import Annotated

import typer

from skillwiki.cli.common import WorkspaceOption, chosen_workspace
from skillwiki.cli.hook_run import HookCall, run


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
    run(HookCall(client, event, agent, chosen_workspace(ctx, workspace)))
