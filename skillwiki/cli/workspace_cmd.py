"""Commands that build the wiki: init, ingest, compile, status."""

from __future__ import annotations

import os
import sys
from dataclasses import asdict
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
    from skillwiki.compiler import CompileResult, Plan
    from skillwiki.config import Config
    from skillwiki.ingest import IngestResult
    from skillwiki.workspace import Workspace


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
    no_compile: Annotated[bool, typer.Option("--no-compile", help="Do not compile.")] = False,
    expect_fingerprint: ExpectOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy files, whole folders, or stdin into .wiki/raw/ (mirroring their paths), then compile.

    Re-ingesting a file updates its raw copy in place; unchanged content writes nothing.

    Examples:
      skillwiki ingest docs/
      skillwiki ingest README.md notes/design.md --tags design,api
      echo "# Deploy notes" | skillwiki ingest - --name deploy.md
    """
    from skillwiki.api import file_fingerprint
    from skillwiki.ingest import STDIN, Overrides
    from skillwiki.ingest import ingest as run

    ws, config = open_workspace(ctx, workspace)
    tag_list = tuple(tag.strip() for tag in (tags or "").split(",") if tag.strip())
    data = sys.stdin.buffer.read() if STDIN in paths else None
    overrides = Overrides(title, summary, tag_list)
    result = run(
        ws, config, paths, stdin=data, name=name, overrides=overrides, expected=expect_fingerprint
    )
    compiled = None if no_compile else _compile(ws, config, force=False)
    if as_json:
        render.print_json(
            {
                "files": [
                    {**asdict(item), "fingerprint": file_fingerprint(ws.raw / item.raw, config)}
                    for item in result.files
                ],
                "skipped": result.skipped,
                "empty": result.empty,
                "environments": result.environments,
                "ignored": result.ignored,
                "refused": [asdict(item) for item in result.refused],
                "compile": None if compiled is None else _compile_json(ws, compiled),
            }
        )
    else:
        _print_ingested(result, compiled)
    for refused in result.refused:
        render.warn_free(f"refused {refused.path}: {refused.reason}")
    _raise_problems(compiled)
    if result.refused:
        raise typer.Exit(1)


def _print_ingested(result: IngestResult, compiled: CompileResult | None) -> None:
    for item in result.files:
        verb = "ingested" if item.changed else "unchanged"
        render.echo(f"{verb} {item.origin} -> .wiki/raw/{item.raw}")
    if result.skipped:
        render.echo(f"skipped {result.skipped} file(s) that are not Markdown or text")
    if result.empty:
        render.echo(f"skipped {result.empty} empty file(s)")
    if result.ignored:
        render.echo(f"skipped {result.ignored} file(s) and folder(s) that .gitignore leaves out")
    for folder in result.environments:
        render.echo(f"skipped {folder}/: a virtual environment (pyvenv.cfg is in it)")
    if compiled is not None:
        _print_compile(compiled)


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
    ws, config = open_workspace(ctx, workspace)
    result = _compile(ws, config, force=force)
    if as_json:
        render.print_json(_compile_json(ws, result))
    else:
        _print_compile(result)
    _raise_problems(result)


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
    from skillwiki.api import all_fresh, status_json
    from skillwiki.compiler import make_plan

    ws, config = open_workspace(ctx, workspace)
    plan = make_plan(ws, config)
    if as_json:
        render.print_json(status_json(ws, config, plan, not_fresh=not_fresh))
    else:
        _print_status(ws, config, plan)
    if check and not all_fresh(plan):
        raise typer.Exit(1)


def _print_status(ws: Workspace, config: Config, plan: Plan) -> None:
    from skillwiki.compiler import State, refused

    for entry in plan.others:  # sorted, none of them fresh
        shown = (
            f".wiki/raw/{entry.raw}" if entry.state is State.NEW else f".wiki/wiki/{entry.article}"
        )
        render.echo(f"{entry.state.value:<7} {shown}")
    for problem in refused(ws, config, plan):
        render.warn(f"{problem.path}: {problem.message}")
    counts = plan.count()
    totals = ", ".join(f"{counts[state]} {state.value}" for state in State)
    render.echo(f"{sum(counts.values())} articles: {totals}")


def _compile(ws: Workspace, config: Config, *, force: bool) -> CompileResult:
    from skillwiki.compiler import compile_workspace

    with render.progress("Compiling") as progress:
        return compile_workspace(ws, config, force=force, progress=progress)


def _compile_json(ws: Workspace, result: CompileResult) -> dict[str, object]:
    from skillwiki.compiler import State

    return {
        "counts": {state.value: result.counts[state] for state in State},
        "written": [f".wiki/wiki/{rel}" for rel in result.written],
        "removed": [f".wiki/wiki/{rel}" for rel in result.removed],
        "kept_edited": [f".wiki/wiki/{rel}" for rel in result.kept_edited],
        "backups": result.backups,
        "indexes_written": result.indexes_written,
        "problems": [asdict(problem) for problem in result.problems],
    }


def _print_compile(result: CompileResult) -> None:
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


def _raise_problems(result: CompileResult | None) -> None:
    if result is None or not result.problems:
        return
    for problem in result.problems[1:]:
        render.warn(f"{problem.path}: {problem.message}")
    first = result.problems[0]
    count = len(result.problems)
    prefix = f"{count} raw files could not be compiled; first: " if count > 1 else ""
    raise InputError(None, f"{prefix}{first.path}: {first.message}")
