"""The call made at once after a raw change, in-process: a warm workspace as the MCP server
keeps it (`server.live`, following the wiki), without the client's round trip and its noise.

Usage:
  python bench/warm_change.py WORKSPACE [--change pages/common/tar.md] [--runs 20]
                              [--word archive]

Each run gives the raw file (--change, else the first found) another last line, then at once
asks `query` for --word, then asks again with nothing changed. Printed: the medians of both,
and how many looks took the stat cache over from memory. The file is put back as it was at
the end. Run by hand: CI does not run it. Compare code by turns, with PYTHONPATH.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from skillwiki.search import search
from skillwiki.server.live import LiveWorkspace, WorkspaceLookup
from skillwiki.statcache import StatCache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--change", default=None, help="a raw file, relative to .wiki/raw/")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--word", default="archive")
    args = parser.parse_args()
    raw_root = args.workspace / ".wiki" / "raw"
    raw = raw_root / args.change if args.change else min(raw_root.rglob("*.md"))
    taken = [0]
    take_over = getattr(StatCache, "take_over", None)  # absent from code before it

    if take_over is not None:

        def counted(self: StatCache, *rest: object) -> bool:
            done = bool(take_over(self, *rest))
            taken[0] += done
            return done

        StatCache.take_over = counted  # type: ignore[method-assign]
    warm = LiveWorkspace(WorkspaceLookup(args.workspace), follow=True)

    def timed() -> float:
        started = time.perf_counter()
        with warm.reading() as read:
            search(read.ws, args.word, db=read.index)
        return time.perf_counter() - started

    for _ in range(3):
        timed()
    original = raw.read_bytes()
    changed, after = [], []
    try:
        for run in range(args.runs):
            raw.write_bytes(original + f"\nrun {run}\n".encode())
            changed.append(timed())
            after.append(timed())
    finally:
        raw.write_bytes(original)
        time.sleep(0.3)
        timed()
        warm.close()
    print(f"query at once after 1 raw change: {ms(changed)}; the call after: {ms(after)}")
    print(f"looks that took the stat cache over from memory: {taken[0]} of {args.runs + 1}")


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms (median of {len(values)})"


if __name__ == "__main__":
    main()
