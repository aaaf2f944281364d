"""The resources (index.md, and each article by its path) and the prompt that walks suggest,
the user's answer and record_lesson."""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from skillwiki.errors import NotFound, OutsideWorkspace, SkillwikiError
from skillwiki.server.app import ARTICLE_URI, AS_THEY_ARE, COMPILES_FIRST, WikiServer

INDEX_URI = "skillwiki://index"


def register_resources(server: WikiServer) -> None:
    live = server.workspace
    compiles = AS_THEY_ARE if live.read_only else COMPILES_FIRST

    @server.resource(
        INDEX_URI,
        name="index",
        title="Wiki index",
        description=f"index.md: every article of the wiki with its summary, by folder. {compiles}",
        mime_type="text/markdown",
    )
    def index() -> str:
        def work() -> str:
            with live.reading() as read:
                return read.ws.index_md.read_text(encoding="utf-8")

        return _resource(work)

    @server.resource(
        ARTICLE_URI + "{+path}",
        name="article",
        title="Wiki article",
        description=f"One compiled article of the wiki, by its path below .wiki/wiki/. {compiles}",
        mime_type="text/markdown",
    )
    def article(path: str) -> str:
        from skillwiki import api

        def work() -> str:
            with live.reading() as read:
                return api.show(read, "wiki/" + path).text

        return _resource(work)


def _resource(work: Callable[[], str]) -> str:
    """A resource's text; a skillwiki error is the resource's error, with the CLI's text (one
    that is not there: not found, WikiServer.read_resource)."""
    try:
        return work()
    except (NotFound, OutsideWorkspace, FileNotFoundError) as exc:
        raise ResourceNotFoundError(f"Error: {exc}") from None
    except (SkillwikiError, OSError) as exc:
        raise ResourceError(f"Error: {exc}") from None


def prompts(server: WikiServer, read_only: bool) -> None:
    @server.prompt(
        name="lesson-from-a-run",
        title="Propose a lesson from a run",
        description="Ask whether a run that failed or went badly should leave a lesson, and "
        "record it only if the user agrees.",
    )
    def lesson_from_a_run(feedback: str) -> str:
        record = (
            "3. Only if the user agrees, call `record_lesson` with the proposal's "
            "`record_lesson` arguments, changed as the user asked. If they decline, record "
            "nothing."
            if not read_only
            else "3. This server cannot record (read-only): if the user agrees, give them the "
            "proposal's `command` to run."
        )
        return (
            "A run just ended, and this is its feedback:\n\n"
            f"{feedback}\n\n"
            "1. Call `suggest` with that feedback as a JSON object (task, agent, tool_calls "
            "with tool/success/error, replans, retries, cost_usd, max_cost_usd, confidence, "
            'rejected). If it answers `"suggest": false`, say no lesson is needed and stop.\n'
            "2. Otherwise show the user the proposed title, summary and prevention rule, with "
            "what `to_fill_in` says is still missing, and ask whether to record it. Draft the "
            "missing parts from what happened in the run, and let the user correct them.\n"
            f"{record}"
        )
