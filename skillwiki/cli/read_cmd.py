"""Commands that read the wiki: query and show."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.api import LIMIT_MAX, ArticleType
from skillwiki.cli import render
from skillwiki.cli.common import JsonOption, NoCompileOption, WorkspaceOption, open_workspace

if TYPE_CHECKING:
    from skillwiki.reading import Refresh


def register(app: typer.Typer) -> None:
    app.command("query", no_args_is_help=True)(query)
    app.command("show", no_args_is_help=True)(show)


def query(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="What you are looking for, in plain words.")],
    limit: Annotated[int, typer.Option(min=1, max=LIMIT_MAX, help="How many hits at most.")] = 10,
    kind: Annotated[
        ArticleType | None, typer.Option("--type", help="Only documents or only lessons.")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="Only articles with this tag (repeatable).")
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="Include archived and superseded lessons.")
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Say what ranked each hit: words held, BM25, pages referring to it."
        ),
    ] = False,
    no_compile: NoCompileOption = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the compiled articles, best first, after bringing the wiki up to date.

    Examples:
      skillwiki query "tool failure retry"
      skillwiki query 重试 --type lesson
      skillwiki query "deploy" --tag ci --limit 3 --json
      skillwiki query "sync two folders" --explain
    """
    from skillwiki.api import query_json
    from skillwiki.reading import query as run
    from skillwiki.reading import query_notices

    ws, config = open_workspace(ctx, workspace)
    with render.progress("Compiling") as progress:
        hits, done = run(
            ws,
            config,
            text,
            limit=limit,
            kind=kind.value if kind else None,
            tags=tag or (),
            include_hidden=show_all,
            compile_first=not no_compile,
            progress=progress,
        )
    _warn_problems(done)
    for notice in query_notices(text):
        render.warn(notice)
    if as_json:
        render.print_json(query_json(text, done.refreshed, hits, explain))
        return
    if not hits:
        render.echo(f"No results for {text!r}.")
    for number, hit in enumerate(hits, start=1):
        render.echo(f"{number}. {hit.title}  [{hit.type}, {hit.score:.2f}]", style="bold")
        render.echo(f"   {hit.path}", style="cyan")
        if hit.snippet:
            render.echo(f"   {hit.snippet}")
        if explain and hit.signals is not None:
            signals = hit.signals
            together = "" if signals.near is None else f" ({signals.near} close together)"
            render.echo(
                f"   ranked by: {signals.words} of the query's words{together}, "
                f"BM25 {signals.bm25:.2f}, "
                f"referred to by {signals.referred_by} (BM25 ×{signals.boost:.2f})",
                style="dim",
            )
            if signals.fused:
                text_place = f"#{signals.text_rank}" if signals.text_rank else "not among"
                meaning = f"#{signals.semantic_rank}" if signals.semantic_rank else "not among"
                similar = (
                    "" if signals.similarity is None else f" (similarity {signals.similarity:.2f})"
                )
                render.echo(
                    f"   fused: {text_place} by words, {meaning} by meaning{similar}", style="dim"
                )


def show(
    ctx: typer.Context,
    key: Annotated[
        str, typer.Argument(metavar="ID-OR-PATH", help="Lesson id, article or raw path.")
    ],
    no_compile: NoCompileOption = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print one article or lesson in full.

    Examples:
      skillwiki show 2026-11-30-telegram-send-missing
      skillwiki show .wiki/wiki/docs/design.md
      skillwiki show raw/docs/design.md --json
    """
    from skillwiki.api import show_json
    from skillwiki.reading import refresh
    from skillwiki.reading import show as run

    ws, config = open_workspace(ctx, workspace)
    if not no_compile:
        with render.progress("Compiling") as progress:
            with refresh(ws, config, progress) as done:
                pass  # compiled and the search index in step: nothing more to read from it
        _warn_problems(done)
    shown = run(ws, key, config.fingerprint)
    if as_json:
        render.print_json(show_json(shown))
    else:
        render.text(shown.text, nl=False)


def _warn_problems(done: Refresh) -> None:
    from skillwiki.reading import notices

    for notice in notices(done.skipped, done.problems):
        render.warn(notice)
