"""The skillwiki command: global options, the command modules, and the one error handler."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from skillwiki.cli import (
    lessons_cmd,
    lint_cmd,
    memory_cmd,
    read_cmd,
    version_line,
    workspace_cmd,
)
from skillwiki.cli.coerce import FastCommand, FastGroup
from skillwiki.cli.common import WorkspaceOption
from skillwiki.cli.render import error
from skillwiki.errors import SkillwikiError


class _Group(FastGroup):
    """Turns a SkillwikiError from any command into one `Error:` line and its exit code."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except SkillwikiError as exc:
            error(exc.message)
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    cls=_Group,
    name="skillwiki",
    help="A repository's institutional memory: notes and lessons as a Markdown wiki in .wiki/.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    workspace: WorkspaceOption = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Keep what a repository learned as reviewable Markdown under .wiki/.

    Examples:
      skillwiki init
      skillwiki ingest docs/
      skillwiki query "tool failure retry"
    """
    ctx.obj = workspace


for module in (workspace_cmd, read_cmd, lessons_cmd, memory_cmd, lint_cmd):
    module.register(app)
for info in app.registered_commands:
    info.cls = FastCommand


def main() -> None:
    """Run the command line."""
    app()


__all__ = ["Path", "app", "main"]
