"""The fast ways search takes are held equal to the plain ones they stand in for: the best
matches asked of FTS5 alone (then a few rows of docs) against the query joined to docs, and
the best line of a snippet found in one pass over the body against a line at a time. On the
demo and, where ../shared is beside the checkout, real documentation trees and tldr pages."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillwiki import search
from skillwiki.search import rank
from skillwiki.search.text import STOP_WORDS, words
from skillwiki.workspace import find_workspace
from tests.support import DATA, DEMO, REPO, Invoke, write

CORPORA = REPO.parent / "shared" / "corpora"
EVAL = REPO / "bench" / "eval"


def _queries() -> list[str]:
    found = ["tool failure retry", "deploy", "重试", "agents config", "telegram_send"]
    found += ["continuous integration", "pull request lint", "allowedTools whitelisted"]
    for name in ("en.tsv", "zh.tsv"):
        for line in (EVAL / name).read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                found.append(line.split("\t")[0])
    return found


def _pattern(query: str) -> re.Pattern[str] | None:
    roots = sorted(
        {rank._root(term) for term in words(query) if term not in STOP_WORDS},
        key=len,
        reverse=True,
    )
    if not roots:
        return None
    return re.compile("|".join(rank._term_pattern(root) for root in roots), re.IGNORECASE)


def _pages() -> list[Path]:
    roots = [DEMO / ".wiki" / "wiki", DATA / "compile" / "raw"]
    if CORPORA.is_dir():
        roots += [CORPORA / "docs", CORPORA / "tldr" / "en", CORPORA / "tldr" / "zh"]
    return [path for root in roots for path in sorted(root.rglob("*.md"))]


@pytest.mark.paths
def test_best_line_in_one_pass_equals_a_line_at_a_time() -> None:
    """Every page with three of the evaluation queries (in turn) and one made of its own words,
    so that most pages have lines that match."""
    patterns = [pattern for query in _queries() if (pattern := _pattern(query))]
    pages = _pages()
    differ = []
    matched = 0
    for number, path in enumerate(pages):
        body = path.read_text(encoding="utf-8", errors="replace")
        own = _pattern(" ".join(words(body[:400])[2:6]))
        chosen = [patterns[(number + step) % len(patterns)] for step in range(3)]
        for pattern in [*chosen, *([own] if own else [])]:
            best = rank._best_line(body, pattern)
            matched += bool(best)
            if best != rank.best_line_by_line(body, pattern):
                differ.append((str(path), pattern.pattern))
    assert len(pages) >= 15 and matched >= len(pages)
    assert differ == []


@settings(max_examples=400, deadline=None)
@given(
    body=st.text(alphabet="ab [](){}!#\n\r\u2028 xyzSources", max_size=80),
    query=st.sampled_from(["ab", "abc xyz", "sources", "xyz ab"]),
)
def test_best_line_agrees_on_any_body(body: str, query: str) -> None:
    pattern = _pattern(query)
    assert pattern is not None
    body = body.replace("Sources", "\n## Sources\n", 1) if "Sources" in body else body
    assert rank._best_line(body, pattern) == rank.best_line_by_line(body, pattern)


@pytest.mark.paths
def test_best_matches_from_fts5_alone_equal_the_joined_query(demo: Path, invoke: Invoke) -> None:
    raw = demo / ".wiki" / "raw"
    if CORPORA.is_dir():
        shutil.copytree(CORPORA / "docs" / "fastapi", raw / "fastapi")
    twin = (raw / "docs" / "ci.md").read_text()
    write(raw / "docs" / "cb.md", twin)  # two articles tie in BM25 everywhere
    lesson = next((raw / "lessons").glob("*allowedtools*.md"))
    lesson.write_text(lesson.read_text().replace("status: active", "status: archived", 1))
    assert invoke("query", "-w", str(demo), "anything").exit_code == 0  # builds the index
    # Indexed again, the twin first by path comes after the other in FTS5's own order.
    write(raw / "docs" / "cb.md", twin + "\nChanged.\n")
    assert invoke("query", "-w", str(demo), "anything").exit_code == 0
    write(raw / "docs" / "cb.md", twin)
    assert invoke("query", "-w", str(demo), "anything").exit_code == 0
    db = sqlite3.connect(search.index_path(find_workspace(demo, demo)))
    hidden = db.execute("SELECT count(*) FROM docs WHERE status = 'archived'").fetchone()[0]
    assert hidden == 1
    compared = 0
    for query in _queries():
        terms, boosts = rank.query_terms(query)
        if not terms:
            continue
        match = " OR ".join(terms + boosts)
        for wanted in (1, 2, 3, 10, 200):
            for filters in (
                rank.Filters(),
                rank.Filters(include_hidden=True),
                rank.Filters(kind="lesson"),
                rank.Filters(tags=("ci",)),
            ):
                fast = rank._best_matches(db, match, filters, wanted)
                plain = rank._best_matches(db, match, filters, wanted, fast=False)
                assert fast == plain, (query, wanted, filters)
                compared += bool(plain)
    db.close()
    assert compared >= 100


@pytest.mark.paths
def test_inbound_counts_looked_up_for_contenders_only_change_nothing(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only candidates holding as many of the query's words as the best `limit` have their
    referring pages counted; counting them for all 200 gives the same hits."""
    raw = demo / ".wiki" / "raw"
    if CORPORA.is_dir():
        shutil.copytree(CORPORA / "docs" / "fastapi", raw / "fastapi")
    assert invoke("query", "-w", str(demo), "anything").exit_code == 0  # builds the index
    ws = find_workspace(demo, demo)
    db = sqlite3.connect(search.index_path(ws))
    queries = _queries()
    some = [
        [(hit, hit.signals) for hit in rank.search(ws, query, limit=limit, db=db)]
        for query in queries
        for limit in (1, 3, 10)
    ]
    monkeypatch.setattr(rank, "_contenders", lambda rows, matched, limit: rows)
    every = [
        [(hit, hit.signals) for hit in rank.search(ws, query, limit=limit, db=db)]
        for query in queries
        for limit in (1, 3, 10)
    ]
    db.close()
    assert some == every
    assert sum(bool(hits) for hits in every) >= 60
