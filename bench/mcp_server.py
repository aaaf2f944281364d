"""skillwiki mcp speed: start to first tools/list, then warm `query` calls, beside the CLI.

Usage:
  python bench/mcp_server.py WORKSPACE [--runs 15]   # a compiled workspace

Figures are medians over --runs calls in one server process, after one warm-up call; "after
a change" touches one raw file before each call. Run by hand: CI does not run it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def measure(ws: Path, runs: int, word: str) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillwiki", "mcp", "-w", str(ws)]
    )
    started = time.monotonic()
    async with stdio_client(params) as (read, send), ClientSession(read, send) as session:
        await session.initialize()
        await session.list_tools()
        print(f"start to first tools/list: {(time.monotonic() - started) * 1000:.0f} ms")
        await session.call_tool("query", {"text": word})
        plain, changed = [], []
        raw = next((ws / ".wiki" / "raw").rglob("*.md"))
        for number in range(runs):
            at = time.monotonic()
            await session.call_tool("query", {"text": word})
            plain.append(time.monotonic() - at)
            raw.write_text(raw.read_text() + f"\nline {number}\n")
            at = time.monotonic()
            await session.call_tool("query", {"text": word})
            changed.append(time.monotonic() - at)
        print(f"query, no change: {statistics.median(plain) * 1000:.1f} ms (median of {runs})")
        print(f"query after 1 raw change: {statistics.median(changed) * 1000:.1f} ms")
    cli = []
    for _ in range(5):
        at = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "skillwiki", "-w", str(ws), "query", word],
            capture_output=True,
            check=True,
        )
        cli.append(time.monotonic() - at)
    print(f"CLI query, whole process: {statistics.median(cli) * 1000:.0f} ms (median of 5)")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of a child (server or CLI): {peak:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--word", default="archive")
    args = parser.parse_args()
    os.environ.setdefault("NO_COLOR", "1")
    anyio.run(measure, args.workspace, args.runs, args.word)


if __name__ == "__main__":
    main()
