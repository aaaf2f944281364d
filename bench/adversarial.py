"""Time every reader of user text on 100 kB built to hurt, beside plain prose of that size.

Usage:
  python bench/adversarial.py            # every input
  python bench/adversarial.py '[[' key   # some of them, by label

Prints milliseconds per reader (best of 3 runs): Markdown analysis, compile's render, lint's
facts, secret search and redaction, the search index's text normalisation, lesson sections.
A reader that takes more than a second on 100 kB is marked `!!`. Run by hand: the tests in
tests/test_adversarial.py hold the same inputs to linear growth in CI.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from skillwiki import markdown, search, secrets
from skillwiki.article import render
from skillwiki.documents import split
from skillwiki.lint.facts import analyze as facts
from skillwiki.memory.lessons import sections

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
}
READERS: dict[str, Callable[[str], object]] = {
    "analyze": markdown.analyze,
    "render": lambda text: render("docs/x.md", split(text, "x"), "xxh3:0000000000000000", "xxh3"),
    "lint facts": lambda text: facts(".wiki/raw/lessons/x.md", text.encode(), 10**9),
    "secrets": secrets.find,
    "redact": secrets.redact,
    "normalize": search.normalize,
    "sections": sections,
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
