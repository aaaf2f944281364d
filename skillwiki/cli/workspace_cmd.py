"""Commands that build the wiki: init, ingest, compile, status."""

# No `from __future__ import annotations` here: Typer reads every parameter's annotation each
# time the command starts, and annotations kept as strings are compiled and evaluated first.

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.cli import render
from skillwiki.cli.common import (
    ExpectOption,
    JsonOption,
    WorkspaceOption,
    chosen_workspace,
    open_workspace,
)
from skillwiki.errors import InputError

if TYPE_CHECKING:
    from skillwiki.api import CompileAnswer, IngestAnswer, StatusAnswer


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("ingest", no_args_is_help=True)(ingest)
    app.command("compile")(compile_)
    app.command("status")(status)


def init(ctx: typer.Context, workspace: WorkspaceOption = None) -> None:
    """Create .wiki/ (raw/, wiki/, index, log, config) here or in -w DIR; safe to run again.

    Examples:
      skillwiki init
      skillwiki init -w path/to/repo
    """
    from skillwiki.layout import init_workspace
    from skillwiki.workspace import WIKI_DIR

    ws, created = init_workspace(chosen_workspace(ctx, workspace) or Path(os.getcwd()))
    if created:
        render.echo(f"Initialised {ws.dot}", style="bold green")
        for path in created:
            render.echo(f"  created {path}")
        outer = next((p for p in ws.root.parents if (p / WIKI_DIR).is_dir()), None)
        if outer is not None:  # most likely run in a subfolder of the repository by mistake
            render.warn(
                f"{outer / WIKI_DIR} above is another workspace; commands run here use this "
                f"new one (remove {ws.dot} if you meant the one above)"
            )
    else:
        render.echo(f"Already initialised: {ws.dot} (nothing changed)")


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[str], typer.Argument(help="Files or folders, or - for stdin.")],
    name: Annotated[str | None, typer.Option(help="File name for stdin input.")] = None,
    title: Annotated[str | None, typer.Option(help="Set the title of the note(s).")] = None,
    tags: Annotated[str | None, typer.Option(help="Comma-separated tags to set.")] = None,
    summary: Annotated[str | None, typer.Option(help="Set the one-line summary.")] = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            metavar="GLOB",
            help="Of a folder, also take the files whose name or path below it matches "
            "(repeatable), e.g. '*.json'.",
        ),
    ] = None,
    all_text: Annotated[
        bool,
        typer.Option(
            "--all-text",
            help="Of a folder, take every text kind (code, data, config), not only Markdown "
            "and plain text.",
        ),
    ] = False,
    no_compile: Annotated[bool, typer.Option("--no-compile", help="Do not compile.")] = False,
    expect_fingerprint: ExpectOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy files, whole folders, or stdin into .wiki/raw/ (mirroring their paths), then compile.

    Of a folder, Markdown and plain-text files are taken (.md, .mdx, .markdown, .txt, .text,
    .rst, .adoc, .org); other files only with --include or --all-text, or named alone.
    Re-ingesting a file updates its raw copy in place; unchanged content writes nothing.

    Examples:
      skillwiki ingest docs/
      skillwiki ingest docs/ --include '*.json' --include 'examples/*.py'
      skillwiki ingest README.md notes/design.md --tags design,api
      echo "# Deploy notes" | skillwiki ingest - --name deploy.md
    """
    from skillwiki import api
    from skillwiki.ingest import STDIN

    ws, config = open_workspace(ctx, workspace)
    tag_list = tuple(tag.strip() for tag in (tags or "").split(",") if tag.strip())
    data = sys.stdin.buffer.read() if STDIN in paths else None
    with render.phases("Compiling", "Indexing") as (progress, indexing):
        answer = api.ingest(
            ws,
            config,
            paths,
            stdin=data,
            name=name,
            title=title,
            summary=summary,
            tags=tag_list,
            include=include or (),
            all_text=all_text,
            expected=expect_fingerprint,
            compile_after=not no_compile,
            progress=progress,
            indexing=indexing,
        )
    if as_json:
        render.print_json(answer.to_json())
    else:
        _print_ingested(answer)
    for refused in answer.result.refused:
        render.warn_free(f"refused {refused.path}: {refused.reason}")
    _raise_problems(answer.compiled)
    if answer.result.refused:
        raise typer.Exit(1)


def _print_ingested(answer: "IngestAnswer") -> None:
    result = answer.result
    for item in result.files:
        verb = "ingested" if item.changed else "unchanged"
        render.echo(f"{verb} {item.origin} -> .wiki/raw/{item.raw}")
    if result.skipped:
        render.echo(
            f"skipped {result.skipped} file(s) that are not Markdown or plain text "
            "(--include GLOB or --all-text takes them)"
        )
    if result.empty:
        render.echo(f"skipped {result.empty} empty file(s)")
    if result.ignored:
        render.echo(f"skipped {result.ignored} file(s) and folder(s) that .gitignore leaves out")
    if result.hidden:
        render.echo(f"skipped {result.hidden} hidden file(s) and folder(s) (named '.*')")
    for folder in result.environments:
        render.echo(f"skipped {folder}/: a virtual environment (pyvenv.cfg is in it)")
    if answer.compiled is not None:
        _print_compile(answer.compiled)


def compile_(
    ctx: typer.Context,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite hand-edited articles (a backup is kept).")
    ] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Bring wiki/ and the indexes up to date with raw/; when nothing changed, write nothing.

    Examples:
      skillwiki compile
      skillwiki compile --force
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    with render.phases("Compiling", "Indexing") as (progress, indexing):
        answer = api.compile(ws, config, force=force, progress=progress, indexing=indexing)
    if as_json:
        render.print_json(answer.to_json())
    else:
        _print_compile(answer)
    _raise_problems(answer)


def status(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 unless every article is fresh (for CI).")
    ] = False,
    not_fresh: Annotated[
        bool,
        typer.Option(
            "--not-fresh",
            help="With --json, list only the files that are not fresh (the totals count all).",
        ),
    ] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show the freshness of every raw file and article; never writes.

    Examples:
      skillwiki status
      skillwiki status --check
      skillwiki status --json --not-fresh
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    # Without --json, the files that are not fresh are listed, with the totals of every state.
    answer = api.status(ws, config, not_fresh=not_fresh or not as_json)
    if as_json:
        render.print_json(answer.to_json())
    else:
        _print_status(answer)
    if check and not answer.fresh:
        raise typer.Exit(1)


def _print_status(answer: "StatusAnswer") -> None:
    for item in answer.files:  # none of them fresh
        shown = item.raw if item.state == "new" and item.raw is not None else item.article
        render.echo(f"{item.state:<7} {shown}")
    for problem in answer.problems:
        render.warn(f"{problem.path}: {problem.message}")
    totals = ", ".join(f"{count} {state}" for state, count in answer.totals.items())
    render.echo(f"{sum(answer.totals.values())} articles: {totals}")
    for rule in answer.rules:
        render.echo(
            f"rule {rule.id}: {rule.status}, confidence {rule.confidence:.2f} "
            f"from {rule.support} outcome(s)"
        )


def _print_compile(answer: "CompileAnswer") -> None:
    result = answer.result
    for rel in result.kept_edited:
        render.warn(
            f".wiki/wiki/{rel} was edited by hand and was left as it is; "
            "move the change into raw/ or run 'skillwiki compile --force'"
        )
    for backup in result.backups:
        render.echo(f"backed up the hand-edited article to {backup}")
    from skillwiki.compiler import State

    counts = result.counts
    render.echo(
        f"compiled: {len(result.written)} written, {len(result.removed)} removed "
        f"({counts[State.NEW]} new, {counts[State.STALE]} stale, {counts[State.ORPHAN]} orphan, "
        f"{counts[State.EDITED]} edited, {counts[State.FRESH]} fresh)"
    )


def _raise_problems(answer: "CompileAnswer | None") -> None:
    """Warn of each raw file that could not be compiled but the first, which is the error."""
    if answer is None or not answer.problems:
        return
    problems = answer.problems
    for problem in problems[1:]:
        render.warn(f"{problem.path}: {problem.message}")
    first = problems[0]
    count = len(problems)
    prefix = f"{count} raw files could not be compiled; first: " if count > 1 else ""
    raise InputError(None, f"{prefix}{first.path}: {first.message}")
