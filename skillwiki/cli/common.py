"""What every command shares: the workspace option, opening the workspace, opening it for a read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:  # the core is imported when a command runs, not when the CLI starts
    from skillwiki.api import Wiki
    from skillwiki.config import Config
    from skillwiki.workspace import Workspace

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "-w",
        "--workspace",
        help="The directory that holds .wiki/ (default: the nearest one at or above here).",
        envvar="SKILLWIKI_WORKSPACE",
        show_default=False,
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")
]
ExpectOption = Annotated[
    str | None,
    typer.Option(
        "--expect-fingerprint",
        metavar="FP",
        help="Write only if the target still has this fingerprint (as read); else exit 2.",
    ),
]
NoCompileOption = Annotated[
    bool, typer.Option("--no-compile", help="Do not bring the wiki up to date first.")
]


def chosen_workspace(ctx: typer.Context, given: Path | None) -> Path | None:
    """Return the -w given after the command, else the one given before it."""
    if given is not None:
        return given
    before = ctx.find_root().obj
    return before if isinstance(before, Path) else None


def open_workspace(ctx: typer.Context, given: Path | None) -> tuple[Workspace, Config]:
    """Find the workspace and load its config."""
    from skillwiki.config import load_config
    from skillwiki.workspace import find_workspace

    ws = find_workspace(Path(os.getcwd()), chosen_workspace(ctx, given))
    return ws, load_config(ws.config_file, shown=ws.rel(ws.config_file))


def open_wiki(
    ctx: typer.Context, given: Path | None, *, compile_first: bool, with_index: bool = True
) -> Wiki:
    """Find the workspace and open it for a read (see `opened`)."""
    ws, config = open_workspace(ctx, given)
    return opened(ws, config, compile_first=compile_first, with_index=with_index)


def opened(ws: Workspace, config: Config, *, compile_first: bool, with_index: bool = True) -> Wiki:
    """Open the workspace for a read: compiled first unless `compile_first` is off, with a
    progress bar on a terminal for the compile and for the search index's sync (an index built,
    or its vectors made again, takes a while). The caller closes it with a `with` block."""
    from skillwiki import api
    from skillwiki.cli import render

    with render.phases("Compiling", "Indexing") as (progress, indexing):
        if not compile_first:
            return api.open_wiki(
                ws, config, compile_first=False, with_index=with_index, indexing=indexing
            )
        return api.open_wiki(ws, config, progress=progress, indexing=indexing)
