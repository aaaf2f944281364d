"""The tools: the reads (query, show), the memory (recall, status, suggest, maintain) and,
unless the server is read-only, the writes (record_lesson, feedback, record_rule). Each calls
one function of skillwiki.api and answers with its value's JSON form: the object the CLI
prints for `--json`."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from skillwiki import api
from skillwiki.api import LIMIT_MAX, ArticleType
from skillwiki.kinds import Outcome, Scope, Severity, Trigger
from skillwiki.server._sdk import read_as_sent
from skillwiki.server.answers import (
    answer,
    declared_roots,
    noted,
    read_answer,
    transcript_inside,
)
from skillwiki.server.app import AS_THEY_ARE, COMPILES_FIRST, WikiServer
from skillwiki.server.live import LiveWorkspace, Reading

if TYPE_CHECKING:
    from skillwiki.config import Config
    from skillwiki.workspace import Workspace

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
# A read that compiles the raw files changed since before it answers, where the server may
# write: it writes, but only what skillwiki generates (an article edited by hand is backed up
# first), and a second call finds nothing more to do. recall also counts what it showed.
LOOK = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
COUNT = LOOK.model_copy(update={"idempotent_hint": False})
SHOW_CHARS = 20_000
Tool = TypeVar("Tool", bound=Callable[..., Any])


def register(
    server: MCPServer[Any], annotations: ToolAnnotations, compiles: str = ""
) -> Callable[[Tool], Tool]:
    """Register a tool with its docstring, dedented, and `compiles` (whether it compiles
    first), as the description a model reads."""

    def add(function: Tool) -> Tool:
        description = " ".join(filter(None, [inspect.getdoc(function) or "", compiles]))
        server.tool(description=description, annotations=annotations)(function)
        read_as_sent(server, function.__name__)
        return function

    return add


def register_read(
    server: WikiServer, annotations: ToolAnnotations = LOOK
) -> Callable[[Tool], Tool]:
    """Register a read that compiles first where the server may write: its annotations and
    the end of its description say whether it does."""
    if server.workspace.read_only:
        return register(server, READ, AS_THEY_ARE)
    return register(server, annotations, COMPILES_FIRST)


def reading_tools(server: WikiServer) -> None:
    live = server.workspace

    @register_read(server)
    async def query(
        text: str,
        limit: Annotated[int, Field(ge=1, le=LIMIT_MAX)] = 10,
        type: ArticleType | None = None,
        tag: list[str] | None = None,
        include_hidden: bool = False,
        explain: bool = False,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Search the wiki's compiled articles and lessons, best first. Use it before answering
        a question about this project; `type` narrows to "document" or "lesson", each `tag`
        must be on the article; `explain` adds what ranked each hit."""

        def work(read: Reading) -> dict[str, Any]:
            value = api.query(
                read,
                text,
                limit=limit,
                kind=type,
                tags=tag or (),
                include_hidden=include_hidden,
                explain=explain,
            )
            return noted(value.to_json(), value.notices)

        return await read_answer(work, live, ctx)

    @register_read(server)
    async def show(
        key: str,
        max_chars: Annotated[int, Field(ge=1)] = SHOW_CHARS,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Read one article or lesson in full, by its path (`docs/ci.md`, `raw/docs/ci.md`) or a
        lesson's id. Bodies longer than `max_chars` are cut, and `truncated` says so."""

        def work(read: Reading) -> dict[str, Any]:
            value = api.show(read, key, max_chars=max_chars)
            return noted(value.to_json(), value.notices)

        return await read_answer(work, live, ctx)


def memory_tools(server: WikiServer) -> None:
    live = server.workspace

    @register_read(server, COUNT)
    async def recall(
        agent: str | None = None,
        tag: list[str] | None = None,
        path: list[str] | None = None,
        task: str | None = None,
        budget: Annotated[int | None, Field(ge=1)] = None,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """The known failures of this repository that concern a task, as a block to keep in
        mind before starting it: give the agent's name, the task in plain words, the files
        (or globs) it touches and its topics. Only active, finished lessons, best first (counted
        for maintain, unless the server is read-only)."""

        def work(read: Reading) -> dict[str, Any]:
            value = api.recall(
                read,
                agent=agent,
                tags=tag or (),
                paths=path or (),
                task=task,
                budget=budget,
                count=not live.read_only,
            )
            return noted(value.to_json(), value.notices)

        return await read_answer(work, live, ctx)

    @register(server, READ)
    async def status(
        not_fresh: bool = True, ctx: Context[Any, Any] | None = None
    ) -> dict[str, Any]:
        """Whether every article is fresh (compiled from its raw file as it is now): the totals
        of each state, the files that are not fresh (with `not_fresh` false, every file, as
        `status --json` lists them: thousands on a big wiki), the raw files that cannot be
        compiled, and the catalog's fingerprint (for record_lesson's expect_fingerprint)."""

        def work() -> dict[str, Any]:
            ws, config = live.lookup.open()
            return api.status(ws, config, not_fresh=not_fresh).to_json()

        return await answer(work, live.lookup, ctx)

    @register(server, READ)
    async def suggest(
        feedback: dict[str, Any], ctx: Context[Any, Any] | None = None
    ) -> dict[str, Any]:
        """Say whether a run's feedback calls for a lesson: `feedback` holds task, agent,
        tool_calls ([{tool, success, error}]; one with an error failed unless success is
        true), replans, retries, cost_usd, max_cost_usd, confidence, rejected; or a hook
        payload, whose transcript_path is read only inside the workspace or a root the client
        declared. A proposal carries `record_lesson`: the arguments to call that tool with,
        only after the user agreed (and `command`, the same as a command line). Never
        writes."""
        named = feedback.get("transcript_path")
        roots = await declared_roots(ctx) if isinstance(named, str) and named else []

        def work() -> dict[str, Any]:
            ws, config = live.lookup.open()
            given = feedback
            if isinstance(named, str) and named:
                given = {**feedback, "transcript_path": transcript_inside(named, ws.root, roots)}
            value = api.suggest(given, config.suggest, where="feedback")
            return value.to_json(arguments=True)

        return await answer(work, live.lookup, ctx)


def writing_tools(server: WikiServer) -> None:
    live = server.workspace

    @register(server, ADD)
    async def record_lesson(
        title: str,
        summary: str,
        body: str | None = None,
        what_happened: str | None = None,
        root_cause: str | None = None,
        optimization: str | None = None,
        next_time: str | None = None,
        trigger: Trigger = Trigger.MANUAL,
        severity: Severity = Severity.MEDIUM,
        scope: Scope | None = None,
        agent: list[str] | None = None,
        tag: list[str] | None = None,
        category: str | None = None,
        prevention_rule: str | None = None,
        path: list[str] | None = None,
        dedupe: bool = False,
        expect_fingerprint: str | None = None,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Record a lesson in the wiki. Call it ONLY after the user agreed to record it (as
        suggest's proposal says). Give its sections as what_happened, root_cause,
        optimization and next_time (or a body with those `## ` headings). Secrets are
        redacted; a lesson with a section left as the template's placeholder or no
        prevention rule is kept as a candidate that recall does not show yet."""

        def work() -> dict[str, Any]:
            ws, config = live.lookup.open()
            lesson = api.lesson_input(
                title,
                summary,
                body=body,
                what_happened=what_happened,
                root_cause=root_cause,
                optimization=optimization,
                next_time=next_time,
                trigger=trigger,
                severity=severity,
                scope=scope,
                agent=agent,
                tag=tag,
                category=category,
                prevention_rule=prevention_rule,
                path=path,
            )
            value = api.record_lesson(
                ws,
                config,
                lesson,
                dedupe=dedupe,
                expected=expect_fingerprint,
                after=lambda ws, config: compiled_by_a_look(live, ws, config),
            )
            return value.to_json()

        return await answer(work, live.lookup, ctx)

    @register(server, ADD)
    async def feedback(
        lesson_id: str,
        outcome: Outcome,
        note: str | None = None,
        expect_fingerprint: str | None = None,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Record whether a recalled lesson helped: `outcome` is helped, not-helped or
        failed-again (after a recall, it flags the lesson for review). Adds a dated evidence
        line to the lesson; its confidence follows."""

        def work() -> dict[str, Any]:
            ws, config = live.lookup.open()
            value = api.feedback(
                ws,
                config,
                lesson_id,
                outcome.value,
                note=note,
                expected=expect_fingerprint,
                after=lambda ws, config: live.forget(),  # the next read looks again
            )
            return value.to_json()

        return await answer(work, live.lookup, ctx)


def rule_tools(server: WikiServer) -> None:
    """maintain (a read: the plan and the rules it proposes) and, unless the server is
    read-only, record_rule."""
    live = server.workspace

    @register(server, READ)
    async def maintain(ctx: Context[Any, Any] | None = None) -> dict[str, Any]:
        """The lessons' upkeep as a plan (nothing is changed), the rules proposed from groups
        of lessons that share a cause (each with its record_rule arguments under `rule`), and
        whether consolidation is due. Show a proposed rule to the user; record it with
        record_rule only if they agree (they may rewrite its when and then first)."""

        def work() -> dict[str, Any]:
            ws, config = live.lookup.open()
            return api.maintain(ws, config).to_json()

        return await answer(work, live.lookup, ctx)

    if live.read_only:
        return

    @register(server, ADD)
    async def record_rule(
        when: str,
        then: str,
        evidence: list[str],
        title: str | None = None,
        summary: str | None = None,
        severity: Severity | None = None,
        scope: Scope | None = None,
        agent: list[str] | None = None,
        tag: list[str] | None = None,
        category: str | None = None,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Record a rule consolidated from lessons (`evidence`: their ids, 2 at least),
        recalled as "When <when>: <then>." in their place; its lessons become superseded by
        it. Call it ONLY after the user agreed to a rule maintain proposed. Fields left out
        are taken from the lessons."""

        def work() -> dict[str, Any]:
            ws, config = live.lookup.open()
            rule = api.rule_input(
                when,
                then,
                evidence,
                title=title,
                summary=summary,
                severity=severity,
                scope=scope,
                agent=agent,
                tag=tag,
                category=category,
            )
            after = lambda ws, config: compiled_by_a_look(live, ws, config)  # noqa: E731
            return api.record_rule(ws, config, rule, after=after).to_json()

        return await answer(work, live.lookup, ctx)


def compiled_by_a_look(live: LiveWorkspace, ws: Workspace, config: Config) -> None:
    """Compile a lesson just written by a look as a read makes it, which the watcher tells
    what changed (a whole compile would list every file). When another process writes, the
    look leaves it: then wait for the lock and compile, as the CLI does."""
    from skillwiki.compiler import compile_workspace

    live.forget()
    with live.reading() as read:
        skipped = read.skipped
    if skipped is not None:
        compile_workspace(ws, config)
