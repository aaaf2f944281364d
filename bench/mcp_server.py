"""skillwiki mcp speed: start to first tools/list, then warm `query` calls, beside the CLI.

Usage:
  python bench/mcp_server.py WORKSPACE [--runs 15] [--word archive] [--queries bench/eval/en.tsv]
                             [--change pages/common/tar.md] [--pause 100]

Figures are medians over --runs rounds in one server process, after one warm-up call. With
--queries, a round asks every query of the file (its first column) and the median is over
all those calls; else a round asks --word. "After a change" gives one raw file (--change,
else the first by path, as bench/warm_change.py picks it) another last line before a call
(the file is put back as it was at the end: runs do not make it grow), and "the call after"
is the next call, with nothing changed.
"The first raw change" is one call, the first to follow a change in that server, made after
the server was left idle for a moment (as it is between an agent's calls).
"After a pause" waits --pause milliseconds between the change and the call, as an agent's turn
does (for longer): the server follows the wiki, and has looked by then. The same pause with
nothing changed is measured too: on a quiet machine a call after an idle moment is slower than
one straight after another, change or not, so that is the figure to compare it with.
"Over the bare pipe" asks the same calls of another server as JSON-RPC lines, without the SDK
client, whose own work on each answer is part of the first figures. The server and the CLI
run in the workspace, so that PYTHONPATH picks the code measured. Run by hand: CI does not
run it.
"""

from __future__ import annotations

import argparse
import json
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

from skillwiki.server.live import IDLE as SERVER_IDLE

IDLE = SERVER_IDLE + 0.5  # longer than a server waits, after a call, before its idle work


async def measure(ws: Path, runs: int, words: list[str], change: Path | None, pause: float) -> None:
    # The whole environment, so that PYTHONPATH picks the code measured; and the workspace as
    # the working directory, which `python -m` puts ahead of PYTHONPATH (run from a checkout,
    # it would measure the checkout).
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skillwiki", "mcp", "-w", str(ws)],
        env=dict(os.environ),
        cwd=str(ws),
    )
    started = time.monotonic()
    async with stdio_client(params) as (read, send), ClientSession(read, send) as session:
        await session.initialize()
        await session.list_tools()
        print(f"start to first tools/list: {(time.monotonic() - started) * 1000:.0f} ms")

        async def timed(word: str) -> float:
            at = time.monotonic()
            result = await session.call_tool("query", {"text": word})
            assert not result.is_error, result
            return time.monotonic() - at

        await timed(words[0])
        plain = [await timed(word) for _ in range(runs) for word in words]
        print(f"query, no change: {ms(plain)} (median of {len(plain)})")
        idle = []
        for number in range(runs):
            await anyio.sleep(pause)
            idle.append(await timed(words[number % len(words)]))
        print(f"query, no change, after a pause of {pause * 1000:.0f} ms: {ms(idle)}")
        changed, paused, after = [], [], []
        raw = ws / ".wiki" / "raw" / change if change else min((ws / ".wiki" / "raw").rglob("*.md"))
        original = raw.read_bytes()
        try:
            await anyio.sleep(IDLE)  # a server once idle makes the compiler ready
            raw.write_bytes(original + b"\nthe first change\n")
            first = await timed(words[0])
            for number in range(runs):  # another last line each time; its bytes put back after
                raw.write_bytes(original + f"\nline {number}\n".encode())
                changed.append(await timed(words[number % len(words)]))
                after.append(await timed(words[number % len(words)]))
                raw.write_bytes(original + f"\nline {number} again\n".encode())
                await anyio.sleep(pause)
                paused.append(await timed(words[number % len(words)]))
        finally:
            raw.write_bytes(original)
        print(f"query after the first raw change, {IDLE:.1f} s after the last call: {ms([first])}")
        print(f"query after 1 raw change: {ms(changed)}; the call after: {ms(after)}")
        print(f"query after 1 raw change and a pause of {pause * 1000:.0f} ms: {ms(paused)}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the server: {peak:.0f} MiB")
    piped = over_the_pipe(params, runs, words)
    print(f"query, no change, over the bare pipe: {ms(piped)} (median of {len(piped)})")
    cli = []
    for _ in range(5):
        at = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "skillwiki", "-w", str(ws), "query", words[0]],
            capture_output=True,
            check=True,
            cwd=ws,
        )
        cli.append(time.monotonic() - at)
    print(f"CLI query, whole process: {ms(cli)} (median of 5)")


def over_the_pipe(params: StdioServerParameters, runs: int, words: list[str]) -> list[float]:
    """The same calls, no change, to a server of its own, as JSON-RPC lines written to its
    stdin and read from its stdout: what the server and the pipe take, without the SDK
    client's own work on each answer (it parses the result into its types and checks the
    structured content against the tool's output schema)."""
    server = subprocess.Popen(
        [params.command, *params.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=params.env,
        cwd=params.cwd,
    )
    assert server.stdin is not None and server.stdout is not None
    sent = 0

    def ask(method: str, arguments: dict[str, object]) -> dict[str, object]:
        nonlocal sent
        sent += 1
        line = {"jsonrpc": "2.0", "id": sent, "method": method, "params": arguments}
        server.stdin.write(json.dumps(line).encode() + b"\n")
        server.stdin.flush()
        while True:  # notifications (a log line) come before the answer
            answer: dict[str, object] = json.loads(server.stdout.readline())
            if answer.get("id") == sent:
                return answer

    def timed(word: str) -> float:
        at = time.monotonic()
        answer = ask("tools/call", {"name": "query", "arguments": {"text": word}})
        result = answer.get("result")
        assert isinstance(result, dict) and not result.get("isError"), answer
        return time.monotonic() - at

    try:
        hello = {"name": "bench", "version": "0"}
        version = "2025-06-18"  # one every 2.x server speaks
        ask("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": hello})
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        timed(words[0])
        return [timed(word) for _ in range(runs) for word in words]
    finally:
        server.stdin.close()
        server.wait(30)


def ms(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--word", default="archive")
    parser.add_argument("--queries", type=Path, help="a file of queries, one per line (TSV)")
    parser.add_argument("--change", type=Path, help="the raw file to change (below .wiki/raw/)")
    parser.add_argument("--pause", type=float, default=100, help="milliseconds (see above)")
    args = parser.parse_args()
    words = [args.word]
    if args.queries:
        lines = args.queries.read_text(encoding="utf-8").splitlines()
        words = [line.split("\t")[0] for line in lines if line and not line.startswith("#")]
    os.environ.setdefault("NO_COLOR", "1")
    anyio.run(measure, args.workspace, args.runs, words, args.change, args.pause / 1000)


if __name__ == "__main__":
    main()
