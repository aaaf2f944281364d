"""`skillwiki mcp`: skillwiki's read and memory commands as MCP tools over stdio.

Built on the MCP Python SDK (the `mcp` extra), imported only here. Each tool answers with the
object the CLI prints for `--json`, built for both by skillwiki.api (this face never imports the
command line's); a skillwiki error becomes a tool error with the CLI's text.
The workspace stays open between calls (skillwiki.server.live): a read looks at the files
again only when the kernel reports a change under .wiki/ (else, on systems without a watcher,
at every call, as the CLI does), so the server follows files changed under it and writes made
by the CLI meanwhile, and answers "run skillwiki init" until there is one. Besides the tools:
index.md and each article as resources, and a prompt that walks suggest, the user's answer,
and record_lesson.

Its reads compile the raw files changed since, as the CLI's do (their annotations say they
write); a --read-only server writes nothing at all (live.LiveWorkspace.read_only) and says
so. Errors are the ones the MCP specification names, where the SDK answers otherwise: see
WikiServer.

The package: app (the server and how it answers), tools, resources (and the prompt), answers
(how a tool's work runs), jsonrpc (lines that are no request) and _sdk, the one module that
reaches into the SDK's private parts; and serve (`skillwiki serve`: the kept-open workspace
answering the command line on a unix socket), which needs none of the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillwiki import lazy

if TYPE_CHECKING:
    from skillwiki.server.app import WikiServer
    from skillwiki.server.live import WorkspaceLookup

__all__ = ["WikiServer", "build"]

# The SDK is imported with the MCP server's modules, when they are first asked for (WikiServer,
# `server.app`): `skillwiki serve` (serve.py, live.py) runs without it.
__getattr__ = lazy.exports(
    __name__,
    {"WikiServer": "app"},
    modules={"app", "answers", "tools", "resources", "jsonrpc", "_sdk"},
)


def build(lookup: WorkspaceLookup, *, read_only: bool) -> WikiServer:
    """The server: the reading tools, the resources and the prompt, and the writing tools
    unless `read_only` (then a client that calls them anyway is told the server is read-only,
    as invalid params)."""
    from skillwiki.server.app import WikiServer
    from skillwiki.server.live import LiveWorkspace
    from skillwiki.server.resources import prompts, register_resources
    from skillwiki.server.tools import memory_tools, reading_tools, rule_tools, writing_tools

    server = WikiServer(LiveWorkspace(lookup, follow=True, read_only=read_only))
    reading_tools(server)
    memory_tools(server)
    register_resources(server)
    prompts(server, read_only)
    if not read_only:
        writing_tools(server)
    rule_tools(server)
    return server
