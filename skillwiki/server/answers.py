"""How a tool's work is run and answered: on a worker thread or, for a quiet workspace, at
once; a skillwiki error as the tool's error with the CLI's text; the CLI's warnings beside
the answer; and the client's roots, asked for once, that bound the files a tool may read."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import unquote, urlparse

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ContentBlock, TextContent

from skillwiki.errors import InputError, SkillwikiError
from skillwiki.server.live import LiveWorkspace, Reading, WorkspaceLookup

ROOTS_WAIT = 5.0  # seconds the first call waits for the client's roots, at most
_LOG = logging.getLogger("skillwiki.server")
Answer = TypeVar("Answer")


async def answer(
    work: Callable[[], Answer], lookup: WorkspaceLookup, ctx: Context[Any, Any] | None
) -> Answer:
    """Run a tool's work on a worker thread (the client asked for its roots first, once)."""
    await _learn_roots(lookup, ctx)
    return await anyio.to_thread.run_sync(guarded, work)


async def read_answer(
    work: Callable[[Reading], Answer], live: LiveWorkspace, ctx: Context[Any, Any] | None
) -> Answer:
    """Run a read's work on the workspace: at once, on this thread, when nothing changed since
    the last look and no other read has the turn (live.at_once); else on a worker thread, which
    waits for its turn and looks first."""
    await _learn_roots(live.lookup, ctx)
    with live.at_once() as read:
        if read is not None:
            return guarded(partial(work, read))

    def looked() -> Answer:
        with live.reading() as read:
            return work(read)

    return await anyio.to_thread.run_sync(guarded, looked)


def guarded(work: Callable[[], Answer]) -> Answer:
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


def noted(answer: dict[str, Any], notices: Sequence[str] = ()) -> dict[str, Any]:
    """The answer, and beside it what the CLI would warn of on stderr (the answer value's
    `notices`: nothing compiled while another process writes, a raw file that could not be
    compiled, the words a query left out) in a text block of its own: the answer's own block
    and its structured content stay the CLI's --json object."""
    if not notices:
        return answer
    import pydantic_core

    text = pydantic_core.to_json(answer, fallback=str, indent=2).decode()  # as the SDK writes it
    blocks: list[ContentBlock] = [TextContent(type="text", text=text)]
    blocks += [TextContent(type="text", text=f"Warning: {notice}") for notice in notices]
    return cast(dict[str, Any], CallToolResult(content=blocks, structured_content=answer))


async def _learn_roots(lookup: WorkspaceLookup, ctx: Context[Any, Any] | None) -> None:
    """Ask the client for its roots once, when nothing more explicit names the workspace; a
    call made meanwhile waits for the answer, ROOTS_WAIT at most."""
    if ctx is None or lookup.explicit is not None:
        return
    if lookup.roots_asked is not None:
        await lookup.roots_asked.wait()
        return
    lookup.roots_asked = anyio.Event()
    try:
        capabilities = ctx.client_capabilities
        if capabilities is not None and capabilities.roots is not None:
            lookup.roots = await _roots(ctx)
    finally:
        lookup.roots_asked.set()


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


async def declared_roots(ctx: Context[Any, Any] | None) -> list[Path]:
    """The roots the client declares now (it may change them), if it has the capability."""
    if ctx is None:
        return []
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return []
    return await _roots(ctx)


def transcript_inside(path: str, root: Path, roots: Sequence[Path]) -> str:
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
    for lookup in (root, *roots):
        if real is not None and real.is_relative_to(os.path.realpath(lookup)):
            return str(real)
    shown = path if len(path) <= 200 else path[:199] + "…"
    raise InputError(
        "feedback",
        f"transcript_path {shown!r} is outside the workspace and the roots the client declared; "
        "this server reads no transcript there (pass the run's tool_calls instead)",
    )
