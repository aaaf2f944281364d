"""mcp: serve skillwiki's tools to an agent client over stdio."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from skillwiki.cli.common import WorkspaceOption, chosen_workspace
from skillwiki.errors import InputError


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)


def mcp(
    ctx: typer.Context,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            envvar="SKILLWIKI_MCP_READ_ONLY",
            help="Serve only the tools that never write (no record_lesson, feedback, record_rule).",
        ),
    ] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Serve query, show, recall, status, suggest and maintain (and, unless --read-only,
    record_lesson, feedback and record_rule) as MCP tools over stdio, for agent clients.

    Needs the `mcp` extra. The workspace is -w, else $SKILLWIKI_WORKSPACE, else
    $CLAUDE_PROJECT_DIR, else the folder the client starts the server in.

    Examples:
      skillwiki mcp
      skillwiki mcp --read-only -w path/to/repo
    """
    try:
        from skillwiki.server import build
        from skillwiki.server.app import WikiServer  # the SDK's modules are imported here
        from skillwiki.server.live import WorkspaceLookup
    except ImportError as exc:
        # Any module the extra brings (mcp, anyio, pydantic...) missing or broken; one of
        # skillwiki's own is a bug, and shown as one.
        if exc.name is None or exc.name.partition(".")[0] == "skillwiki":
            raise
        raise InputError(
            None,
            f"the MCP server needs the mcp extra, and {exc.name!r} cannot be imported: "
            "pip install 'skillwiki[mcp]'",
        ) from None
    lookup = WorkspaceLookup(chosen_workspace(ctx, workspace))
    server: WikiServer = build(
        lookup, read_only=read_only or os.environ.get("SKILLWIKI_MCP_READ_ONLY") == "1"
    )
    try:
        server.run("stdio")
    finally:
        server.workspace.close()  # a look the server began on its own ends before the process
