"""The skillwiki command: global options, the command modules, and the one error handler."""

from __future__ import annotations

import errno
import importlib
import inspect
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from skillwiki.cli.args import command_name, version_line
from skillwiki.cli.coerce import FastCommand, FastGroup, UsageError
from skillwiki.cli.common import WorkspaceOption
from skillwiki.cli.render import error, warn
from skillwiki.errors import SkillwikiError

_STORAGE_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


class _Group(FastGroup):
    """Turns a SkillwikiError or a usage error from any command into one `Error:` line and its
    exit code."""

    def make_context(self, info_name: str | None, args: list[str], *rest: Any, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, *rest, **extra)
        except UsageError as exc:
            raise one_line(exc) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            plain = one_line(exc)
            if plain is not exc and ctx.invoked_subcommand == "hook":
                # A hook never gets in the agent's way: a client takes exit status 2 from a
                # hook as a block (of the tool call, the prompt, the stop).
                warn(f"no hook answered: {plain.format_message()}")
                raise typer.Exit(0) from None
            raise plain from None
        except SkillwikiError as exc:
            error(exc.message)
            raise typer.Exit(exc.exit_code) from None
        except OSError as exc:
            if exc.errno not in _STORAGE_FULL:
                raise
            # Every write is atomic: what did not fit was never put in place.
            where = f" writing {exc.filename}" if exc.filename else ""
            error(f"no space left{where} ({exc.strerror}); free some space and run it again")
            raise typer.Exit(2) from None


def one_line(exc: Any) -> Any:
    """A usage error (an unknown option or command, a bad value) shown as one `Error:` line
    that names the help to read, instead of Click's usage, hint and blank line before it.

    A command called without its arguments still shows its help (`no_args_is_help`)."""
    if exc.ctx is None or type(exc).__name__ == "NoArgsIsHelpError":
        return exc
    plain = UsageError(f"{exc.format_message().rstrip('.')} (see '{exc.ctx.command_path} --help')")
    plain.exit_code = exc.exit_code
    return plain


def _version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


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


# Each command, and the module that defines and registers it (a test holds the two in step).
COMMANDS = {
    "init": "workspace_cmd",
    "ingest": "workspace_cmd",
    "compile": "workspace_cmd",
    "status": "workspace_cmd",
    "query": "read_cmd",
    "show": "read_cmd",
    "record-lesson": "lessons_cmd",
    "record-rule": "lessons_cmd",
    "suggest": "memory_cmd",
    "recall": "memory_cmd",
    "feedback": "memory_cmd",
    "review": "memory_cmd",
    "maintain": "memory_cmd",
    "lint": "lint_cmd",
    "hook": "hook_cmd",
    "mcp": "mcp_cmd",
    "serve": "serve_cmd",
}


def make_app(only: str | None = None) -> typer.Typer:
    """Build the skillwiki command, with every command or only the one named `only`.

    Typer builds the parser of every registered command on each call, and each command
    module has imports of its own: a call that names its command needs only that one.
    """
    app = typer.Typer(
        cls=_Group,
        name="skillwiki",
        help="A repository's institutional memory: notes and lessons as a Markdown wiki in .wiki/.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_show_locals=False,
        rich_markup_mode=None,
    )
    app.callback()(root)
    names = [COMMANDS[only]] if only in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in names:
        importlib.import_module(f"skillwiki.cli.{name}").register(app)
    if only in COMMANDS:
        app.registered_commands = [i for i in app.registered_commands if i.name == only]
    for info in app.registered_commands:
        info.cls = FastCommand
        if info.callback is not None and info.help is None:
            info.help = keep_examples(inspect.getdoc(info.callback) or "")
    return app


def keep_examples(doc: str) -> str:
    """A command's docstring as its help, its `Examples:` paragraph kept line by line (click
    rewraps every paragraph but one marked with a `\\b` line)."""
    return doc.replace("\n\nExamples:\n", "\n\n\b\nExamples:\n")


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole command, for tests and documentation tools
        return make_app()
    raise AttributeError(name)


def main() -> None:
    """Run the command line."""
    make_app(command_name(sys.argv[1:]))()


__all__ = ["COMMANDS", "Path", "command_name", "main", "make_app"]
