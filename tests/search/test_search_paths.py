"""The fast ways search takes are held equal to the plain ones they stand in for: the best
matches asked of FTS5 alone (then a few rows of docs) against the query joined to docs, and
the best line of a snippet found in one pass over the body against a line at a time. On the
demo, then again with real documentation trees and tldr pages (tests.support.corpora)."""

from __future__ import annotations

import itertools
import operator
import re
import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillwiki import search
from skillwiki.search import files, highlight, hits, rank, snippets
from skillwiki.search.filters import Filters
from skillwiki.search.terms import query_terms
from skillwiki.search.text import words
from skillwiki.workspace import find_workspace
from tests.support import DATA, DEMO, REPO, Invoke, corpora, real_pages, write

EVAL = REPO / "bench" / "eval"


def _queries(*sets: str) -> list[str]:
    """The first column of these evaluation sets; with none, a few queries of the demo's and
    the tldr sets'."""
    found = []
    if not sets:
        found = ["tool failure retry", "deploy", "重试", "agents config", "telegram_send"]
        found += ["continuous integration", "pull request lint", "allowedTools whitelisted"]
    for name in sets or ("en.tsv", "zh.tsv"):
        for line in (EVAL / name).read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                found.append(line.split("\t")[0])
    return found


def _pattern(query: str) -> highlight.Highlight | None:
    return highlight.Highlight.of(words(query))


def _pages(with_corpora: bool) -> list[Path]:
    roots = [DEMO / ".wiki" / "wiki", DATA / "compile" / "raw"]
    pages = [path for root in roots for path in sorted(root.rglob("*.md"))]
    return pages + (real_pages("en", "zh") if with_corpora else [])


@pytest.mark.corpus
@pytest.mark.paths
def test_best_line_in_one_pass_equals_a_line_at_a_time(with_corpora: bool) -> None:
    """Every page with three of the evaluation queries (in turn) and one made of its own words,
    so that most pages have lines that match."""
    patterns = [pattern for query in _queries() if (pattern := _pattern(query))]
    pages = _pages(with_corpora)
    differ = []
    matched = 0
    for number, path in enumerate(pages):
        body = path.read_text(encoding="utf-8", errors="replace")
        own = _pattern(" ".join(words(body[:400])[2:6]))
        chosen = [patterns[(number + step) % len(patterns)] for step in range(3)]
        for pattern in [*chosen, *([own] if own else [])]:
            if _scanned(pattern, body) != _spans(pattern.pattern.finditer(body)):
                differ.append((str(path), f"scan {pattern.pattern.pattern}"))
            best = snippets.best_line(body, pattern)
            matched += bool(best)
            if best != snippets.best_line_by_line(body, pattern):
                differ.append((str(path), pattern.pattern.pattern))
    assert len(pages) >= 15 and matched >= len(pages)
    assert differ == []


def _spans(matches: Iterator[re.Match[str]]) -> list[tuple[int, int]]:
    return [match.span() for match in matches]


def _scanned(query_words: highlight.Highlight, text: str) -> list[tuple[int, int]]:
    """The spans `query_words` finds in `text` (lower-cased too when it may be), either way."""
    found = list(query_words.spans(text))
    if not any(letter in text for letter in highlight.CASE_ODD):
        assert list(query_words.spans(text, text.lower())) == found
    return found


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet="abcAB_1 -.\n重试策ſKİıéÉΣς", max_size=60),
    query=st.text(alphabet="abcAB_1 重试策ſéÉ", min_size=1, max_size=20),
)
def test_highlights_found_by_scanning_for_roots_equal_the_word_start_pattern(
    text: str, query: str
) -> None:
    """The scan for the roots alone, kept at word starts, finds what `\\broot\\w*` finds: in
    any case, beside `_`, digits, CJK roots (then the pattern itself) and letters whose case
    folds oddly (ſ, K, İ)."""
    query_words = highlight.Highlight.of(words(query))
    if query_words is not None:
        assert _scanned(query_words, text) == _spans(query_words.pattern.finditer(text))


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="ab![]()\n ", max_size=60))
def test_links_stripped_at_once_equal_a_line_at_a_time(text: str) -> None:
    lines = [snippets.links_as_text(line) for line in text.split("\n")]
    assert snippets.strip_links(text) == "\n".join(lines)


def _heading_text(line: str) -> str:
    """A line as markdown-it reads it alone: a heading's inline text, less an attribute list
    that names its anchor (as the compiler reads it), any other line whole."""
    from skillwiki.markdown import parser, trailing_attrs

    tokens = parser().parse(line)
    if not tokens or tokens[0].type != "heading_open":
        return line
    text = tokens[1].content
    attrs = trailing_attrs(text)
    return text if attrs is None else attrs[0]


@pytest.mark.corpus
@pytest.mark.paths
def test_a_heading_s_text_is_what_markdown_it_reads(with_corpora: bool) -> None:
    """The `#` marks a snippet leaves out are those markdown-it takes for a heading's: on
    every line that opens with `#` in the pages (after the indent a snippet strips)."""
    lines = {
        line.strip()
        for page in _pages(with_corpora)
        for line in page.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.lstrip().startswith("#")
    }
    lines |= {"## C#", "### Install ###", "##\tTab", "####### seven", "#hashtag", "## a \\#"}
    lines |= {"## Install { #install }", "## Sets {a} and {b}", "### Ids ### { #ids }"}
    assert len(lines) > (1000 if with_corpora else 40)
    for line in sorted(lines):
        assert snippets.shown_text(line) == _heading_text(line), line


@settings(max_examples=1000, deadline=None)
@given(line=st.text(alphabet="#ab \t\\\u00a0{}", max_size=14))
def test_a_heading_s_text_agrees_on_any_line(line: str) -> None:
    line = line.strip()  # as a snippet's line is
    assert snippets.shown_text(line) == _heading_text(line)


def test_the_letters_odd_in_case_are_all_there_are() -> None:
    """CASE_ODD holds every letter outside ASCII that the regex engine, ignoring case, takes
    for an ASCII word character, or whose lower case is another length or another kind of
    character: this Python's Unicode tables, code point by code point."""
    chars = "".join(map(chr, range(0x80, sys.maxunicode + 1)))
    odd = set(re.findall("[A-Za-z0-9_]", chars, re.IGNORECASE))
    # Those lower-casing changes, found without a Python step per code point.
    cased = itertools.compress(chars, map(operator.ne, chars, map(str.lower, chars)))
    odd.update(
        char
        for char in cased
        if len(lower := char.lower()) != 1 or highlight.is_word(lower) != highlight.is_word(char)
    )
    assert "".join(sorted(odd)) == highlight.CASE_ODD


@settings(max_examples=400, deadline=None)
@given(
    body=st.text(alphabet="ab [](){}!#\n\r\u2028 xyzSources", max_size=80),
    query=st.sampled_from(["ab", "abc xyz", "sources", "xyz ab"]),
)
def test_best_line_agrees_on_any_body(body: str, query: str) -> None:
    pattern = _pattern(query)
    assert pattern is not None
    body = body.replace("Sources", "\n## Sources\n", 1) if "Sources" in body else body
    assert snippets.best_line(body, pattern) == snippets.best_line_by_line(body, pattern)


@pytest.mark.corpus
@pytest.mark.paths
def test_best_matches_from_fts5_alone_equal_the_joined_query(
    demo: Path, invoke: Invoke, with_corpora: bool
) -> None:
    raw = demo / ".wiki" / "raw"
    if with_corpora:
        shutil.copytree(corpora() / "docs" / "fastapi", raw / "fastapi")
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
        terms, boosts = query_terms(query)
        if not terms:
            continue
        match = " OR ".join(terms + boosts)
        for wanted in (1, 2, 3, 10, 200):
            for filters in (
                Filters(),
                Filters(include_hidden=True),
                Filters(kind="lesson"),
                Filters(tags=("ci",)),
            ):
                fast = rank.best_matches(db, match, filters, wanted)
                plain = rank.best_matches(db, match, filters, wanted, fast=False)
                assert fast == plain, (query, wanted, filters)
                compared += bool(plain)
    db.close()
    assert compared >= 100


Hits = list[list[tuple[hits.Hit, hits.Signals | None]]]


@contextmanager
def _hits_with_fastapi(
    demo: Path, invoke: Invoke, with_corpora: bool
) -> Iterator[Callable[[], Hits]]:
    """The demo, with fastapi's documentation `with_corpora`: a function giving the hits (and
    their signals) of every query for limits 1, 3 and 10."""
    raw = demo / ".wiki" / "raw"
    if with_corpora:
        shutil.copytree(corpora() / "docs" / "fastapi", raw / "fastapi")
    assert invoke("query", "-w", str(demo), "anything").exit_code == 0  # builds the index
    ws = find_workspace(demo, demo)
    db = sqlite3.connect(search.index_path(ws))
    queries = _queries() + _queries("fastapi.tsv")

    def hits() -> Hits:
        return [
            [(hit, hit.signals) for hit in rank.search(ws, query, limit=limit, db=db)]
            for query in queries
            for limit in (1, 3, 10)
        ]

    try:
        yield hits
    finally:
        db.close()


@pytest.mark.corpus
@pytest.mark.paths
def test_reading_only_the_candidates_that_may_rank_changes_nothing(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, with_corpora: bool
) -> None:
    """The best `limit` hits are the same when every candidate's article is read for how many
    of the query's words it holds together (rank.closeness), and so are their signals; and
    skipping the pages that could not outscore the `limit`-th best even holding all their
    words together reads well under the pages that holding fewer words alone would leave."""
    closeness = rank.closeness
    reads = [0]
    head = files.article_head

    def counted(path: str) -> Any:
        reads[0] += 1
        return head(path)

    monkeypatch.setattr(files, "article_head", counted)

    def read_all(*args: Any) -> dict[int, rank.Close]:
        ws, rows, held, roots, _, bodies, parts = args
        return closeness(ws, rows, held, roots, len(rows) + 1, bodies, parts)

    def by_words_alone(*args: Any) -> dict[int, rank.Close]:
        ws, rows, held, roots, limit, bodies, parts = args
        return closeness(ws, rows, held, roots, limit, bodies, dict.fromkeys(parts, 0.0))

    with _hits_with_fastapi(demo, invoke, with_corpora) as hits:
        some = hits()
        read_some = reads[0]
        monkeypatch.setattr(rank, "closeness", by_words_alone)
        reads[0] = 0
        assert hits() == some
        read_by_words = reads[0]
        monkeypatch.setattr(rank, "closeness", read_all)
        every = hits()
        assert some == every
        assert all(signals and signals.near for found in some for _, signals in found)
        assert sum(len(found) > 1 for found in every) >= 60
        if with_corpora:  # among the demo's dozen articles, most are read either way
            assert read_some * 2 < read_by_words


def test_the_evaluation_s_pages_exist_and_an_alias_brings_its_original(corpora_dir: Path) -> None:
    """Every page the evaluation sets name is in its corpus, and a tldr page that only points
    to another command's page is listed with that page: the search finds the original, which
    answers the query as well as its alias does."""
    alias = re.compile(r"This command is an alias of `([^`]+)`|此命令为 `([^`]+)` 的别名")
    wrong = []
    for name, corpus in (
        ("en.tsv", "tldr/en"),
        ("zh.tsv", "tldr/zh"),
        ("fastapi.tsv", "docs/fastapi"),
    ):
        root = corpora_dir / corpus
        for line in (EVAL / name).read_text(encoding="utf-8").splitlines():
            if not line or line.startswith("#"):
                continue
            query, pages = line.split("\t")
            listed = pages.split()
            for page in listed:
                if not (root / page).is_file():
                    wrong.append(f"{name}: {query!r} names {page}, which is not there")
                    continue
                found = alias.search((root / page).read_text(encoding="utf-8"))
                if found is None:
                    continue
                command = (found[1] or found[2]).split(" -")[0].replace(" ", "-")
                original = f"{page.split('/')[0]}/{command}.md"
                if (root / original).is_file() and original not in listed:
                    wrong.append(f"{name}: {query!r} lists the alias {page} without {original}")
    assert not wrong, "\n".join(wrong)


@settings(max_examples=400, deadline=None)
@given(line=st.text(alphabet="ab1_[] é重\t", max_size=40))
def test_unmarked_places_cut_the_line_into_the_pieces_of_its_unmarked_letters(line: str) -> None:
    """Each letter of the unmarked line stands for one piece of the line as written, the
    pieces in order and together the whole line: a word found unmarked is marked whole."""
    from skillwiki.search.text import unmark, unmarked_places

    plain, starts, ends = unmarked_places(line)
    assert plain == unmark(line)
    assert len(starts) == len(ends) == len(plain)
    assert starts[:1] == [0] * bool(line) and ends[-1:] == [len(line)] * bool(line)
    assert all(starts[i + 1] == ends[i] for i in range(len(plain) - 1))
    assert all(plain[i] in line[starts[i] : ends[i]] for i in range(len(plain)))


# What a mark is, said in one regular expression: bracketed letters with a word character
# just before them, or just after (on UTF-8 bytes, any byte of a letter outside ASCII).
_MARK = r"(?<=\w)\[(\w{1,3})\]|\[(\w{1,3})\](?=\w)"
_MARK_BYTES = rb"(?<=[\w\x80-\xff])\[(\w{1,3})\]|\[(\w{1,3})\](?=[\w\x80-\xff])"


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="ab1_[]] é重\t\n", max_size=60))
def test_marks_are_unmarked_as_the_one_expression_says(text: str) -> None:
    """unmark (and the closeness count, on UTF-8 bytes) skip from one `[` to the next and
    check the characters around it, where the one expression tries every character: they
    agree on every text."""
    from skillwiki.search import near
    from skillwiki.search.text import marked_letters, unmark

    plain = re.sub(_MARK, lambda match: match.group(1) or match.group(2), text)
    assert unmark(text) == plain
    assert marked_letters(text) is (plain != text)
    data = text.encode()

    def letters(match: re.Match[bytes]) -> bytes:
        return match.group(1) or match.group(2)

    assert near.unmark(data) == re.sub(_MARK_BYTES, letters, data)
