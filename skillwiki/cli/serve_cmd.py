"""serve: keep the workspace open for the command line's reads and hooks, on a unix socket."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Annotated, Any

import typer

from skillwiki.cli.common import WorkspaceOption, open_workspace
from skillwiki.errors import InputError


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    ctx: typer.Context,
    idle: Annotated[
        float,
        typer.Option(
            min=0, help="End after this many seconds without a request (0: never).", metavar="S"
        ),
    ] = 0,
    stop: Annotated[
        bool, typer.Option("--stop", help="End the workspace's server, if one runs, and exit.")
    ] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Keep the workspace open and answer query, status, show, recall and hook from it.

    Runs in the foreground until Ctrl-C, SIGTERM, `skillwiki serve --stop` or --idle
    seconds without a request. Those commands, run where no standard stream is a terminal,
    ask the server first (on .wiki/.cache/serve.sock) and do the work themselves when it
    does not answer; the answer is the same bytes either way.

    Examples:
      skillwiki serve
      skillwiki serve --idle 1800 -w path/to/repo &
      skillwiki serve --stop
    """
    from skillwiki.cli import render
    from skillwiki.server.serve import Server
    from skillwiki.server.serve import serve as answer_requests
    from skillwiki.server.serve import stop as stop_server

    if not math.isfinite(idle):  # the range lets nan through, and inf is no time
        raise InputError(None, f"--idle must be a number of seconds, 0 or more, not {idle}")
    ws, _ = open_workspace(ctx, workspace)
    if stop:
        render.warn_free(stop_server(ws.root))
        return
    answer_requests(Server(ws.root, Runner()), idle=idle, say=_say(os.dup(2)))


def _say(descriptor: int) -> Callable[[str], None]:
    """Print a line of the server's own on `descriptor` (its stderr as it started)."""

    def say(line: str) -> None:
        os.write(descriptor, (line + "\n").encode(errors="replace"))

    return say


class Runner:
    """Run the command line on a request's arguments in this process, as `skillwiki.cli.main`
    would in the client's. Each command's parser is built once (Typer's `get_command`) and
    kept: building it took about a millisecond a request, a tenth of what the server spent
    on a query on tldr."""

    def __init__(self) -> None:
        self._commands: dict[str, Any] = {}

    def __call__(self, args: list[str], argv0: str, package: str | None) -> int:
        """The exit status of the command on `args`; `argv0` and `package` (the client's
        `__main__` module's) name the program as the client's usage lines name it. Only the
        commands a client asks a server for are run (ValueError for another: its client gets
        no answer, and runs it itself)."""
        from skillwiki import channel
        from skillwiki.cli import _exit_status, budget
        from skillwiki.cli.args import command_name

        name = command_name(args)
        if name not in channel.SERVED:
            raise ValueError(f"not a command a server answers: {args[:1]}")
        try:
            self._command(name)(args=args, prog_name=_program(argv0, package))
            status = 0
        except SystemExit as exc:
            status = _exit_status(exc.code)
        except budget.OutOfTime:
            status = 0
        finally:
            budget.disarm()
        return status

    def _command(self, name: str) -> Any:
        """The click command Typer builds for the command line with `name` alone."""
        command = self._commands.get(name)
        if command is None:
            from typer.main import get_command

            from skillwiki.cli.app import make_app

            command = self._commands[name] = get_command(make_app(name))
        return command


def _program(argv0: str, package: str | None) -> str:
    """The program's name in usage lines, as click makes it from argv[0] and `__main__`'s
    package: the file's name, or `python -m package`."""
    if not package:
        return os.path.basename(argv0)
    name = os.path.splitext(os.path.basename(argv0))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"
