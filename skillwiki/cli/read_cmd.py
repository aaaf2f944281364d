"""Commands that read the wiki: query and show."""

# No `from __future__ import annotations` here: Typer reads every parameter's annotation each
# time the command starts, and annotations kept as strings are compiled and evaluated first.

from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.api import LIMIT_MAX, ArticleType
from skillwiki.cli import render
from skillwiki.cli.common import JsonOption, NoCompileOption, WorkspaceOption, open_wiki

if TYPE_CHECKING:
    from skillwiki.search import Hit

# How much of a query "No results" quotes back, at most.
QUOTED_MAX = 80


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
        bool,
        typer.Option("--all", help="Include archived and superseded lessons, and retired rules."),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Say what ranked each hit: words held, BM25, pages referring to it, its places.",
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
    from skillwiki import api

    with open_wiki(ctx, workspace, compile_first=not no_compile) as wiki:
        answer = api.query(
            wiki,
            text,
            limit=limit,
            kind=kind.value if kind else None,
            tags=tag or (),
            include_hidden=show_all,
            explain=explain,
        )
    for notice in answer.notices:
        render.warn(notice)
    if as_json:
        render.print_json(answer.to_json())
        return
    if not answer.hits:
        shown = text if len(text) <= QUOTED_MAX else text[: QUOTED_MAX - 1] + "…"
        render.echo(f"No results for {shown!r}.")  # a pasted log is not printed back whole
    for number, hit in enumerate(answer.hits, start=1):
        _print_hit(number, hit, explain)


def _print_hit(number: int, hit: "Hit", explain: bool) -> None:
    """One hit: its title, type and score, its path and snippet, the paths of its page's other
    copies; with `explain`, what ranked it."""
    render.echo(f"{number}. {hit.title}  [{hit.type}, {hit.score:.2f}]", style="bold")
    render.echo(f"   {hit.path}", style="cyan")
    if hit.snippet:
        render.echo(f"   {hit.snippet}")
    if hit.copies:
        render.echo(f"   also at: {', '.join(hit.copies)}", style="cyan")
    signals = hit.signals
    if not explain or signals is None:
        return
    together = "" if signals.near is None else f" ({signals.near} close together)"
    render.echo(
        f"   ranked by: {signals.words} of the query's words{together}, "
        f"BM25 {signals.bm25:.2f}, "
        f"referred to by {signals.referred_by} (BM25 ×{signals.boost:.2f})",
        style="dim",
    )
    if signals.proximity_rank is not None:
        render.echo(
            f"   text order: #{signals.proximity_rank} by words held together, "
            f"#{signals.bm25_rank} by BM25",
            style="dim",
        )
    if signals.fused:
        places = [f"{_place(signals.text_rank)} by text"]
        places.append(
            f"{_place(signals.semantic_rank)} by word vectors{_similar(signals.similarity)}"
        )
        if signals.sentence_rank is not None or signals.sentence_similarity is not None:
            places.append(
                f"{_place(signals.sentence_rank)} by sentences"
                f"{_similar(signals.sentence_similarity)}"
            )
        render.echo(f"   fused: {', '.join(places)}", style="dim")


def _place(rank: int | None) -> str:
    """A place in a ranking as --explain says it."""
    return "not among" if rank is None else f"#{rank}"


def _similar(similarity: float | None) -> str:
    """A cosine similarity as --explain says it, if there is one."""
    return "" if similarity is None else f" (similarity {similarity:.2f})"


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
    from skillwiki import api

    wiki = open_wiki(ctx, workspace, compile_first=not no_compile, with_index=False)
    with wiki:  # compiled and the search index in step: nothing more to read from it
        pass
    for notice in api.opened_notices(wiki):
        render.warn(notice)
    answer = api.show(wiki, key)
    if as_json:
        render.print_json(answer.to_json())
    else:
        render.text(answer.text, nl=False)
