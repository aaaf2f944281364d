"""English stemmers for the search index: SQLite FTS5's own `porter` beside PyStemmer and
snowballstemmer (Snowball's English), by speed, install weight and what each joins.

Usage:
  python bench/stemmers.py [--shared ../shared] [--runs 5]

The text is every Markdown file of the English corpora (tldr en, fastapi, the Rust book, the
Hugo docs). Printed: the cost of stemming it in the index (FTS5 taking the text in with and
without `porter`), the cost of stemming its words in Python with each library (the words cut
as unicode61 cuts them), medians of --runs; the installed size of each library; and how the
vocabularies' words fall into stems under Porter and under Snowball's English. The two
libraries are needed only here: `pip install PyStemmer snowballstemmer`. Run by hand: CI does
not run it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from skillwiki.search.schema import TOKENIZER  # noqa: E402
from skillwiki.search.terms import word_stems as _stems  # noqa: E402  (the index's own stems of a word)

CORPORA = ("tldr/en", "docs/fastapi", "docs/rust-book", "docs/hugo-docs")
# Words as FTS5's unicode61 cuts them: runs of letters and digits.
WORD = re.compile(r"[^\W_]+")


def texts(shared: Path) -> list[str]:
    found = []
    for corpus in CORPORA:
        for path in sorted((shared / "corpora" / corpus).rglob("*.md")):
            found.append(path.read_text(encoding="utf-8", errors="replace"))
    return found


def median_ms(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def fts_insert(pages: list[str], tokenizer: str) -> Callable[[], object]:
    def work() -> None:
        db = sqlite3.connect(":memory:")
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, content='', tokenize='{tokenizer}')")
        db.executemany("INSERT INTO t(body) VALUES (?)", ((page,) for page in pages))
        db.commit()
        db.close()

    return work


def classes(stems: dict[str, str]) -> dict[str, frozenset[str]]:
    """Each word's class: the words that share its stem."""
    by_stem: dict[str, set[str]] = defaultdict(set)
    for word, stem in stems.items():
        by_stem[stem].add(word)
    return {word: frozenset(by_stem[stem]) for word, stem in stems.items()}


def installed_size(distribution: str) -> float:
    files = importlib.metadata.files(distribution) or []
    return sum(Path(str(file.locate())).stat().st_size for file in files) / 1e6


def index_costs(pages: list[str], runs: int) -> None:
    """Print what FTS5 takes to index the pages with and without `porter`."""
    # By turns, so that a slower spell of the machine weighs on both alike.
    turns: dict[str, list[float]] = {"unicode61 remove_diacritics 2": [], TOKENIZER: []}
    for _ in range(runs):
        for tokenizer, times in turns.items():
            times.append(median_ms(fts_insert(pages, tokenizer), 1))
    plain, porter = (statistics.median(times) for times in turns.values())
    print(f"index, unicode61 alone: {plain:.0f} ms; with porter: {porter:.0f} ms")
    print(f"  porter's own cost: {porter - plain:.0f} ms")


def python_costs(pages: list[str], tokens: list[str], runs: int) -> None:
    """Print what each library takes to stem the words in Python, and its installed size."""
    import Stemmer
    from snowballstemmer.english_stemmer import EnglishStemmer

    fast = Stemmer.Stemmer("english")
    slow = EnglishStemmer()  # its own Python: `snowballstemmer.stemmer` hands out PyStemmer's
    cut = median_ms(lambda: [WORD.findall(page.lower()) for page in pages], runs)
    print(f"cutting the words in Python (no stemming yet): {cut:.0f} ms")
    py = median_ms(lambda: fast.stemWords(tokens), runs)
    print(f"PyStemmer, the words stemmed (cut apart): {py:.0f} ms")
    sample = tokens[: len(tokens) // 20]  # its own Python is slow: a twentieth, scaled up
    snow = median_ms(lambda: slow.stemWords(sample), runs) * len(tokens) / len(sample)
    print(f"snowballstemmer, the words stemmed (cut apart): {snow:.0f} ms")
    for name in ("PyStemmer", "snowballstemmer"):
        print(
            f"installed: {name} {importlib.metadata.version(name)}, {installed_size(name):.1f} MB"
        )


def stem_classes(tokens: list[str]) -> None:
    """Print how the English words fall into stems under Porter and under Snowball, and a few
    words the two class differently."""
    import Stemmer

    vocabulary = sorted(set(tokens))
    english = [word for word in vocabulary if word.isascii() and word.isalpha()]
    by_porter = {word: _stems(word)[0] for word in english}
    stemmed = Stemmer.Stemmer("english").stemWords(english)
    by_snowball = dict(zip(english, stemmed, strict=True))
    ours, theirs = classes(by_porter), classes(by_snowball)
    same = sum(1 for word in english if ours[word] == theirs[word])
    print(
        f"{len(english)} distinct English words: {len(set(by_porter.values()))} Porter stems, "
        f"{len(set(by_snowball.values()))} Snowball stems; "
        f"{same / len(english):.1%} of the words have the same class under both"
    )
    differ = [
        word
        for word in english
        if ours[word] != theirs[word] and len(ours[word] | theirs[word]) <= 4
    ]
    for word in differ[:12]:
        only_porter = sorted(ours[word] - theirs[word])
        only_snowball = sorted(theirs[word] - ours[word])
        print(f"  {word}: also {only_porter} by Porter, {only_snowball} by Snowball")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pages = texts(args.shared)
    tokens = [word for page in pages for word in WORD.findall(page.lower())]
    print(f"{len(pages)} pages, {sum(map(len, pages)) / 1e6:.1f} MB, {len(tokens)} words")
    index_costs(pages, args.runs)
    python_costs(pages, tokens, args.runs)
    stem_classes(tokens)


if __name__ == "__main__":
    main()
