"""The command line: parse, call one core function, render. The only place that prints."""

from __future__ import annotations

import sys

from skillwiki.cli.args import command_name, version_line


def main() -> None:
    """Run the command line.

    A lone `--version` is answered before the CLI framework is imported: it is what scripts
    call to check the tool is there, and importing Typer alone costs more than the answer.
    So is a read or a hook that the workspace's server (`skillwiki serve`) answers
    (skillwiki.channel), and a hook in the plain form clients call it in (cli/hook_run.py).
    Every other call goes through Typer.
    """
    command = command_name(sys.argv[1:]) or ""
    if not _streams_open(command):
        _exit(0 if command == "hook" else 2)
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(version_line() + "\n")
        return
    import gc

    # A run is short and makes few reference cycles: collect them rarely (a tenth of the
    # start-up of a query went to collections while Typer and the modules were imported).
    gc.set_threshold(50_000, 20, 20)
    answered: int | None = None
    out_of_time: tuple[type[BaseException], ...] = ()  # the hook's budget (signal, enum)
    warning = None
    try:
        if command == "hook":
            from skillwiki.cli import budget

            out_of_time = (budget.OutOfTime,)
            # Before the imports: the budget bounds the whole process. Its warning is said by
            # whoever answers: a server says it in its answer.
            warning = budget.arm(hard=True, quiet=True)
        from skillwiki import channel

        answered = channel.ask(sys.argv[1:], command)
        if answered is None:
            if warning is not None:
                sys.stderr.write(warning + "\n")
            _run(command)
        status = answered or 0
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except out_of_time:  # a hook out of time prints nothing and gets out of the way
        _exit(0)
    if command == "hook" and answered is None:
        _start_server(sys.argv[1:])
    _exit(status)


def _run(command: str) -> None:
    """Run the command here: a hook in its plain form without Typer (cli/hook_run.py), any
    other call through Typer."""
    if command == "hook":
        from skillwiki.cli import hook_run

        call = hook_run.plain_form(sys.argv[1:])
        if call is not None:
            hook_run.run(call)
            return
    from skillwiki.cli.app import main as run

    run()


def _streams_open(command: str) -> bool:
    """Whether the command can say what it has to: a standard stream the caller closed
    (`>&-`) is none at all. What is written to a closed stderr is dropped (the exit status
    still tells); so is what a hook writes to a closed stdout: it prints nothing, as it does
    on any error. For another command a closed stdout is an error: its answer would be lost."""
    import io

    if sys.stderr is None:
        sys.stderr = io.StringIO()
    if sys.stdout is not None:
        return True
    if command == "hook":
        sys.stdout = io.StringIO()
        return True
    sys.stderr.write("Error: standard output is closed; nothing could be printed\n")
    return False


def _start_server(args: list[str]) -> None:
    """After a hook that no server answered, start the workspace's in the background,
    detached, ending after `[serve] idle` seconds without a request, where its settings ask
    for one (`[serve] on_demand`). Never in the hook's way: a server already running refuses
    to start again, and any failure is silent."""
    from skillwiki import channel

    root = channel.workspace_root(args, "hook") if channel.servable() else None
    if root is None:
        return
    try:
        import subprocess
        from pathlib import Path

        from skillwiki.config import load_config

        settings = load_config(Path(root, ".wiki", "config.toml")).serve
        if settings.on_demand:
            command = [sys.executable, "-m", "skillwiki", "-w", root, "serve"]
            subprocess.Popen(
                [*command, "--idle", f"{settings.idle:g}"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
    except Exception:  # noqa: BLE001 - a hook fails silently
        return


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
            if stream is not None:
                stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away, or the stream is closed
            status = status or 1
    os._exit(status)
