"""`skillwiki mcp`: skillwiki's read and memory commands as MCP tools over stdio.

Built on the MCP Python SDK (the `mcp` extra), imported only here. Each tool answers with the
object the CLI prints for `--json`; a skillwiki error becomes a tool error with the CLI's text.
The workspace is found again on each call (a cheap look), so the server follows files changed
under it and writes made by the CLI meanwhile, and answers "run skillwiki init" until there is
one.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar, cast

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from skillwiki import __version__, clock
from skillwiki.config import Config, load_config
from skillwiki.errors import SkillwikiError
from skillwiki.memory.kinds import Severity, Trigger
from skillwiki.workspace import Workspace, find_workspace

INSTRUCTIONS = (
    "skillwiki is this repository's memory: notes compiled into a Markdown wiki under .wiki/, "
    "and lessons recorded after past failures. Call `query` before answering questions about "
    "the project and `recall` before starting a task, to see the known failures that concern "
    "it. After a run that failed or went badly, call `suggest` with the run's feedback; if it "
    "proposes a lesson, ask the user, and only if they agree call `record_lesson` with the "
    "arguments it gave. After a recalled lesson helped or did not, call `feedback`."
)
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
SHOW_CHARS = 20_000
Answer = TypeVar("Answer")


class Place:
    """Where the workspace is looked for: -w, else the environment, else here."""

    def __init__(self, explicit: Path | None) -> None:
        self.explicit = explicit
        project = os.environ.get("CLAUDE_PROJECT_DIR")
        self.start = Path(project) if project else Path(os.getcwd())

    def open(self) -> tuple[Workspace, Config]:
        ws = find_workspace(self.start, self.explicit)
        return ws, load_config(ws.config_file, shown=ws.rel(ws.config_file))


Tool = TypeVar("Tool", bound=Callable[..., Any])


def _tool(server: MCPServer[Any], annotations: ToolAnnotations) -> Callable[[Tool], Tool]:
    """Register a tool with its docstring, dedented, as the description a model reads."""

    def register(function: Tool) -> Tool:
        description = inspect.getdoc(function) or ""
        server.tool(description=description, annotations=annotations)(function)
        return function

    return register


def _answer(work: Callable[[], Answer]) -> Answer:
    """Run a tool's work; a skillwiki error is the tool's error, with the CLI's very text.

    Raising ToolError would prefix "Error executing tool <name>: "; a CallToolResult marked
    as an error goes to the client as it is (the SDK passes one through unconverted).
    """
    try:
        return work()
    except SkillwikiError as exc:
        failed = CallToolResult(
            is_error=True, content=[TextContent(type="text", text=f"Error: {exc}")]
        )
        return cast(Answer, failed)


def build(place: Place, *, read_only: bool) -> MCPServer[Any]:
    """The server: the reading tools, and the writing ones unless `read_only` (then a client
    that calls them anyway gets "unknown tool")."""
    server: MCPServer[Any] = MCPServer("skillwiki", version=__version__, instructions=INSTRUCTIONS)
    _reading_tools(server, place)
    _memory_tools(server, place)
    if not read_only:
        _writing_tools(server, place)
    return server


def _reading_tools(server: MCPServer[Any], place: Place) -> None:
    @_tool(server, READ)
    def query(
        text: str,
        limit: int = 10,
        type: str | None = None,
        tag: list[str] | None = None,
        include_hidden: bool = False,
    ) -> dict[str, Any]:
        """Search the wiki's compiled articles and lessons, best first, after bringing them up
        to date. Use it before answering a question about this project; `type` narrows to
        "document" or "lesson", each `tag` must be on the article."""
        from skillwiki.reading import query as run

        def work() -> dict[str, Any]:
            ws, config = place.open()
            hits, done = run(
                ws,
                config,
                text,
                limit=limit,
                kind=type,
                tags=tuple(tag or ()),
                include_hidden=include_hidden,
            )
            return {
                "query": text,
                "refreshed": done.refreshed,
                "results": [asdict(hit) for hit in hits],
            }

        return _answer(work)

    @_tool(server, READ)
    def show(key: str, max_chars: int = SHOW_CHARS) -> dict[str, Any]:
        """Read one article or lesson in full, by its path (`docs/ci.md`, `raw/docs/ci.md`) or a
        lesson's id. Bodies longer than `max_chars` are cut, and `truncated` says so."""
        from skillwiki.reading import refresh
        from skillwiki.reading import show as run

        def work() -> dict[str, Any]:
            ws, config = place.open()
            with refresh(ws, config):
                pass
            shown = run(ws, key, config.fingerprint)
            return {
                "path": shown.path,
                "meta": shown.meta,
                "body": shown.body[:max_chars],
                "truncated": len(shown.body) > max_chars,
                "source": shown.source,
                "fingerprint": shown.fingerprint,
            }

        return _answer(work)


def _memory_tools(server: MCPServer[Any], place: Place) -> None:
    @_tool(server, READ)
    def recall(
        agent: str | None = None,
        tag: list[str] | None = None,
        path: list[str] | None = None,
        task: str | None = None,
        budget: int | None = None,
    ) -> dict[str, Any]:
        """The known failures of this repository that concern a task, as a block to keep in
        mind before starting it: give the agent's name, the task in plain words, the files
        (or globs) it touches and its topics. Only active, finished lessons, best first."""
        from skillwiki.memory import usage
        from skillwiki.memory.recall import Request, recall_for_task
        from skillwiki.reading import refresh

        def work() -> dict[str, Any]:
            ws, config = place.open()
            request = Request(agent, tuple(tag or ()), tuple(path or ()), task, budget)
            with refresh(ws, config) as done:
                result = recall_for_task(ws, config, request, done.index)
            usage.count(ws, result.included, clock.stamp())
            return {"block": result.block, "lessons": [asdict(item) for item in result.lessons]}

        return _answer(work)

    @_tool(server, READ)
    def status() -> dict[str, Any]:
        """Whether every article is fresh (compiled from its raw file as it is now), with the
        state of each and the catalog's fingerprint (for record_lesson's expect_fingerprint)."""
        from skillwiki.cli.workspace_cmd import status_json
        from skillwiki.compiler import State, make_plan

        def work() -> dict[str, Any]:
            ws, config = place.open()
            plan = make_plan(ws, config)
            counts = plan.count()
            fresh = counts[State.FRESH] == sum(counts.values()) and not plan.problems
            return status_json(ws, config, plan, fresh)

        return _answer(work)

    @_tool(server, READ)
    def suggest(feedback: dict[str, Any]) -> dict[str, Any]:
        """Say whether a run's feedback calls for a lesson: `feedback` holds task, agent,
        tool_calls ([{tool, success, error}]), replans, retries, cost_usd, max_cost_usd,
        confidence, rejected. A proposal carries `command`, the record_lesson arguments to use
        only after the user agreed. Never writes."""
        from skillwiki.memory.suggest import answer, read_run
        from skillwiki.memory.suggest import suggest as run

        def work() -> dict[str, Any]:
            _, config = place.open()
            return answer(run(read_run(feedback, "feedback"), config.suggest))

        return _answer(work)


def _writing_tools(server: MCPServer[Any], place: Place) -> None:
    @_tool(server, ADD)
    def record_lesson(
        title: str,
        summary: str,
        body: str | None = None,
        trigger: str = Trigger.MANUAL.value,
        severity: str = Severity.MEDIUM.value,
        scope: str | None = None,
        agent: list[str] | None = None,
        tag: list[str] | None = None,
        category: str | None = None,
        prevention_rule: str | None = None,
        path: list[str] | None = None,
        dedupe: bool = False,
        expect_fingerprint: str | None = None,
    ) -> dict[str, Any]:
        """Record a lesson in the wiki. Call it ONLY after the user agreed to record it (as
        suggest's proposal says). Secrets are redacted; a lesson with unfilled sections or no
        prevention rule is kept as a candidate that recall does not show yet."""
        from skillwiki.compiler import compile_workspace
        from skillwiki.memory.lessons import LessonInput, record

        def work() -> dict[str, Any]:
            ws, config = place.open()
            lesson = LessonInput(
                title=title,
                summary=summary,
                body=body,
                trigger=trigger,
                severity=severity,
                scope=scope,
                agents=tuple(agent or ()),
                tags=tuple(tag or ()),
                category=category,
                prevention_rule=prevention_rule,
                paths=tuple(path or ()),
            )
            recorded = record(ws, config, lesson, dedupe=dedupe, expected=expect_fingerprint)
            compile_workspace(ws, config)
            return asdict(recorded)

        return _answer(work)

    @_tool(server, ADD)
    def feedback(
        lesson_id: str,
        outcome: str,
        note: str | None = None,
        expect_fingerprint: str | None = None,
    ) -> dict[str, Any]:
        """Record whether a recalled lesson helped: `outcome` is helped, not-helped or
        failed-again (after a recall, it flags the lesson for review). Adds a dated evidence
        line to the lesson; its confidence follows."""
        from skillwiki.memory.evidence import feedback as run

        def work() -> dict[str, Any]:
            ws, config = place.open()
            result = run(ws, config, lesson_id, outcome, note, clock.today(), expect_fingerprint)
            return asdict(result)

        return _answer(work)
