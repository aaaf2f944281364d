"""What skillwiki reads from Markdown equals what markdown-it-py's CommonMark tokens say.

Over the 652 examples of the CommonMark spec (0.31.2, shipped by markdown-it-py's tests, kept
in tests/data/commonmark_spec.json), the demo's pages and, where the corpora are beside the
checkout (tests.support.corpora), real documentation trees and the tldr pages: headings (level and text), code and HTML block
ranges, link and image destinations, and the source span each destination was found at.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.common.utils import unescapeAll
from markdown_it.token import Token

from skillwiki import markdown
from skillwiki.frontmatter.documents import split
from tests.support import DATA, DEMO, real_pages

SPEC = json.loads((DATA / "commonmark_spec.json").read_text(encoding="utf-8"))
# What skillwiki adds to CommonMark (templates, wikilinks, footnotes, tables, strikethrough):
# examples that hold these are read differently on purpose.
EXTENSIONS = ("{{", "{%", "[[", "[^", "|", "~~")
PLAIN = MarkdownIt("commonmark", {"html": True})


def _expected(text: str) -> tuple[list[tuple[int, str]], set[tuple[int, int]], set[str]]:
    tokens = PLAIN.parse(text)
    headings = []
    code = set()
    hrefs = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            text = markdown.plain_text(tokens[index + 1].children or [])
            with_attrs = markdown.trailing_attrs(text)
            headings.append((int(token.tag[1:]), with_attrs[0] if with_attrs else text))
        elif token.type in ("fence", "code_block", "html_block") and token.map:
            code.add((token.map[0], token.map[1]))
        for child in _children(token):
            if child.type == "link_open" and child.markup != "autolink":
                hrefs.add(str(child.attrs["href"]))
            elif child.type == "image":
                hrefs.add(str(child.attrs["src"]))
    return headings, code, hrefs


def _children(token: Token) -> list[Token]:
    found = []
    for child in token.children or []:
        found.append(child)
        if child.type != "image":  # links in an image's alt text are text
            found += _children(child)
    return found


def _check(text: str) -> list[str]:
    """Return how skillwiki's reading of `text` differs from CommonMark's (nothing: agrees)."""
    outline = markdown.analyze(text)
    headings, code, hrefs = _expected(text)
    problems = []
    if [(h.level, h.text) for h in outline.headings] != headings:
        problems.append(f"headings {outline.headings} != {headings}")
    if not code <= set(outline.code):
        problems.append(f"code {outline.code} misses {code - set(outline.code)}")
    inline = {
        PLAIN.normalizeLink(link.target)
        for link in outline.links
        if link.kind in ("inline", "image")
    }
    defined = {
        PLAIN.normalizeLink(link.target) for link in outline.links if link.kind == "reference"
    }
    if not inline <= hrefs or not hrefs <= inline | defined:
        problems.append(f"links {sorted(inline)} (defined {sorted(defined)}) != {sorted(hrefs)}")
    for link in outline.links:
        if link.start < 0:
            problems.append(f"no source span for {link}")
            continue
        written = text[link.start : link.end]
        if link.kind == "wikilink":
            continue
        if written.startswith("<") and written.endswith(">"):
            written = written[1:-1]
        if unescapeAll(written) != link.target:
            problems.append(f"span {written!r} is not the destination {link.target!r}")
        if text.count("\n", 0, link.start) + 1 != link.line:
            problems.append(f"line {link.line} of {link} is wrong")
    return problems


@pytest.mark.parametrize(
    "example",
    [example for example in SPEC if not any(mark in example["markdown"] for mark in EXTENSIONS)],
    ids=lambda example: str(example["example"]),
)
def test_commonmark_spec_examples(example: dict[str, object]) -> None:
    assert _check(str(example["markdown"])) == []


def test_spec_examples_are_nearly_all_checked() -> None:
    checked = [e for e in SPEC if not any(mark in e["markdown"] for mark in EXTENSIONS)]
    assert len(SPEC) == 652 and len(checked) >= 600


def _pages(with_corpora: bool) -> list[Path]:
    roots = [DEMO / "docs", DATA / "compile" / "raw"]
    pages = [path for root in roots for path in sorted(root.rglob("*.md"))]
    return pages + (real_pages("en") if with_corpora else [])


@pytest.mark.corpus
def test_real_pages_agree_with_commonmark(with_corpora: bool) -> None:
    pages = _pages(with_corpora)
    differ = {}
    for path in pages:
        body = split(path.read_text(encoding="utf-8"), path).body
        if any(mark in body for mark in EXTENSIONS):
            # Read with the extensions: every span must still hold its destination.
            problems = [p for p in _check(body) if p.startswith(("span", "line", "no source"))]
        else:
            problems = _check(body)
        if problems:
            differ[str(path)] = problems
    assert len(pages) >= 15  # the demo and the golden data; the real trees when present
    assert differ == {}


def _analyze_every_block(text: str) -> markdown.Outline:
    """`analyze` with the inline text of every block parsed, as markdown-it's own rule does."""
    md = markdown.parser()
    env: dict[str, object] = {"mdx": False}
    tokens = md.parse(text, env)
    for token in tokens:
        if token.type == "inline" and not token.children:
            token.children = []
            md.inline.parse(token.content, md, env, token.children)
    return markdown.read_tokens(text, tokens, env)


@pytest.mark.corpus
@pytest.mark.paths
def test_inline_parsed_only_where_read_changes_nothing(with_corpora: bool) -> None:
    """The parse skips the inline text of blocks without `[` or `<`: the outline is the same."""
    texts = [str(example["markdown"]) for example in SPEC]
    texts += [split(path.read_text(encoding="utf-8"), path).body for path in _pages(with_corpora)]
    texts += [
        "[^1]: a footnote first\n\nThe first paragraph.\n\nText [^1].\n",
        "![](img.png)\n\nAfter the image.\n",
        "# Title {#custom}\n\n- item\n- <a id='x'></a> item\n",
    ]
    differ = [text[:80] for text in texts if markdown.analyze(text) != _analyze_every_block(text)]
    assert differ == []


@pytest.mark.corpus
@pytest.mark.paths
def test_article_headings_told_by_compile_equal_a_parse_of_the_article(
    with_corpora: bool,
) -> None:
    """Compile hands the search index each article's headings and references, read off the
    raw file's parse: they equal what parsing the article finds, or compile says it cannot
    tell (None)."""
    from skillwiki.compiler.article import render
    from skillwiki.frontmatter.documents import Document, body_of
    from skillwiki.search import heading_cache
    from skillwiki.workspace import article_rel

    bodies = [(f"spec-{e['example']}.md", str(e["markdown"])) for e in SPEC]
    bodies += [
        (path.name, split(path.read_text(encoding="utf-8"), path).body)
        for path in _pages(with_corpora)
    ]
    bodies += [
        ("ends-in-html.md", "Text.\n\n<!-- not closed\n\nopen\n"),
        ("code.py", "def f():\n    pass\n"),
    ]
    differ, unknown, referring = [], 0, 0
    for name, body in bodies:
        rendered = render(f"docs/{name}", Document({}, body, False), "xxh3:0", "xxh3")
        parsed = markdown.analyze(body_of(rendered.text)).headings
        if rendered.headings is None:
            unknown += 1
            assert rendered.refs is None
        elif list(rendered.headings) != [h.text for h in parsed if h.level > 1]:
            differ.append(name)
        elif rendered.refs is None:  # the headings told, what it refers to not
            unknown += 1
        else:  # and what it refers to, as the search index would read it off the article
            title = str(rendered.meta["title"])
            target = article_rel(f"docs/{name}")
            told = heading_cache.read_article(body_of(rendered.text), target, title)[1]
            if rendered.refs != told:
                differ.append(f"{name}: refs")
            referring += bool(told)
    assert differ == []
    assert referring >= 20  # the spec examples alone hold that many links and code spans
    assert 0 < unknown < len(bodies) // 5  # told for nearly every page; unsure where it must be
