"""Where skillwiki's server reaches into the MCP SDK's private parts: the only module that does.

Three seams, each pinned by tests/test_mcp.py at both ends of the declared range of `mcp`:
run_stdio_async runs the SDK's private low-level server (`_lowlevel_server`) over its stdio
transport, to answer a line that is no JSON-RPC request; resources/list goes through the
private `_handle_list_resources`, to be paged; each tool's argument reader, kept in the
private tool manager (`_tool_manager`), is replaced so that arguments are read as sent.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.shared.message import SessionMessage
from mcp.types import ListResourcesResult, PaginatedRequestParams
from pydantic import PrivateAttr

from skillwiki.server.jsonrpc import unreadable

_LOG = logging.getLogger("skillwiki.server")


class SdkServer(MCPServer[Any], ABC):
    """The SDK's server, serving over stdio as JSON-RPC says and listing resources a page at
    a time (resources_page)."""

    async def run_stdio_async(self) -> None:
        """Serve over stdio, answering a line that is no JSON-RPC request as JSON-RPC says
        (`jsonrpc.unreadable`): the SDK's stdio transport hands such a line to the server as an
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
                        elif (error := unreadable(line)) is not None:
                            _LOG.info("Answered a line that is no request: %s", error.error)
                            await replies.send(SessionMessage(error))

            async with anyio.create_task_group() as group:
                group.start_soon(relay)
                await lowlevel.run(receive, replies, lowlevel.create_initialization_options())
                group.cancel_scope.cancel()

    async def _handle_list_resources(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return await self.resources_page(params.cursor if params is not None else None)

    @abstractmethod
    async def resources_page(self, cursor: str | None) -> ListResourcesResult:
        """The page of resources/list after `cursor` (None: the first): the server's own."""


class AsSent(FuncMetadata):
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


def read_as_sent(server: MCPServer[Any], name: str) -> None:
    """Have the tool `name` read its arguments as sent (AsSent): the SDK keeps its tools'
    argument readers in its private tool manager, which tests/test_mcp.py pins."""
    tool = server._tool_manager.get_tool(name)
    assert tool is not None, name
    meta = tool.fn_metadata
    sent = AsSent(
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
