"""Search quality: recall@5 and MRR@10 of the task-like queries in bench/eval/ over the corpora.

Usage:
  python bench/search_eval.py                        # tldr-en, tldr-zh, fastapi, rust-book
  python bench/search_eval.py --sets tldr-en --misses

Each set is a corpus copied into a fresh workspace (ingested and compiled) and a file of
queries with the pages that answer them (any one counts). Run by hand: CI does not run it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import CLI, recall  # noqa: E402

SETS = {  # name -> (corpus folder below shared/corpora, queries)
    "tldr-en": ("tldr/en", "en.tsv"),
    "tldr-zh": ("tldr/zh", "zh.tsv"),
    "fastapi": ("docs/fastapi", "fastapi.tsv"),
    "rust-book": ("docs/rust-book", "rust-book.tsv"),
}


def evaluate(name: str, shared: Path, misses: bool) -> list[str]:
    corpus, queries = SETS[name]
    root = Path(tempfile.mkdtemp(prefix=f"skillwiki-eval-{name}-"))
    try:
        shutil.copytree(shared / "corpora" / corpus, root / "pages")
        for argv in (["init"], ["ingest", "pages"], ["query", "x"]):
            subprocess.run([*CLI, *argv], cwd=root, check=True, stdout=subprocess.DEVNULL)
        rows = recall(root, HERE / "eval" / queries)
        return [f"{name}: {rows[0]}", *(rows[1:] if misses else [])]
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
