"""What one command leaves for the next: the first query after a compile, the query after a
write, --no-compile, and the first query of a fresh clone, by turns between versions of the code.

Usage:
  python bench/first_query.py TREE [TREE...] --code OLD=DIR --code NEW=DIR [--runs 3]
                              [--word archive] [--clone] [--semantic]

Each version (its package on PYTHONPATH) gets a workspace of its own: a fresh `git init`
folder, `skillwiki init`, `ingest TREE --no-compile` for each TREE, `compile`. Then, by turns
between the versions, each run measures whole processes (wall seconds, and CPU seconds of the
process and the workers it waited for, from os.wait4):

- the first query (its index removed first: it builds it from what the compile left) and the
  query after it;
- a query with nothing changed; `record-lesson`, then the query after it;
- `query --no-compile`, then the query after it;
- with --clone: the workspace committed (.wiki without .cache, as its .gitignore says) and
  cloned, and the clone's first query.

Printed: the medians of each figure for each version. SKILLWIKI_SEMANTIC=0 unless --semantic
(embedding every article is the same work in every version). Run by hand: CI does not run it.
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

Figures = dict[str, list[tuple[float, float]]]  # figure -> (wall s, CPU s) of each run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--code", action="append", required=True, help="NAME=DIR of a version")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--word", default="archive")
    parser.add_argument("--clone", action="store_true")
    parser.add_argument("--semantic", action="store_true")
    args = parser.parse_args()
    versions = dict(item.split("=", 1) for item in args.code)
    base = Path(tempfile.mkdtemp(prefix="first-query-"))
    figures: dict[str, Figures] = {name: {} for name in versions}
    try:
        roots = {}
        for name, code in versions.items():
            env = _env(code, args.semantic)
            roots[name] = _workspace(base / name, args.trees, env, figures[name])
        for run in range(args.runs):
            for name, code in versions.items():
                env = _env(code, args.semantic)
                _turn(roots[name], args.word, env, figures[name], run)
                if args.clone:
                    _clone(roots[name], base / f"{name}-clone", args.word, env, figures[name])
        _report(figures)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _env(code: str, semantic: bool) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve())}
    if not semantic:
        env["SKILLWIKI_SEMANTIC"] = "0"
    return env


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Run a command to its end; its wall and CPU seconds (with the workers it waited for)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        sys.exit(f"{' '.join(command)} failed in {cwd}: {error}")
    if process.stderr:
        process.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def _skillwiki(*args: str) -> list[str]:
    return [sys.executable, "-m", "skillwiki", *args]


def _workspace(root: Path, trees: list[Path], env: dict[str, str], figures: Figures) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    _run(_skillwiki("init"), root, env)
    for tree in trees:
        shutil.copytree(tree, root / tree.name)
        _run(_skillwiki("ingest", tree.name, "--no-compile"), root, env)
    figures.setdefault("compile (after ingest --no-compile)", []).append(
        _run(_skillwiki("compile"), root, env)
    )
    return root


def _turn(root: Path, word: str, env: dict[str, str], figures: Figures, run: int) -> None:
    def timed(figure: str, *args: str) -> None:
        figures.setdefault(figure, []).append(_run(_skillwiki(*args), root, env))

    for leftover in (root / ".wiki" / ".cache").glob("search.sqlite*"):
        leftover.unlink()
    timed("first query (builds the index)", "query", word)
    timed("the query after it", "query", word)
    time.sleep(2.5)  # past the stat cache's racy window, as a query a moment later
    timed("query, no change", "query", word)
    title = f"Benchmark lesson {run} {time.time_ns()}"
    timed("record-lesson", "record-lesson", "--title", title, "--summary", "A lesson.")
    timed("query after record-lesson", "query", word)
    time.sleep(2.5)
    timed("query --no-compile", "query", word, "--no-compile")
    timed("query after --no-compile", "query", word)


def _clone(root: Path, clone: Path, word: str, env: dict[str, str], figures: Figures) -> None:
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    subprocess.run([*git, "add", "-A", ".wiki"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "wiki", "--allow-empty"], cwd=root, check=True)
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--no-local", str(root), str(clone)], check=True)
    figures.setdefault("fresh clone, first query", []).append(
        _run(_skillwiki("query", word), clone, env)
    )
    shutil.rmtree(clone, ignore_errors=True)


def _report(figures: dict[str, Figures]) -> None:
    names = list(figures)
    print(f"| figure (medians: wall s / CPU s) | {' | '.join(names)} |")
    print(f"|---|{'---|' * len(names)}")
    for figure in figures[names[0]]:
        cells = []
        for name in names:
            runs = figures[name].get(figure, [])
            wall = statistics.median(w for w, _ in runs) if runs else float("nan")
            cpu = statistics.median(c for _, c in runs) if runs else float("nan")
            cells.append(f"{wall:.3f} / {cpu:.3f} (n={len(runs)})")
        print(f"| {figure} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
