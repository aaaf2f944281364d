"""The command line: parse, call one core function, render. The only place that prints."""

from __future__ import annotations

import sys


def version_line() -> str:
    """Return what `skillwiki --version` prints."""
    from skillwiki import __version__

    return f"skillwiki {__version__}"


def main() -> None:
    """Run the command line.

    A lone `--version` is answered before the CLI framework is imported: it is what scripts
    call to check the tool is there, and importing Typer alone costs more than the answer.
    Every other call, `--version` among other options included, goes through Typer.
    """
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(version_line() + "\n")
        return
    from skillwiki.cli.app import main as run

    run()
