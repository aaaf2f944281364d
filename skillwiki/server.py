"""`skillwiki mcp`: skillwiki's read and memory commands as MCP tools over stdio.

Built on the MCP Python SDK (the `mcp` extra), imported only here. Each tool answers with the
object the CLI prints for `--json`, built for both by skillwiki.api (this face never imports the
command line's); a skillwiki error becomes a tool error with the CLI's text.
The workspace stays open between calls (warm.py): a read looks at the files again only when
the kernel reports a change under .wiki/ (else, on systems without a watcher, at every call,
as the CLI does), so the server follows files changed under it and writes made by the CLI
meanwhile, and answers "run skillwiki init" until there is one. Besides the tools: index.md
and each article as resources, and a prompt that walks suggest, the user's answer, and
record_lesson.

Its reads compile the raw files changed since, as the CLI's do (their annotations say they
write); a --read-only server writes nothing at all (warm.Warm.read_only) and says so. Errors
are the ones the MCP specification names, where the SDK answers otherwise: see WikiServer.
"""

from __future__ import annotations

import bisect
import heapq
import inspect
import itertools
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast
from urllib.parse import quote, unquote, urlparse

import anyio
import anyio.to_thread
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ContentBlock,
    ErrorData,
    GetPromptResult,
    InputRequiredResult,
    JSONRPCError,
    ListResourcesResult,
    PaginatedRequestParams,
    RequestId,
    Resource,
    TextContent,
    ToolAnnotations,
)
from mcp.types import Tool as ToolInfo
from pydantic import Field, PrivateAttr, ValidationError

from skillwiki import __version__, clock
from skillwiki.api import (
    LIMIT_MAX,
    ArticleType,
    query_json,
    recall_json,
    record_lesson_fields,
    show_json,
    status_json,
    suggest_json,
)
from skillwiki.errors import InputError, NotFound, OutsideWorkspace, SkillwikiError
from skillwiki.kinds import Outcome, Scope, Severity, Trigger
from skillwiki.statcache import Stat, stat_of
from skillwiki.warm import Place, Reading, Warm
from skillwiki.workspace import find_workspace

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
# A read that compiles the raw files changed since before it answers, where the server may
# write: it writes, but only what skillwiki generates (an article edited by hand is backed up
# first), and a second call finds nothing more to do. recall also counts what it showed.
LOOK = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
COUNT = LOOK.model_copy(update={"idempotent_hint": False})
COMPILES_FIRST = (
    "Raw files changed since the last compile are compiled first: their articles and the "
    "wiki's index are written, as the CLI's read commands do."
)
AS_THEY_ARE = (
    "This server is read-only: it compiles and writes nothing. A raw file changed since the "
    "last compile is answered from its article as it is, and a warning says so."
)
WRITING = ("record_lesson", "feedback")
# The specification's "resource not found" (MCP 2025-06-18 and 2025-11-25). The SDK answers
# invalid params (-32602) for a URI no resource matches, and internal error (-32603) for an
# article its template matched that is not there.
RESOURCE_NOT_FOUND = -32002
SHOW_CHARS = 20_000
RESOURCES_PAGE = 500  # resources per page of resources/list
ROOTS_WAIT = 5.0  # seconds the first call waits for the client's roots, at most
MAX_SAID = 500  # characters of an unexpected failure's text told to the client
# An absolute path in an exception's text: from a slash after a space, a quote, a bracket or
# the start, to the next space or quote (what str() of an OSError and most messages hold).
_ABSOLUTE = re.compile(r"(?<![^\s'\"(\[=])/[^\s'\"]*")
INDEX_URI = "skillwiki://index"
ARTICLE_URI = "skillwiki://wiki/"
_LOG = logging.getLogger(__name__)
Answer = TypeVar("Answer")
Tool = TypeVar("Tool", bound=Callable[..., Any])


class WikiServer(MCPServer[Any]):
    """The SDK's server, listing one resource per article besides index.md, a page at a
    time."""

    def __init__(self, warm: Warm) -> None:
        super().__init__("skillwiki", version=__version__, instructions=INSTRUCTIONS)
        self.warm = warm
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
            why = ": this server is read-only" if name in WRITING and self.warm.read_only else ""
            raise MCPError(INVALID_PARAMS, f"Error: no tool {name!r}{why} ({_there(tools)})")
        if any(key not in schema.get("properties", {}) for key in arguments):
            return _refusal(name, schema, arguments, None)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            said = _what_failed(exc, self.warm.place)
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
            text = f"Error: {uri!s}: {_what_failed(exc, self.warm.place)}"
            raise MCPError(INTERNAL_ERROR, text, data={"uri": str(uri)}) from None

    async def run_stdio_async(self) -> None:
        """Serve over stdio, answering a line that is no JSON-RPC request as JSON-RPC says
        (`_unreadable`): the SDK's stdio transport hands such a line to the server as an
        exception, which its dispatcher drops, and a client that sent a request without a
        method waits for an answer that never comes. The rest is the SDK's run_stdio_async:
        its transport and its low-level server, run alike (tests/test_mcp.py pins both)."""
        from mcp.server.stdio import stdio_server

        lowlevel = self._lowlevel_server
        async with stdio_server() as (lines, replies):
            send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

            async def relay() -> None:
                async with send:
                    async for line in lines:
                        if not isinstance(line, Exception):
                            await send.send(line)
                        elif (error := _unreadable(line)) is not None:
                            _LOG.info("Answered a line that is no request: %s", error.error)
                            await replies.send(SessionMessage(error))

            async with anyio.create_task_group() as group:
                group.start_soon(relay)
                await lowlevel.run(receive, replies, lowlevel.create_initialization_options())
                group.cancel_scope.cancel()

    async def list_resources(self) -> list[Resource]:
        return await self._resources(None, None)

    async def _handle_list_resources(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        """resources/list, RESOURCES_PAGE resources at a time in the order of their URIs. The
        cursor is the last URI of the page before, so the next page starts after it even
        when articles came or went in between."""
        cursor = params.cursor if params is not None else None
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
            _article(*item) if isinstance(item, tuple) else item
            for _, item in itertools.islice(merged, count)
        ]

    def _articles(self) -> _Listed:
        """The articles of index.json, brought up to date first, sorted by URI: read again
        only when index.json changed (its stat, taken before it is read: a file replaced
        meanwhile is read again next time). At 11k articles, reading it took 50 ms of each
        page of resources/list."""
        from skillwiki import catalog

        try:
            with self.warm.reading() as read:
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


def _what_failed(error: BaseException, place: Place) -> str:
    """What failed, for a failure no one foresaw (a bug): the exception's kind and text on one
    line, a path in the workspace from its root and none outside it. Its traceback goes to the
    server's log (stderr), as the SDK logs one."""
    while isinstance(error, UnexpectedToolError | UnexpectedResourceError) and error.__cause__:
        error = error.__cause__
    _LOG.error("Unexpected %s", type(error).__name__, exc_info=error)
    roots = _known_roots(place)

    def shown(found: re.Match[str]) -> str:
        path = Path(found.group())
        for root in roots:
            if path == root or path.is_relative_to(root):
                return path.relative_to(root).as_posix()
        return "<a path outside the workspace>"

    said = _ABSOLUTE.sub(shown, " ".join(str(error).split()))
    if len(said) > MAX_SAID:
        said = said[: MAX_SAID - 1] + "…"
    return f"unexpected {type(error).__name__}" + (f": {said}" if said else "")


def _known_roots(place: Place) -> list[Path]:
    """The workspace's root, as found and as named (-w): none when there is no workspace."""
    try:
        if place.explicit is not None:
            named = Path(os.path.abspath(place.explicit.expanduser()))
            return [find_workspace(Path.cwd(), place.explicit).root, named]
        for start in place.starts():
            try:
                return [find_workspace(start).root]
            except SkillwikiError:
                continue
    except (SkillwikiError, OSError):
        pass
    return []


def _unreadable(error: Exception) -> JSONRPCError | None:
    """The answer to a line of the client's that is no JSON-RPC request, `error` being why the
    SDK's stdio transport could not read it: not JSON (or JSON its parser refuses: a lone
    surrogate, nesting too deep, a number too long), a parse error, with the request's id when
    `_outline` can read it (else null); JSON but no request (no method, a method that is no
    string, an array: MCP sends no batches), an invalid request, with its id when it has one.
    None: a blank line, or what reads as a response (a response is never answered)."""
    found = error.errors() if isinstance(error, ValidationError) else []
    if not found or found[0]["type"] == "json_invalid":
        line = found[0]["input"] if found else None
        if isinstance(line, str) and not line.strip():
            return None
        members = _outline(line) if isinstance(line, str) else {}
        if "method" not in members and ("result" in members or "error" in members):
            return None
        why = str(found[0]["msg"]).removeprefix("Invalid JSON: ") if found else "not JSON"
        said = f"Parse error: the line cannot be read as JSON ({why})"
        problem = ErrorData(code=PARSE_ERROR, message=said)
        return JSONRPCError(jsonrpc="2.0", id=_request_id(members.get("id")), error=problem)
    message = next((item["input"] for item in found if isinstance(item["input"], dict)), {})
    if "method" not in message and ("result" in message or "error" in message):
        return None
    problem = ErrorData(
        code=INVALID_REQUEST, message="Invalid request: not a JSON-RPC 2.0 request with a method"
    )
    return JSONRPCError(jsonrpc="2.0", id=_request_id(message.get("id")), error=problem)


def _request_id(given: object) -> RequestId | None:
    """A request's id, read from its JSON text (`_outline`) or as parsed: a string or an
    integer; anything else (a boolean, a fraction, an integer too long to read) is none."""
    if isinstance(given, _Scalar):
        try:
            given = json.loads(given.text)
        except ValueError:
            return None
    return given if isinstance(given, int | str) and not isinstance(given, bool) else None


@dataclass(frozen=True)
class _Scalar:
    """A member's value as its JSON text: a string, a number or a literal."""

    text: str


# The tokens of a JSON text: a string (escapes and all), a run of opening brackets, a run of
# closing ones, a colon or comma, or a run of anything else (a number, a literal, junk). Every
# repeat is possessive: a string left open fails at once, not after giving back each letter.
_TOKEN = re.compile(
    r'\s*+(?:("[^"\\]*+(?:\\.[^"\\]*+)*+")|([{\[]++)|([}\]]++)|([:,])|([^\s"{}\[\]:,]++))'
)
MAX_TOKENS = 10_000  # of a refused line, read for its id: 20 ms at most


def _outline(line: str) -> dict[str, _Scalar | None]:
    """The members of the outer object of a line the JSON parser refused, read as far as its
    tokens go (MAX_TOKENS at most), in one pass, nesting counted and not followed: each key,
    with its value when that is a string, a number or a literal (None: an object or array).
    A line nested too deep, with a number too long or a lone surrogate, or broken after its
    id, still tells its id and whether it is a request."""
    members: dict[str, _Scalar | None] = {}
    depth, key, expecting, position = 0, "", "key", 0
    for _ in range(MAX_TOKENS):
        token = _TOKEN.match(line, position)
        if token is None or token.end() == position:
            break
        position, kind = token.end(), token.lastindex or 0
        text = token.group(kind)
        if depth == 0 and text != "{":
            break
        if kind == 2:
            if depth == 1:
                key, expecting = _member(members, key, expecting, kind, text)
            depth += len(text)
        elif kind == 3:
            depth -= len(text)
            if depth < 1:
                break
        elif depth == 1:
            key, expecting = _member(members, key, expecting, kind, text)
    return members


def _member(
    members: dict[str, _Scalar | None], key: str, expecting: str, kind: int, text: str
) -> tuple[str, str]:
    """One token of the outer object (`kind`: 1 a string, 2 opening brackets, 4 a colon or
    comma, 5 other text), a value put in `members`: the key read last and what comes next."""
    if kind == 1 and expecting == "key":
        return _key(text), ":"
    if text == ":" and expecting == ":":
        return key, "value"
    if expecting == "value" and kind in (1, 2, 5):
        members[key] = None if kind == 2 else _Scalar(text)
        return key, ""
    return key, "key" if text == "," else expecting


def _key(text: str) -> str:
    try:
        return str(json.loads(text))
    except ValueError:
        return ""


def _article(uri: str, title: str | None, description: str | None) -> Resource:
    """An article of index.json as a resource: its path percent-encoded in the URI (a `#`, `?`,
    `%`, space or letter beyond ASCII in a file name), as written in its name."""
    return Resource(
        uri=uri,
        name=unquote(uri.removeprefix(ARTICLE_URI)),
        title=title,
        description=description,
        mime_type="text/markdown",
    )


def _tool(
    server: MCPServer[Any], annotations: ToolAnnotations, told: str = ""
) -> Callable[[Tool], Tool]:
    """Register a tool with its docstring, dedented, and `told`, as the description a model
    reads."""

    def register(function: Tool) -> Tool:
        description = " ".join(filter(None, [inspect.getdoc(function) or "", told]))
        server.tool(description=description, annotations=annotations)(function)
        _as_sent(server, function.__name__)
        return function

    return register


class _AsSent(FuncMetadata):
    """A tool's arguments read as the client sent them. The SDK reads any string argument of a
    parameter not annotated plain `str` that looks like JSON as the JSON it spells: an optional
    string `"null"` became None (and the lesson lost its rule), `"[1,2]"` a list, then refused.
    Here a string stays a string where the schema takes one; only an argument that takes no
    string is read from its JSON text, and only into the list or object it takes (some clients
    send those as text: what the SDK's reading is for)."""

    _parsed: dict[str, tuple[type, ...]] = PrivateAttr(default_factory=dict)

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        read = dict(data)
        for key, value in data.items():
            kinds = self._parsed.get(key)
            if kinds is None or not isinstance(value, str):
                continue
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if isinstance(parsed, kinds):
                read[key] = parsed
        return read


def _as_sent(server: MCPServer[Any], name: str) -> None:
    """Have the tool `name` read its arguments as sent (_AsSent): the SDK keeps its tools'
    argument readers in its private tool manager, which tests/test_hardening_mcp.py pins."""
    tool = server._tool_manager.get_tool(name)
    assert tool is not None, name
    meta = tool.fn_metadata
    sent = _AsSent(
        arg_model=meta.arg_model,
        output_schema=meta.output_schema,
        output_model=meta.output_model,
        wrap_output=meta.wrap_output,
    )
    schema = tool.parameters
    for key, part in schema.get("properties", {}).items():
        types = _json_types(part, schema.get("$defs", {}))
        kinds = tuple(kind for json_type, kind in _CONTAINERS if json_type in types)
        if kinds and "string" not in types:
            sent._parsed[key] = kinds
    tool.fn_metadata = sent


_CONTAINERS = (("array", list), ("object", dict))


def _json_types(schema: dict[str, Any], defs: dict[str, Any]) -> set[str]:
    """The JSON types a property's schema takes (an enum of strings takes a string)."""
    if isinstance(reference := schema.get("$ref"), str):
        schema = defs.get(reference.rpartition("/")[2], {})
    given = schema.get("type", [])
    types = {given} if isinstance(given, str) else set(given)
    if any(isinstance(value, str) for value in schema.get("enum", [])):
        types.add("string")
    for part in [*schema.get("anyOf", []), *schema.get("oneOf", [])]:
        types |= _json_types(part, defs)
    return types


def _look(server: WikiServer, annotations: ToolAnnotations = LOOK) -> Callable[[Tool], Tool]:
    """Register a read that compiles first where the server may write: its annotations and
    the end of its description say whether it does."""
    if server.warm.read_only:
        return _tool(server, READ, AS_THEY_ARE)
    return _tool(server, annotations, COMPILES_FIRST)


async def _answer(
    work: Callable[[], Answer], place: Place, ctx: Context[Any, Any] | None
) -> Answer:
    """Run a tool's work on a worker thread (the client asked for its roots first, once)."""
    await _learn_roots(place, ctx)
    return await anyio.to_thread.run_sync(_guarded, work)


async def _read_answer(
    work: Callable[[Reading], Answer], warm: Warm, ctx: Context[Any, Any] | None
) -> Answer:
    """Run a read's work on the workspace: at once, on this thread, when nothing changed since
    the last look and no other read has the turn (warm.at_once); else on a worker thread, which
    waits for its turn and looks first."""
    await _learn_roots(warm.place, ctx)
    with warm.at_once() as read:
        if read is not None:
            return _guarded(partial(work, read))

    def looked() -> Answer:
        with warm.reading() as read:
            return work(read)

    return await anyio.to_thread.run_sync(_guarded, looked)


def _guarded(work: Callable[[], Answer]) -> Answer:
    """A tool's answer; a skillwiki error is the tool's error, with the CLI's very text.

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


def _noted(answer: dict[str, Any], read: Reading, more: Sequence[str] = ()) -> dict[str, Any]:
    """The answer, and beside it what the CLI would warn of on stderr (nothing compiled while
    another process writes; a raw file that could not be compiled; `more`, such as the words a
    query left out) in a text block of its own: the answer's own block and its structured
    content stay the CLI's --json object."""
    from skillwiki.reading import notices  # with the compiler: not before the first call

    said = [*notices(read.skipped, read.problems), *more]
    if not said:
        return answer
    import pydantic_core

    text = pydantic_core.to_json(answer, fallback=str, indent=2).decode()  # as the SDK writes it
    blocks: list[ContentBlock] = [TextContent(type="text", text=text)]
    blocks += [TextContent(type="text", text=f"Warning: {notice}") for notice in said]
    return cast(dict[str, Any], CallToolResult(content=blocks, structured_content=answer))


async def _learn_roots(place: Place, ctx: Context[Any, Any] | None) -> None:
    """Ask the client for its roots once, when nothing more explicit names the workspace; a
    call made meanwhile waits for the answer, ROOTS_WAIT at most."""
    if ctx is None or place.explicit is not None:
        return
    if place.roots_asked is not None:
        await place.roots_asked.wait()
        return
    place.roots_asked = anyio.Event()
    try:
        capabilities = ctx.client_capabilities
        if capabilities is not None and capabilities.roots is not None:
            place.roots = await _roots(ctx)
    finally:
        place.roots_asked.set()


async def _roots(ctx: Context[Any, Any]) -> list[Path]:
    """The client's roots that are folders on this machine; none if it cannot say, or does not
    within ROOTS_WAIT (the other places still count)."""
    listed = None
    with anyio.move_on_after(ROOTS_WAIT):
        try:
            listed = await ctx.session.list_roots()
        except Exception:
            return []
    if listed is None:
        _LOG.info("The client did not list its roots within %s s", ROOTS_WAIT)
        return []
    return [
        Path(unquote(urlparse(str(root.uri)).path))
        for root in listed.roots
        if str(root.uri).startswith("file://")
    ]


async def _declared_roots(ctx: Context[Any, Any] | None) -> list[Path]:
    """The roots the client declares now (it may change them), if it has the capability."""
    if ctx is None:
        return []
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return []
    return await _roots(ctx)


def _transcript_inside(path: str, root: Path, roots: Sequence[Path]) -> str:
    """The transcript a model names, as the path to read: `~` expanded, a relative path taken
    from the workspace's root, `..` and every symlink resolved; it must then lie in the
    workspace or one of the client's `roots`, else the call is refused before anything is
    opened (the model would otherwise read any file of the machine the server may read,
    another project's prompts and errors among them)."""
    try:
        named = Path(path).expanduser()
    except RuntimeError:  # `~user` of no user here: a folder's name like any other
        named = Path(path)
    try:
        real = Path(os.path.realpath(root / named))
    except ValueError:  # a NUL byte: the name of no file
        real = None
    for place in (root, *roots):
        if real is not None and real.is_relative_to(os.path.realpath(place)):
            return str(real)
    shown = path if len(path) <= 200 else path[:199] + "…"
    raise InputError(
        "feedback",
        f"transcript_path {shown!r} is outside the workspace and the roots the client declared; "
        "this server reads no transcript there (pass the run's tool_calls instead)",
    )


def build(place: Place, *, read_only: bool) -> WikiServer:
    """The server: the reading tools, the resources and the prompt, and the writing tools
    unless `read_only` (then a client that calls them anyway is told the server is read-only,
    as invalid params)."""
    server = WikiServer(Warm(place, follow=True, read_only=read_only))
    _reading_tools(server)
    _memory_tools(server)
    _resources(server)
    _prompts(server, read_only)
    if not read_only:
        _writing_tools(server)
    return server


def _reading_tools(server: WikiServer) -> None:
    warm = server.warm

    @_look(server)
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
        from skillwiki.search import search

        def work(read: Reading) -> dict[str, Any]:
            hits = search(
                read.ws,
                text,
                limit=limit,
                kind=type,
                tags=tuple(tag or ()),
                include_hidden=include_hidden,
                db=read.index,
            )
            from skillwiki.reading import query_notices

            answer = query_json(text, read.refreshed, hits, explain)
            return _noted(answer, read, query_notices(text))

        return await _read_answer(work, warm, ctx)

    @_look(server)
    async def show(
        key: str,
        max_chars: Annotated[int, Field(ge=1)] = SHOW_CHARS,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Read one article or lesson in full, by its path (`docs/ci.md`, `raw/docs/ci.md`) or a
        lesson's id. Bodies longer than `max_chars` are cut, and `truncated` says so."""
        from skillwiki.reading import show as run

        def work(read: Reading) -> dict[str, Any]:
            shown = run(read.ws, key, read.config.fingerprint)
            return _noted(show_json(shown, max_chars), read)

        return await _read_answer(work, warm, ctx)


def _memory_tools(server: WikiServer) -> None:
    warm = server.warm

    @_look(server, COUNT)
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
        from skillwiki.memory import usage
        from skillwiki.memory.recall import Request, recall_for_task

        def work(read: Reading) -> dict[str, Any]:
            request = Request(agent, tuple(tag or ()), tuple(path or ()), task, budget)
            result = recall_for_task(read.ws, read.config, request, read.index)
            if not warm.read_only:
                usage.count(read.ws, result.included, clock.stamp())
            return _noted(recall_json(result), read)

        return await _read_answer(work, warm, ctx)

    @_tool(server, READ)
    async def status(
        not_fresh: bool = True, ctx: Context[Any, Any] | None = None
    ) -> dict[str, Any]:
        """Whether every article is fresh (compiled from its raw file as it is now): the totals
        of each state, the files that are not fresh (with `not_fresh` false, every file, as
        `status --json` lists them: thousands on a big wiki), the raw files that cannot be
        compiled, and the catalog's fingerprint (for record_lesson's expect_fingerprint)."""
        from skillwiki.compiler import make_plan

        def work() -> dict[str, Any]:
            ws, config = warm.place.open()
            return status_json(ws, config, make_plan(ws, config), not_fresh=not_fresh)

        return await _answer(work, warm.place, ctx)

    @_tool(server, READ)
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
        from skillwiki.memory.suggest import read_run
        from skillwiki.memory.suggest import suggest as run

        named = feedback.get("transcript_path")
        roots = await _declared_roots(ctx) if isinstance(named, str) and named else []

        def work() -> dict[str, Any]:
            ws, config = warm.place.open()
            given = feedback
            if isinstance(named, str) and named:
                given = {**feedback, "transcript_path": _transcript_inside(named, ws.root, roots)}
            proposal = run(read_run(given, "feedback"), config.suggest)
            answered = suggest_json(proposal)
            if proposal is not None:
                answered["record_lesson"] = record_lesson_fields(proposal.lesson)
            return answered

        return await _answer(work, warm.place, ctx)


def _resources(server: WikiServer) -> None:
    warm = server.warm
    told = AS_THEY_ARE if warm.read_only else COMPILES_FIRST

    @server.resource(
        INDEX_URI,
        name="index",
        title="Wiki index",
        description=f"index.md: every article of the wiki with its summary, by folder. {told}",
        mime_type="text/markdown",
    )
    def index() -> str:
        def work() -> str:
            with warm.reading() as read:
                return read.ws.index_md.read_text(encoding="utf-8")

        return _resource(work)

    @server.resource(
        ARTICLE_URI + "{+path}",
        name="article",
        title="Wiki article",
        description=f"One compiled article of the wiki, by its path below .wiki/wiki/. {told}",
        mime_type="text/markdown",
    )
    def article(path: str) -> str:
        from skillwiki.reading import show as run

        def work() -> str:
            with warm.reading() as read:
                return run(read.ws, "wiki/" + path, read.config.fingerprint).text

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


def _prompts(server: WikiServer, read_only: bool) -> None:
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


def _writing_tools(server: WikiServer) -> None:
    warm = server.warm

    @_tool(server, ADD)
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
        from skillwiki.compiler import compile_workspace
        from skillwiki.memory.lessons import lesson_input, record

        def work() -> dict[str, Any]:
            ws, config = warm.place.open()
            lesson = lesson_input(
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
            recorded = record(ws, config, lesson, dedupe=dedupe, expected=expect_fingerprint)
            # Compiled by a look as a read makes it, which the watcher tells what changed: a
            # whole compile listed every file (300 ms of the call at 11k articles). When
            # another process writes, the look leaves it: then wait for the lock, as the CLI.
            warm.forget()
            with warm.reading() as read:
                skipped = read.skipped
            if skipped is not None:
                compile_workspace(ws, config)
            return asdict(recorded)

        return await _answer(work, warm.place, ctx)

    @_tool(server, ADD)
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
        from skillwiki.memory.evidence import feedback as run

        def work() -> dict[str, Any]:
            ws, config = warm.place.open()
            today = clock.today()
            result = run(ws, config, lesson_id, outcome.value, note, today, expect_fingerprint)
            warm.forget()
            return asdict(result)

        return await _answer(work, warm.place, ctx)
