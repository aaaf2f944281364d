"""The server: the SDK's, answering as the MCP specification says where the SDK answers
otherwise (unknown tools and prompts, refused arguments, resources not found, failures no one
foresaw), and listing one resource per article besides index.md, a page at a time."""

from __future__ import annotations

import bisect
import heapq
import itertools
import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import anyio
import anyio.to_thread
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver.exceptions import (
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    ListResourcesResult,
    Resource,
    TextContent,
)
from mcp.types import Tool as ToolInfo
from pydantic import ValidationError

from skillwiki import __version__
from skillwiki.errors import SkillwikiError
from skillwiki.server._sdk import SdkServer
from skillwiki.server.live import LiveWorkspace, WorkspaceLookup
from skillwiki.statcache import Stat, stat_of
from skillwiki.workspace import find_workspace

INSTRUCTIONS = (
    "skillwiki is this repository's memory: notes compiled into a Markdown wiki under .wiki/, "
    "and lessons recorded after past failures. Call `query` before answering questions about "
    "the project and `recall` before starting a task, to see the known failures that concern "
    "it. After a run that failed or went badly, call `suggest` with the run's feedback; if it "
    "proposes a lesson, ask the user, and only if they agree call `record_lesson` with the "
    "arguments it gave. After a recalled lesson helped or did not, call `feedback`."
)
COMPILES_FIRST = (
    "Raw files changed since the last compile are compiled first: their articles and the "
    "wiki's index are written, as the CLI's read commands do."
)
AS_THEY_ARE = (
    "This server is read-only: it compiles and writes nothing. A raw file changed since the "
    "last compile is answered from its article as it is, and a warning says so."
)
WRITING = ("record_lesson", "feedback", "record_rule")
# The specification's "resource not found" (MCP 2025-06-18 and 2025-11-25). The SDK answers
# invalid params (-32602) for a URI no resource matches, and internal error (-32603) for an
# article its template matched that is not there.
RESOURCE_NOT_FOUND = -32002
RESOURCES_PAGE = 500  # resources per page of resources/list
MAX_FAILURE_TEXT = 500  # characters of an unexpected failure's text sent to the client
# An absolute path in an exception's text: from a slash after a space, a quote, a bracket or
# the start, to the next space or quote (what str() of an OSError and most messages hold).
_ABSOLUTE = re.compile(r"(?<![^\s'\"(\[=])/[^\s'\"]*")
ARTICLE_URI = "skillwiki://wiki/"
_LOG = logging.getLogger("skillwiki.server")


class WikiServer(SdkServer):
    """The SDK's server, listing one resource per article besides index.md, a page at a
    time."""

    def __init__(self, workspace: LiveWorkspace) -> None:
        super().__init__("skillwiki", version=__version__, instructions=INSTRUCTIONS)
        self.workspace = workspace
        self._listed: _Listed | None = None

    async def list_tools(self) -> list[ToolInfo]:
        """The tools, each input schema closed (`additionalProperties: false`, which the SDK
        leaves out): an argument a tool does not name is refused, not dropped (call_tool)."""
        return [
            tool.model_copy(
                update={"input_schema": {**tool.input_schema, "additionalProperties": False}}
            )
            for tool in await super().list_tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Call a tool. An unknown tool is invalid params (-32602), as the specification says
        (the SDK answers a tool error). Arguments its schema refuses, and any it does not name
        (the SDK drops those), are the tool's error in one line, as the CLI says bad input (the
        SDK's own text is pydantic's report, several lines long). A failure no one foresaw is
        the tool's error saying what failed (the SDK's says only "Error executing tool X")."""
        tools = {tool.name: tool.input_schema for tool in await super().list_tools()}
        schema = tools.get(name)
        if schema is None:
            why = (
                ": this server is read-only" if name in WRITING and self.workspace.read_only else ""
            )
            raise MCPError(INVALID_PARAMS, f"Error: no tool {name!r}{why} ({_there(tools)})")
        if any(key not in schema.get("properties", {}) for key in arguments):
            return _refusal(name, schema, arguments, None)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            said = what_failed(exc, self.workspace.lookup)
            return CallToolResult(
                is_error=True, content=[TextContent(type="text", text=f"Error: {name}: {said}")]
            )
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            return _refusal(name, schema, arguments, cause)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> GetPromptResult | InputRequiredResult:
        """A prompt. An unknown name, a missing argument or one it does not take is invalid
        params (-32602), as the specification says, in one `Error:` line (the SDK answers
        code 0, and logs a traceback)."""
        prompts = {prompt.name: prompt.arguments or [] for prompt in await self.list_prompts()}
        if name not in prompts:
            raise MCPError(INVALID_PARAMS, f"Error: no prompt {name!r} ({_there(prompts)})")
        schema = {
            "properties": {argument.name: {} for argument in prompts[name]},
            "required": [argument.name for argument in prompts[name] if argument.required],
        }
        given = arguments or {}
        if any(key not in given for key in schema["required"]) or any(
            key not in schema["properties"] for key in given
        ):
            raise MCPError(INVALID_PARAMS, _refused(name, schema, given, None))
        return await super().get_prompt(name, arguments, context)

    async def read_resource(
        self, uri: Any, context: Any = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        """A resource's contents. One that does not exist (no resource matches its URI, or its
        article is not there) is resource not found, RESOURCE_NOT_FOUND, with its URI."""
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError as exc:
            text = str(exc) if str(exc).startswith("Error: ") else f"Error: no resource {uri!s}"
            raise MCPError(RESOURCE_NOT_FOUND, text, data={"uri": str(uri)}) from None
        except UnexpectedResourceError as exc:  # the SDK's text names only the URI
            text = f"Error: {uri!s}: {what_failed(exc, self.workspace.lookup)}"
            raise MCPError(INTERNAL_ERROR, text, data={"uri": str(uri)}) from None

    async def list_resources(self) -> list[Resource]:
        return await self._resources(None, None)

    async def resources_page(self, cursor: str | None) -> ListResourcesResult:
        """resources/list, RESOURCES_PAGE resources at a time in the order of their URIs. The
        cursor is the last URI of the page before, so the next page starts after it even
        when articles came or went in between."""
        if cursor is not None and not cursor.startswith("skillwiki://"):
            raise MCPError(INVALID_PARAMS, f"not a cursor of this server: {cursor!r}")
        page = await self._resources(cursor, RESOURCES_PAGE + 1)
        more = len(page) > RESOURCES_PAGE
        page = page[:RESOURCES_PAGE]
        return ListResourcesResult(resources=page, next_cursor=str(page[-1].uri) if more else None)

    async def _resources(self, after: str | None, count: int | None) -> list[Resource]:
        """The resources in the order of their URIs: those after the URI `after`, at most
        `count` (None: all). Only those returned are made (a wiki may hold thousands)."""
        static: Iterator[tuple[str, Resource | Item]] = (
            (str(resource.uri), resource)
            for resource in sorted(await super().list_resources(), key=lambda one: str(one.uri))
            if after is None or str(resource.uri) > after
        )
        listed = await anyio.to_thread.run_sync(self._articles)
        start = 0 if after is None else bisect.bisect_right(listed.uris, after)
        articles: Iterator[tuple[str, Resource | Item]] = (
            (listed.uris[number], listed.items[number])
            for number in range(start, len(listed.items))
        )
        merged = heapq.merge(static, articles, key=lambda pair: pair[0])
        return [
            article_resource(*item) if isinstance(item, tuple) else item
            for _, item in itertools.islice(merged, count)
        ]

    def _articles(self) -> _Listed:
        """The articles of index.json, brought up to date first, sorted by URI: read again
        only when index.json changed (its stat, taken before it is read: a file replaced
        meanwhile is read again next time), not for each page of resources/list."""
        from skillwiki.compiler import catalog

        try:
            with self.workspace.reading() as read:
                try:
                    key: tuple[Path, Stat] | None = (
                        read.ws.root,
                        stat_of(read.ws.index_json),
                    )
                except OSError:
                    key = None
                if key is not None and self._listed is not None and self._listed.key == key:
                    return self._listed
                articles = catalog.listed(read.ws)
        except SkillwikiError:
            return _Listed(None, [], [])
        items = sorted(
            (
                ARTICLE_URI + quote(path.removeprefix("wiki/")),
                _text(item, "title"),
                _text(item, "summary"),
            )
            for item in articles
            if isinstance(path := item.get("path"), str)
        )
        self._listed = _Listed(key, [item[0] for item in items], items)
        return self._listed


Item = tuple[str, str | None, str | None]  # an article as a resource: URI, title, description


@dataclass(frozen=True)
class _Listed:
    """The articles of index.json as resources, in the order of their URIs; `key`: the
    workspace and the stat of index.json they were read at (None: not to be kept)."""

    key: tuple[Path, Stat] | None
    uris: list[str]
    items: list[Item]


def _text(item: dict[str, Any], key: str) -> str | None:
    return str(item.get(key) or "") or None


def _there(names: Iterable[str]) -> str:
    listed = sorted(names)
    return f"there {'is' if len(listed) == 1 else 'are'} {', '.join(listed)}"


def _refused(
    name: str, schema: dict[str, Any], arguments: dict[str, Any], error: ValidationError | None
) -> str:
    """What is wrong with a call's arguments, in one `Error:` line: those missing, those of the
    wrong kind (`error`: the schema's report), and those the tool or prompt does not take,
    with the ones it does."""
    takes = sorted(schema.get("properties", {}))
    problems = []
    if error is None:
        required = schema.get("required", [])
        problems += [f"missing argument {key!r}" for key in required if key not in arguments]
    for item in error.errors() if error is not None else ():
        where = ".".join(str(part) for part in item["loc"])
        if item["type"] == "missing":
            problems.append(f"missing argument {where!r}")
        else:
            problems.append(f"argument {where!r}: {item['msg']}")
    unknown = sorted(key for key in arguments if key not in takes)
    if unknown:
        problems.append("unknown argument " + ", ".join(repr(key) for key in unknown))
    return f"Error: {name}: {'; '.join(problems)} (it takes {', '.join(takes)})"


def _refusal(
    name: str, schema: dict[str, Any], arguments: dict[str, Any], error: ValidationError | None
) -> CallToolResult:
    """A call whose arguments the tool refuses: the tool's error (a model reads it and calls
    again, as the specification has input errors told)."""
    _LOG.info("Tool %r refused its arguments", name)  # not their values: the caller's data
    text = _refused(name, schema, arguments, error)
    return CallToolResult(is_error=True, content=[TextContent(type="text", text=text)])


def what_failed(error: BaseException, lookup: WorkspaceLookup) -> str:
    """What failed, for a failure no one foresaw (a bug): the exception's kind and text on one
    line, a path in the workspace from its root and none outside it. Its traceback goes to the
    server's log (stderr), as the SDK logs one."""
    while isinstance(error, UnexpectedToolError | UnexpectedResourceError) and error.__cause__:
        error = error.__cause__
    _LOG.error("Unexpected %s", type(error).__name__, exc_info=error)
    roots = _workspace_roots(lookup)

    def shown(found: re.Match[str]) -> str:
        path = Path(found.group())
        for root in roots:
            if path == root or path.is_relative_to(root):
                return path.relative_to(root).as_posix()
        return "<a path outside the workspace>"

    text = _ABSOLUTE.sub(shown, " ".join(str(error).split()))
    if len(text) > MAX_FAILURE_TEXT:
        text = text[: MAX_FAILURE_TEXT - 1] + "…"
    return f"unexpected {type(error).__name__}" + (f": {text}" if text else "")


def _workspace_roots(lookup: WorkspaceLookup) -> list[Path]:
    """The workspace's root, as found and as named (-w): none when there is no workspace."""
    try:
        if lookup.explicit is not None:
            named = Path(os.path.abspath(lookup.explicit.expanduser()))
            return [find_workspace(Path.cwd(), lookup.explicit).root, named]
        for start in lookup.starts():
            try:
                return [find_workspace(start).root]
            except SkillwikiError:
                continue
    except (SkillwikiError, OSError):
        pass
    return []


def article_resource(uri: str, title: str | None, description: str | None) -> Resource:
    """An article of index.json as a resource: its path percent-encoded in the URI (a `#`, `?`,
    `%`, space or letter beyond ASCII in a file name), as written in its name."""
    return Resource(
        uri=uri,
        name=unquote(uri.removeprefix(ARTICLE_URI)),
        title=title,
        description=description,
        mime_type="text/markdown",
    )
