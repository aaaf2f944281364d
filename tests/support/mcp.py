"""Clients of a real `skillwiki mcp` subprocess: the MCP SDK's own stdio client, and a raw
JSON-RPC client that writes lines as any client might."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

Session = Callable[[ClientSession], Awaitable[Any]]


def serve(
    workspace: Path | None,
    work: Session,
    *args: str,
    cwd: Path | None = None,
    roots: list[Path] | None = None,
) -> Any:
    """Run `work` in a session of the official SDK's stdio client with a real server
    subprocess (`skillwiki mcp`, -w `workspace`, `args`), answering roots/list with `roots`."""
    chosen = ["-w", str(workspace)] if workspace is not None else []
    env = {key: value for key, value in os.environ.items() if key != "CLAUDE_PROJECT_DIR"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skillwiki", "mcp", *chosen, *args],
        cwd=cwd,
        env=env,
    )

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=root.as_uri()) for root in roots or []]  # type: ignore[arg-type]
        )

    async def main() -> Any:
        async with (
            stdio_client(params) as (read, send),
            ClientSession(read, send, list_roots_callback=list_roots if roots else None) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(main)


def raw_session(workspace: Path, lines: list[str]) -> list[dict[str, Any] | None]:
    """Write each line to a server's stdin as a client would, and read the one message it
    answers (None: none came within a few seconds, as for a notification)."""
    import queue
    import threading

    server = subprocess.Popen(
        [sys.executable, "-m", "skillwiki", "mcp", "-w", str(workspace), "--read-only"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    answers: queue.Queue[str] = queue.Queue()
    stdout = server.stdout

    def read() -> None:
        for line in stdout:
            answers.put(line)

    threading.Thread(target=read, daemon=True).start()
    got: list[dict[str, Any] | None] = []
    try:
        for line in lines:
            server.stdin.write(line + "\n")
            server.stdin.flush()
            answered = not line.startswith('{"jsonrpc": "2.0", "method": "notifications/')
            try:
                got.append(json.loads(answers.get(timeout=30 if answered else 0.5)))
            except queue.Empty:
                got.append(None)
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        server.kill()
        server.wait()
        stdout.close()
        if server.stderr is not None:
            server.stderr.close()
    return got
