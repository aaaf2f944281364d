"""Human and JSON output. The only module that imports rich, and only on a colour terminal."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import typer


def fancy() -> bool:
    """Tell whether stdout is a terminal that may have colour (NO_COLOR and TERM=dumb say no)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def echo(text: str = "", style: str | None = None) -> None:
    """Print one line: styled on a colour terminal, plain everywhere else."""
    if style and fancy():
        from rich.console import Console
        from rich.text import Text

        Console(highlight=False, soft_wrap=True).print(Text(text, style=style))
    else:
        typer.echo(text)


def warn(text: str) -> None:
    typer.echo(f"Warning: {text}", err=True)


def warn_free(text: str) -> None:
    """Print a notice on stderr (stdout stays for the command's result)."""
    typer.echo(text, err=True)


def error(text: str) -> None:
    typer.echo(f"Error: {text}", err=True)


def print_json(value: Any) -> None:
    """Print `value` as indented JSON, keys in the order built, non-ASCII kept."""
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


@contextmanager
def progress(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a progress callback that draws a bar on a terminal; None when piped."""
    if not fancy():
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            if total >= 50:
                bar.update(task, completed=done, total=total)

        yield update
