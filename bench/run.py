"""Whole-process timings of skillwiki on a real corpus, beside ripgrep on the same files.

Usage: python bench/run.py [--corpus DIR] [--runs N] [--keep DIR]

Builds a workspace by copying the corpus (default: ../shared/corpora/tldr/en next to this
checkout) into a temporary repository and ingesting it, then prints the median of N
whole-process runs (after one warm-up) for each figure, and the ratio against `rg -il`.
Run it by hand; CI does not.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "tldr" / "en"
CLI = [sys.executable, "-m", "skillwiki"]


def timed(argv: Sequence[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def median_of(argv: Sequence[str], cwd: Path, runs: int) -> float:
    timed(argv, cwd)  # warm-up: page cache, stat cache, search index
    return statistics.median(timed(argv, cwd) for _ in range(runs))


def size_of(folder: Path, pattern: str = "*") -> int:
    return sum(p.stat().st_size for p in folder.rglob(pattern) if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build the workspace here and keep it")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"corpus not found: {args.corpus}")
    root = args.keep or Path(tempfile.mkdtemp(prefix="skillwiki-bench-"))
    pages = root / "pages"
    if root.exists() and args.keep:
        shutil.rmtree(root)
    shutil.copytree(args.corpus, pages)
    files = sum(1 for p in pages.rglob("*.md"))
    print(f"corpus: {args.corpus} ({files} Markdown files, {size_of(pages) / 1e6:.1f} MB)")
    subprocess.run([*CLI, "init", "-w", str(root)], check=True, stdout=subprocess.DEVNULL)
    ingest = timed([*CLI, "-w", str(root), "ingest", "pages", "--no-compile"], root)
    first_compile = timed([*CLI, "-w", str(root), "compile"], root)
    first_query = timed([*CLI, "-w", str(root), "query", "extract archive"], root)
    print(f"ingest (copy into raw/):          {ingest:7.2f} s")
    print(f"first compile:                    {first_compile:7.2f} s")
    print(f"first query (builds the index):   {first_query:7.2f} s")
    figures = {
        "query, no change": [*CLI, "-w", str(root), "query", "extract files from archive"],
        "query --json, no change": [*CLI, "-w", str(root), "query", "tar", "--json"],
        "status, no change": [*CLI, "-w", str(root), "status"],
        "--version": [*CLI, "--version"],
    }
    baseline = median_of(["rg", "-il", "archive", str(pages)], root, args.runs)
    print(f"rg -il archive (baseline):        {baseline * 1000:7.1f} ms  (median of {args.runs})")
    for label, argv in figures.items():
        value = median_of(argv, root, args.runs)
        print(f"{label + ':':<34}{value * 1000:7.1f} ms  = {value / baseline:5.1f}x rg")
    index = root / ".wiki" / ".cache" / "search.sqlite"
    print(
        f"search index: {index.stat().st_size / 1e6:.1f} MB for "
        f"{size_of(root / '.wiki' / 'wiki') / 1e6:.1f} MB of articles"
    )
    if not args.keep:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
