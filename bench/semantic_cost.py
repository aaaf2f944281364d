"""What the `semantic` extra costs on one corpus: its first index, its index's size, and a
command-line query with it beside the same query without it, by turns.

Usage:
  python bench/semantic_cost.py                        # tldr (en), 9 turns
  python bench/semantic_cost.py --corpus tldr/zh --runs 15 --query "解压缩归档文件"

The corpus (a folder below ../shared/corpora next to this checkout, or --shared) is copied into
two fresh workspaces, one built with the extra on and one with SKILLWIKI_SEMANTIC=0: `init`,
`ingest --no-compile`, `compile`, then the first query, which builds the search index (with
the extra, every article embedded by both models). Then, by turns on the first workspace (its
index holds the vectors, so turning the extra off changes nothing in it), the query with the
extra and with SKILLWIKI_SEMANTIC=0, after one warm-up of each. Every figure is a whole
process's: wall seconds, and CPU seconds (user + sys) of it and of the workers it waited for,
from os.wait4. No server answers (SKILLWIKI_NO_SERVER=1). The load average is printed beside,
since other work on the machine moves the wall figures more than the CPU ones. Run by hand:
CI does not run it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-m", "skillwiki"]


def timed(argv: list[str], cwd: Path, semantic: bool) -> tuple[float, float]:
    """One whole process: (wall s, CPU s of it and the workers it waited for)."""
    env = {**os.environ, "SKILLWIKI_SEMANTIC": "1" if semantic else "0", "SKILLWIKI_NO_SERVER": "1"}
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime


def size_of(folder: Path, pattern: str = "*") -> int:
    return sum(p.stat().st_size for p in folder.rglob(pattern) if p.is_file())


def load() -> str:
    return "load " + " ".join(f"{figure:.2f}" for figure in os.getloadavg())


def build(root: Path, pages: Path, query: str, semantic: bool) -> list[str]:
    """A workspace of the corpus, its first index timed; rows of the table."""
    shutil.copytree(pages, root / "pages")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    label = "with the extra" if semantic else "without it"
    rows = []
    for figure, argv in (
        ("ingest --no-compile", ["ingest", "pages", "--no-compile"]),
        ("compile", ["compile"]),
        ("first query (builds the index)", ["query", query]),
    ):
        if figure.startswith("ingest"):
            timed([*CLI, "init"], root, semantic)
        wall, cpu = timed([*CLI, *argv], root, semantic)
        rows.append(f"| {figure}, {label} | {wall:.1f} s | {cpu:.1f} s | {load()} |")
    index = size_of(root / ".wiki" / ".cache", "search.sqlite*")
    source = size_of(root / "pages", "*.md")
    articles = size_of(root / ".wiki" / "wiki")
    rows.append(
        f"| index, {label} | {index / 1e6:.1f} MB | {index / source:.2f}× the pages' "
        f"{source / 1e6:.1f} MB, {index / articles:.2f}× the articles' {articles / 1e6:.1f} MB | |"
    )
    return rows


def by_turns(root: Path, query: str, runs: int) -> list[str]:
    """The query with the extra and without it, alternating; medians and their ratio."""
    argv = [*CLI, "query", query]
    found: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for semantic in (True, False):
        timed(argv, root, semantic)
    before = load()
    for _ in range(runs):
        for semantic in (True, False):
            found[semantic].append(timed(argv, root, semantic))
    wall = {key: statistics.median(w for w, _ in runs_) * 1000 for key, runs_ in found.items()}
    cpu = {key: statistics.median(c for _, c in runs_) * 1000 for key, runs_ in found.items()}
    on, off = (f"{wall[key]:.0f} ms | {cpu[key]:.0f} ms" for key in (True, False))
    return [
        f"| query {query!r}, with the extra | {on} | {before} |",
        f"| the same, SKILLWIKI_SEMANTIC=0 | {off} | {load()} |",
        f"| with ÷ without | {wall[True] / wall[False]:.2f}× | {cpu[True] / cpu[False]:.2f}× | |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="tldr/en")
    parser.add_argument("--query", default="extract files from archive")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    args = parser.parse_args()
    pages = args.shared / "corpora" / args.corpus
    base = Path(tempfile.mkdtemp(prefix="semantic-cost-"))
    try:
        print(f"{args.corpus}: {os.cpu_count()} cores, medians of {args.runs} turns\n")
        print("| figure | wall | CPU (user+sys) | load (1, 5, 15 min) |\n|---|---|---|---|")
        for semantic in (True, False):
            for row in build(base / str(semantic), pages, args.query, semantic):
                print(row, flush=True)
        for row in by_turns(base / "True", args.query, args.runs):
            print(row, flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
