"""Search quality: recall@1, recall@5 and MRR@10 of the task-like queries in bench/eval/, and
the cost of a query, per set, for skillwiki with and without the `semantic` extra and for bm25s.

Usage:
  python bench/search_eval.py                        # tldr-en, tldr-zh, fastapi, rust-book
  python bench/search_eval.py --sets tldr-en --misses

Each set is a corpus copied into a fresh workspace (ingested and compiled; with the extra
installed, its vectors made too) and a file of queries with the pages that answer them (any one
counts). skillwiki is asked in this process as the MCP server asks it: one index connection kept
open, its vectors read and the sentence encoder loaded once beforehand (`search.prime`), so the
cost is a warm query's, the median over the set's queries. "without the extra" is the same index
with SKILLWIKI_SEMANTIC=0. (A command's whole cost, start-up and model load included, is
bench/run.py's.) The baseline is bm25s (BM25
over each page's Markdown as it is, English stop words left out, no stemmer), when installed
(the `bench` extra: `pip install '.[bench]'`). Run by hand: CI does not run it.
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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import CLI  # noqa: E402

SETS = {  # name -> (corpus folder below shared/corpora, queries)
    "tldr-en": ("tldr/en", "en.tsv"),
    "tldr-zh": ("tldr/zh", "zh.tsv"),
    "fastapi": ("docs/fastapi", "fastapi.tsv"),
    "rust-book": ("docs/rust-book", "rust-book.tsv"),
}

Ranker = Callable[[str], list[str]]  # a query -> the pages found, best first, as the set names them


@dataclass(frozen=True)
class Case:
    query: str
    wanted: frozenset[str]  # pages that answer it, relative to the corpus folder


@dataclass(frozen=True)
class Scores:
    recall_1: float
    recall_5: float
    mrr_10: float
    ms_per_query: float
    misses: tuple[str, ...]

    def row(self, label: str) -> str:
        return (
            f"| {label} | {self.recall_1:.3f} | {self.recall_5:.3f} | {self.mrr_10:.3f} "
            f"| {self.ms_per_query:.1f} |"
        )


def cases_of(queries: Path) -> list[Case]:
    """The queries of a set file: query TAB the pages that answer it (space-separated)."""
    rows = queries.read_text(encoding="utf-8").splitlines()
    return [
        Case(text, frozenset(pages.split()))
        for text, pages in (row.split("\t") for row in rows if row and not row.startswith("#"))
    ]


def score(ranker: Ranker, cases: Sequence[Case]) -> Scores:
    """Ask `ranker` each case's query (once before, to warm it up) and score what it found."""
    ranker(cases[0].query)
    first = at_5 = 0
    reciprocal = 0.0
    times = []
    misses = []
    for case in cases:
        started = time.perf_counter()
        found = ranker(case.query)[:10]
        times.append(time.perf_counter() - started)
        rank = next((n for n, page in enumerate(found, start=1) if page in case.wanted), None)
        first += rank == 1
        at_5 += rank is not None and rank <= 5
        reciprocal += 1 / rank if rank else 0.0
        if rank is None or rank > 5:
            misses.append(f"  - {case.query!r}: rank {rank or '>10'}; top: {found[:3]}")
    count = len(cases)
    ms = statistics.median(times) * 1000
    return Scores(first / count, at_5 / count, reciprocal / count, ms, tuple(misses))


@contextmanager
def skillwiki_ranker(root: Path) -> Iterator[Ranker]:
    """skillwiki's query over the workspace at `root`, in this process, on one connection kept
    open and primed as the MCP server keeps it."""
    from skillwiki import api, search
    from skillwiki.config import load_config
    from skillwiki.workspace import Workspace

    ws = Workspace(root)
    cache = search.VectorCache()
    prefix = ".wiki/wiki/pages/"
    with api.open_wiki(ws, load_config(ws.config_file), compile_first=False) as wiki:
        assert wiki.index is not None
        db = wiki.index
        search.prime(db, cache)

        def ranker(text: str) -> list[str]:
            hits = search.search(ws, text, limit=10, db=db, vectors=cache)
            return [hit.path.removeprefix(prefix) for hit in hits]

        yield ranker


def bm25s_ranker(pages: Path) -> Ranker | None:
    """bm25s over the Markdown of every page below `pages`; None when it is not installed."""
    try:
        import bm25s
    except ImportError:
        return None
    names = sorted(path.relative_to(pages).as_posix() for path in pages.rglob("*.md"))
    texts = [(pages / name).read_text(encoding="utf-8", errors="replace") for name in names]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def ranker(text: str) -> list[str]:
        tokens = bm25s.tokenize([text], stopwords="en", show_progress=False)
        if not tokens.vocab:  # nothing left of the query to look for
            return []
        found, _ = retriever.retrieve(tokens, k=10, show_progress=False, n_threads=1)
        return [names[index] for index in found[0]]

    return ranker


@contextmanager
def semantic_off() -> Iterator[None]:
    """SKILLWIKI_SEMANTIC=0 while inside: the same index, the text ranking alone."""
    before = os.environ.get("SKILLWIKI_SEMANTIC")
    os.environ["SKILLWIKI_SEMANTIC"] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["SKILLWIKI_SEMANTIC"]
        else:
            os.environ["SKILLWIKI_SEMANTIC"] = before


def evaluate(name: str, shared: Path, misses: bool) -> list[str]:
    from skillwiki.search import semantic

    corpus, queries = SETS[name]
    cases = cases_of(HERE / "eval" / queries)
    root = Path(tempfile.mkdtemp(prefix=f"skillwiki-eval-{name}-"))
    try:
        shutil.copytree(shared / "corpora" / corpus, root / "pages")
        started = time.perf_counter()
        for argv in (["init"], ["ingest", "pages"], ["query", "x"]):
            subprocess.run([*CLI, *argv], cwd=root, check=True, stdout=subprocess.DEVNULL)
        built = time.perf_counter() - started
        results: list[tuple[str, Scores]] = []
        if semantic.available():
            with skillwiki_ranker(root) as ranker:
                results.append(("skillwiki, `semantic` extra", score(ranker, cases)))
        with semantic_off(), skillwiki_ranker(root) as ranker:
            results.append(("skillwiki", score(ranker, cases)))
        baseline = bm25s_ranker(root / "pages")
        if baseline is not None:
            results.append(("bm25s (baseline)", score(baseline, cases)))
        rows = [
            f"### {name}: {len(cases)} queries ({queries}); ingested and indexed in {built:.0f} s",
            "",
            "| ranking | recall@1 | recall@5 | MRR@10 | ms/query |",
            "|---|---|---|---|---|",
            *(scores.row(label) for label, scores in results),
            "",
        ]
        if baseline is None:
            rows.append("(bm25s is not installed: the `bench` extra adds the baseline row)\n")
        if misses:
            for label, scores in results[:2]:
                rows += [f"missed by {label}:", *scores.misses, ""]
        return rows
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    parser.add_argument("--misses", action="store_true", help="list the queries missed")
    args = parser.parse_args()
    for name in args.sets.split(","):
        for row in evaluate(name, args.shared, args.misses):
            print(row, flush=True)


if __name__ == "__main__":
    main()
