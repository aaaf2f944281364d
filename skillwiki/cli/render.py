"""Human and JSON output. The only module that imports rich, and only on a colour terminal."""

from __future__ import annotations

import json
import os
import re
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


# Control characters but tab, newline and carriage return, C1 ones too: text from files
# (a title, a lesson) must not move the cursor, recolour or retitle the reader's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def inert(text: str) -> str:
    """`text` with its control characters shown as `\\xNN` instead of acting on a terminal."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def echo(text: str = "", style: str | None = None) -> None:
    """Print one line: styled on a colour terminal, plain everywhere else."""
    text = inert(text)
    if style and fancy():
        from rich.console import Console
        from rich.text import Text

        Console(highlight=False, soft_wrap=True).print(Text(text, style=style))
    else:
        typer.echo(text)


def warn(text: str) -> None:
    typer.echo(inert(f"Warning: {text}"), err=True)


def warn_free(text: str) -> None:
    """Print a notice on stderr (stdout stays for the command's result)."""
    typer.echo(inert(text), err=True)


def error(text: str) -> None:
    typer.echo(inert(f"Error: {text}"), err=True)


def print_json(value: Any) -> None:
    """Print `value` as indented JSON, keys in the order built, non-ASCII kept."""
    typer.echo(_C1.sub(_escaped, json.dumps(value, ensure_ascii=False, indent=2)))


_C1 = re.compile(r"[\x7f-\x9f]")  # JSON leaves these as they are; a terminal may not


def _escaped(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def text(value: str, *, err: bool = False, nl: bool = True) -> None:
    """Print a document's text (an article, a block) with its control characters inert."""
    typer.echo(inert(value), err=err, nl=nl)


@contextmanager
def progress(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a progress callback that draws a bar on a terminal; None when piped."""
    with phases(label) as (update,):
        yield update


@contextmanager
def phases(*labels: str) -> Iterator[tuple[Callable[[int, int], None] | None, ...]]:
    """Yield a progress callback for each step of a command (`Compiling`, then `Indexing`),
    each drawing its own bar on a terminal once it has 50 items or more to go through; each
    None when piped."""
    if not fancy():
        yield tuple(None for _ in labels)
        return
    from rich.progress import Progress, TaskID

    with Progress(transient=True) as bar:

        def bar_of(task: TaskID) -> Callable[[int, int], None]:
            def update(done: int, total: int) -> None:
                if total >= 50:
                    bar.update(task, completed=done, total=total, visible=True)

            return update

        yield tuple(bar_of(bar.add_task(label, total=None, visible=False)) for label in labels)
