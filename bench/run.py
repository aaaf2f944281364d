"""skillwiki's benchmark: whole-process timings beside ripgrep, index size, memory, recall.

Usage:
  python bench/run.py                      # tldr (en), 10k and 50k synthetic, recall (en, zh)
  python bench/run.py --corpora tldr,10k   # a subset
  python bench/run.py --runs 9             # more runs per figure (default 7)

Each corpus is copied (or generated) into a fresh temporary repository, ingested with
--no-compile, compiled, then queried. Figures are medians of whole-process runs after one
warm-up, each beside `rg -il WORD` over the same Markdown in the same run. The tldr
pages are read from ../shared/corpora next to this checkout (or --shared). Run by hand: CI
does not run it.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import synth  # noqa: E402

CLI = [sys.executable, "-m", "skillwiki"]
TARGETS = {  # figure -> (target, stretch) as in the performance issue, for the table
    "query": "≤150/200/450 ms",
    "query after 1 change": "≤1.3× query",
    "status": "≤100 ms (tldr)",
    "--version": "≤40 ms",
}


@dataclass
class Run:
    seconds: float
    max_rss_kib: int


def run(argv: Sequence[str], cwd: Path) -> Run:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}")
    return Run(elapsed, usage.ru_maxrss)


def median_ms(
    argv: Sequence[str], cwd: Path, runs: int, before: Callable[[], None] | None = None
) -> tuple[float, int]:
    run(argv, cwd)
    results = []
    for _ in range(runs):
        if before:
            before()
        results.append(run(argv, cwd))
    return statistics.median(r.seconds for r in results) * 1000, max(r.max_rss_kib for r in results)


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build(name: str, root: Path, shared: Path) -> Path:
    pages = root / "pages"
    if name.startswith("tldr"):
        language = name.partition("-")[2] or "en"
        shutil.copytree(shared / "corpora" / "tldr" / language, pages)
    else:
        synth.generate(pages, int(name.removesuffix("k")) * 1000)
    subprocess.run([*CLI, "init", "-w", str(root)], check=True, stdout=subprocess.DEVNULL)
    return pages


def bench(name: str, shared: Path, runs: int, word: str, query: str) -> list[str]:
    root = Path(tempfile.mkdtemp(prefix=f"skillwiki-bench-{name}-"))
    try:
        pages = build(name, root, shared)
        files = sum(1 for _ in pages.rglob("*.md"))
        rows = [f"### {name}: {files} files, {size_of(pages) / 1e6:.1f} MB of Markdown", ""]
        rows += ["| figure | median | × rg | peak RSS |", "|---|---|---|---|"]
        ingest = run([*CLI, "-w", str(root), "ingest", "pages", "--no-compile"], root)
        compile_ = run([*CLI, "-w", str(root), "compile"], root)
        first = run([*CLI, "-w", str(root), "query", query], root)
        time.sleep(2.5)  # files written in the last 2 s are re-checked (racily clean): settle
        rg, _ = median_ms(["rg", "-il", word, str(pages)], root, runs)
        rows.append(f"| rg -il {word} (baseline) | {rg:.1f} ms | 1.0 | |")
        target = next(p for p in sorted((root / ".wiki" / "raw").rglob("*.md")))
        counter = iter(range(10**6))

        def touch() -> None:
            with target.open("a", encoding="utf-8") as handle:
                handle.write(f"\nEdit {next(counter)}.\n")

        figures = {  # the no-change figures first, on a settled workspace
            "query, no change": ([*CLI, "-w", str(root), "query", query], None),
            "status, no change": ([*CLI, "-w", str(root), "status"], None),
            "--version": ([*CLI, "--version"], None),
            "query after 1 raw change": ([*CLI, "-w", str(root), "query", query], touch),
        }
        for label, (argv, before) in figures.items():
            value, rss = median_ms(argv, root, runs, before)
            rows.append(f"| {label} | {value:.1f} ms | {value / rg:.1f} | {rss / 1024:.0f} MiB |")
        subprocess.run([*CLI, "-w", str(root), "compile"], check=True, stdout=subprocess.DEVNULL)
        lint = [*CLI, "-w", str(root), "lint", "--exit-zero", "--format", "json"]
        (root / ".wiki" / ".cache" / "lint.marshal").unlink(missing_ok=True)
        cold = run(lint, root)
        warm, warm_rss = median_ms(lint, root, runs)
        rows.append(
            f"| lint, cold | {cold.seconds * 1000:.0f} ms | | {cold.max_rss_kib / 1024:.0f} MiB |"
        )
        rows.append(f"| lint, warm | {warm:.1f} ms | {warm / rg:.1f} | {warm_rss / 1024:.0f} MiB |")
        articles = size_of(root / ".wiki" / "wiki")
        index = sum(p.stat().st_size for p in (root / ".wiki" / ".cache").glob("search.sqlite*"))
        for label, once in (
            ("ingest --no-compile", ingest),
            ("first compile", compile_),
            ("first query (builds the index)", first),
        ):
            rows.append(f"| {label} | {once.seconds:.2f} s | | {once.max_rss_kib / 1024:.0f} MiB |")
        rows += [
            "",
            f"search index: {index / 1e6:.1f} MB = {index / articles:.2f}× the articles' "
            f"{articles / 1e6:.1f} MB ({index / size_of(pages):.2f}× the source Markdown)",
            "",
        ]
        if name.startswith("tldr"):
            rows += recall(root, HERE / "eval" / f"{name.partition('-')[2] or 'en'}.tsv")
        return rows
    finally:
        shutil.rmtree(root, ignore_errors=True)


def recall(root: Path, queries: Path) -> list[str]:
    """Recall@1, recall@5 and MRR@10 of the queries in `queries` (query TAB relevant pages),
    and the queries missed (bench/search_eval.py measures them over more sets)."""
    from search_eval import cases_of, score, skillwiki_ranker

    cases = cases_of(queries)
    with skillwiki_ranker(root) as ranker:
        found = score(ranker, cases)
    rows = [
        f"recall@1 {found.recall_1:.2f}, recall@5 {found.recall_5:.2f}, MRR@10 {found.mrr_10:.2f} "
        f"over {len(cases)} queries ({queries.name})",
    ]
    return rows + (["misses:", *found.misses] if found.misses else []) + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default="tldr-en,tldr-zh,10k,50k")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    args = parser.parse_args()
    if shutil.which("rg") is None:
        raise SystemExit("rg (ripgrep) is needed for the baseline")
    # Time the tool as installed: pip compiles its bytecode on install, but a checkout run
    # under PYTHONDONTWRITEBYTECODE would compile every module on every call.
    import compileall

    import skillwiki

    compileall.compile_dir(Path(skillwiki.__file__).parent, quiet=1)
    print(f"skillwiki bench, {os.cpu_count()} cores, medians of {args.runs} runs\n")
    queries = {
        "tldr-en": ("archive", "extract files from archive"),
        "tldr-zh": ("压缩", "解压缩归档文件"),
    }
    for name in args.corpora.split(","):
        word, query = queries.get(name, ("retry", "retry backoff timeout"))
        for row in bench(name, args.shared, args.runs, word, query):
            print(row, flush=True)


if __name__ == "__main__":
    main()
