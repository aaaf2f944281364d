"""The command line: parse, call one core function, render. The only place that prints."""

from __future__ import annotations

import sys

from skillwiki.cli.args import command_name, version_line


def main() -> None:
    """Run the command line.

    A lone `--version` is answered before the CLI framework is imported: it is what scripts
    call to check the tool is there, and importing Typer alone costs more than the answer.
    Every other call, `--version` among other options included, goes through Typer.
    """
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(version_line() + "\n")
        return
    import gc

    from skillwiki.cli import budget

    # A run is short and makes few reference cycles: collect them rarely (a tenth of the
    # start-up of a query went to collections while Typer and the modules were imported).
    gc.set_threshold(50_000, 20, 20)
    try:
        if command_name(sys.argv[1:]) == "hook":
            budget.arm(hard=True)  # before the imports: the budget bounds the whole process
        from skillwiki.cli.app import main as run

        run()
        status: int = 0
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except budget.OutOfTime:  # a hook out of time prints nothing and gets out of the way
        status = 0
    _exit(status)


def _exit_status(code: object) -> int:
    """The process status for a SystemExit code, as Python itself would make it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _exit(status: int) -> None:
    """Flush the output and end the process without tearing the interpreter down.

    Every file skillwiki writes is complete and closed before this point (atomic writes, the
    lock released by the kernel), so the only work left to Python's shutdown is freeing every
    module and object one by one: a tenth of a no-change query.
    """
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away, or the stream is closed
            status = status or 1
    os._exit(status)
