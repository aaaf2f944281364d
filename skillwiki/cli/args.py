"""What the command line reads of its arguments before the CLI framework is imported: the
command they name, and the version line a lone `--version` is answered with."""

from __future__ import annotations


def version_line() -> str:
    """Return what `skillwiki --version` prints."""
    from skillwiki import __version__

    return f"skillwiki {__version__}"


def command_name(args: list[str]) -> str | None:
    """The command the arguments name, after the global options; None if unsure (`--help`)."""
    position = 0
    while position < len(args):
        arg = args[position]
        if arg in ("-w", "--workspace"):
            position += 2
        elif arg.startswith("--workspace=") or (arg.startswith("-w") and len(arg) > 2):
            position += 1
        elif arg.startswith("-"):
            return None
        else:
            return arg
    return None
