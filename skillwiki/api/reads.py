"""The reads: query and show, and the workspace opened for them.

A read is made on an opened workspace (`Opened`): the command line opens one for its single
call (`open_wiki`), the MCP server keeps one open between calls (server.live.Reading has the
same fields). Each answer is a frozen value whose `to_json()` is what `--json` prints and
what the MCP tool returns; `notices` is what the face says beside it (the CLI as warnings on
stderr, the server in a block of its own), never part of the JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from skillwiki.api.kept import keeper

if TYPE_CHECKING:
    import sqlite3

    from skillwiki.compiler import Problem, Progress
    from skillwiki.config import Config
    from skillwiki.reading import Shown
    from skillwiki.search import Hit, VectorCache
    from skillwiki.workspace import Workspace

LIMIT_MAX = 1000  # the most hits a query shows, from the command line or the MCP server


class ArticleType(StrEnum):
    """What a query may be narrowed to."""

    document = "document"
    lesson = "lesson"


class Opened(Protocol):
    """A workspace opened for reading: its search index in step with the articles (None: each
    read opens what it needs), and what bringing it up to date did."""

    @property
    def ws(self) -> Workspace: ...
    @property
    def config(self) -> Config: ...
    @property
    def index(self) -> sqlite3.Connection | None: ...
    @property
    def refreshed(self) -> int: ...
    @property
    def skipped(self) -> str | None: ...
    @property
    def problems(self) -> Sequence[Problem]: ...
    @property
    def vectors(self) -> VectorCache | None: ...


@dataclass(frozen=True)
class Wiki:
    """A workspace opened for one call; a `with` block around it closes its index."""

    ws: Workspace
    config: Config
    index: sqlite3.Connection | None = None
    refreshed: int = 0
    skipped: str | None = None  # why nothing was compiled, when a writer was at work
    problems: Sequence[Problem] = ()
    vectors: VectorCache | None = None
    owned: bool = True  # the `with` block closes the index; a kept one stays open

    def __enter__(self) -> Wiki:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.index is not None and self.owned:
            self.index.close()


def open_wiki(
    ws: Workspace,
    config: Config,
    *,
    compile_first: bool = True,
    with_index: bool = True,
    progress: Progress | None = None,
    indexing: Progress | None = None,
) -> Wiki:
    """Open the workspace for a read: compile what changed and bring the search index in step
    (reading.refresh; or the workspace a process keeps open, api.kept), or with
    `compile_first` off, open the index as the last compile left it (reading.as_compiled;
    `with_index` off: none, each read opens what it needs). `progress` follows the compile,
    `indexing` the search index's sync."""
    from skillwiki.reading import as_compiled, refresh

    keep = keeper.get() if compile_first else None
    kept = None if keep is None else keep.kept(ws.root)
    if kept is not None:
        problems = tuple(kept.problems)
        return Wiki(
            kept.ws,
            kept.config,
            kept.index,
            kept.refreshed,
            kept.skipped,
            problems,
            kept.vectors,
            owned=False,
        )
    if compile_first:
        done = refresh(ws, config, progress, indexing=indexing)
        return Wiki(ws, config, done.index, done.refreshed, done.skipped, tuple(done.problems))
    if not with_index:
        return Wiki(ws, config)
    return Wiki(ws, config, as_compiled(ws, config, indexing))


def opened_notices(wiki: Opened) -> tuple[str, ...]:
    """What opening the workspace has to say beside any answer: why nothing was compiled, and
    each raw file that could not be."""
    from skillwiki.reading import notices

    return tuple(notices(wiki.skipped, wiki.problems))


@dataclass(frozen=True)
class QueryAnswer:
    """The ranked hits for a query, and how many articles were compiled first."""

    query: str
    refreshed: int
    hits: tuple[Hit, ...]
    explain: bool = False  # the JSON says what ranked each hit
    notices: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """`query --json`: the query, how many articles were compiled first, and the hits (each
        with the other copies of its page found, where it has any)."""
        return {
            "query": self.query,
            "refreshed": self.refreshed,
            "results": [hit.to_json(self.explain) for hit in self.hits],
        }


def query(
    wiki: Opened,
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    tags: Sequence[str] = (),
    include_hidden: bool = False,
    explain: bool = False,
) -> QueryAnswer:
    """Search the compiled articles for `text`, best first (each lone surrogate in it, an
    undecodable byte of a command-line argument, searched and echoed as U+FFFD)."""
    from skillwiki.reading import query_notices
    from skillwiki.search import search
    from skillwiki.search.copies import Copies
    from skillwiki.search.text import well_formed

    text = well_formed(text)

    hits = search(
        wiki.ws,
        text,
        limit=limit,
        kind=kind,
        tags=tuple(tags),
        include_hidden=include_hidden,
        db=wiki.index,
        vectors=wiki.vectors,
        copies=Copies(tuple(wiki.config.lint.copies), tuple(wiki.config.search.prefer)),
    )
    notices = (*opened_notices(wiki), *query_notices(text))
    return QueryAnswer(text, wiki.refreshed, tuple(hits), explain, notices)


@dataclass(frozen=True)
class ShowAnswer:
    """One article in full; with `max_chars`, its JSON body is cut there."""

    shown: Shown
    max_chars: int | None = None
    notices: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The article's file as it is: what `show` prints without --json."""
        return self.shown.text

    def to_json(self) -> dict[str, Any]:
        """`show --json`: the article's path, frontmatter, body, raw file and its fingerprint.
        With `max_chars`, the body is cut there and `truncated` says whether it was."""
        shown = self.shown
        answer: dict[str, Any] = {"path": shown.path, "meta": shown.meta}
        if self.max_chars is None:
            answer["body"] = shown.body
        else:
            answer["body"] = shown.body[: self.max_chars]
            answer["truncated"] = len(shown.body) > self.max_chars
        answer["source"] = shown.source
        answer["fingerprint"] = shown.fingerprint
        return answer


def show(wiki: Opened, key: str, *, max_chars: int | None = None) -> ShowAnswer:
    """Read one article or lesson, by lesson id, article path or raw path."""
    from skillwiki.reading import show as find

    shown = find(wiki.ws, key, wiki.config.fingerprint)
    return ShowAnswer(shown, max_chars, opened_notices(wiki))
