"""Time every reader of user text on 100 kB built to hurt, beside plain prose of that size.

Usage:
  python bench/adversarial.py            # every input
  python bench/adversarial.py '[[' key   # some of them, by label

Prints milliseconds per reader (best of 3 runs): Markdown analysis, compile's render, lint's
facts, secret search and redaction, the search index's text normalisation, lesson sections,
and each input as a query (ranked hits and their snippets) of a wiki whose pages hold every
word and character of the inputs "distinct words" and "distinct characters".
A reader that takes more than a second on 100 kB is marked `!!`. Run by hand: the tests in
tests/test_adversarial.py hold the same inputs to linear growth in CI.
"""

from __future__ import annotations

import functools
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from skillwiki import markdown, search, secrets
from skillwiki.compiler import compile_workspace
from skillwiki.compiler.article import render
from skillwiki.config import Config
from skillwiki.frontmatter.documents import split
from skillwiki.layout import init_workspace
from skillwiki.lint.facts import analyze as facts
from skillwiki.memory.lessons import sections
from skillwiki.workspace import Workspace

SIZE = 100_000


def _repeat(piece: str) -> str:
    return (piece * (SIZE // len(piece) + 1))[:SIZE]


INPUTS = {
    "plain prose": _repeat("Some words of plain prose, a sentence or two.\n\n"),
    "heading of backticks": "# " + "`" * SIZE + "\n",
    "[ then backticks": "[" + "`" * SIZE + "\n",
    "*a ": _repeat("*a "),
    "_a ": _repeat("_a "),
    "## a + spaces": "## a" + " " * SIZE + "\n",
    "key": _repeat("key"),
    "token": _repeat("token"),
    "password=": _repeat("password="),
    "[[": _repeat("[["),
    "[": _repeat("["),
    "![": _repeat("!["),
    "[a](": _repeat("[a]("),
    "[^": _repeat("[^"),
    "<": _repeat("<"),
    "{{": _repeat("{{"),
    "{{<": _repeat("{{< "),
    "{%": _repeat("{%"),
    "key headers": _repeat("-----BEGIN RSA PRIVATE KEY-----\n"),
    "eyJ": _repeat("eyJabcdefgh."),
    "a://b:c": _repeat("a://b:c"),
    "MII": _repeat("MII" + "A" * 61 + " "),
    # Queries of many distinct words, each held by the wiki's pages (the reader "query").
    "distinct words": " ".join(f"w{number:05d}" for number in range(SIZE // 7 + 1))[:SIZE],
    # The CJK block's ideographs (20,992) in turn: as many character pairs, nearly all different.
    "distinct characters": "".join(chr(0x4E00 + number % 20992) for number in range(SIZE)),
}


@functools.cache
def _wiki() -> Workspace:
    """A wiki of four pages that each hold every distinct word and character above."""
    root = Path(tempfile.mkdtemp(prefix="skillwiki-adversarial-"))
    ws, _ = init_workspace(root)
    words = INPUTS["distinct words"].split()
    characters = INPUTS["distinct characters"]
    for page in range(4):
        lines = [" ".join(words[start : start + 15]) for start in range(page, len(words), 15)]
        lines += [characters[start : start + 40] for start in range(0, len(characters), 40)]
        (ws.raw / f"page-{page}.md").write_text(f"# Page {page}\n\n" + "\n".join(lines) + "\n")
    compile_workspace(ws, Config())
    return ws


READERS: dict[str, Callable[[str], object]] = {
    "analyze": markdown.analyze,
    "render": lambda text: render("docs/x.md", split(text, "x"), "xxh3:0000000000000000", "xxh3"),
    "lint facts": lambda text: facts(".wiki/raw/lessons/x.md", text.encode(), 10**9),
    "secrets": secrets.find,
    "redact": secrets.redact,
    "normalize": search.normalize,
    "sections": sections,
    "query": lambda text: search.search(_wiki(), text, limit=10),
}


def best_ms(run: Callable[[str], object], text: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run(text)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    wanted = sys.argv[1:]
    print("| input (100 kB) | " + " | ".join(READERS) + " |")
    print("|---" * (len(READERS) + 1) + "|")
    for label, text in INPUTS.items():
        if wanted and label not in wanted and label != "plain prose":
            continue
        cells = []
        for run in READERS.values():
            ms = best_ms(run, text)
            cells.append(f"{ms:.0f} ms" + (" !!" if ms > 1000 else ""))
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
