"""The line scanner agrees with CommonMark (markdown-it-py) on what compile reads.

Over the demo, the golden compile data, generated documents and, where ../shared is beside the
checkout, the 15,000 tldr pages: the first paragraph (as a summary), the leading H1, the first
H1, the lines inside code, and every link found outside code.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillwiki import markdown
from skillwiki.article import first_sentence
from skillwiki.documents import split
from tests import reference_markdown as ref
from tests.conftest import DATA, DEMO, REPO

SHARED = REPO.parent / "shared" / "corpora" / "tldr"


def _views(text: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
    tokens = ref.parse(text)
    expected = (
        first_sentence(ref.first_paragraph(tokens)),
        ref.leading_h1(tokens),
        next((h.text for h in ref.headings(tokens) if h.level == 1), None),
        [
            (link.target, link.start)
            for link in markdown.links(text, frozenset(ref.code_lines(tokens)))
        ],
    )
    shape = markdown.outline(text)
    found = (
        first_sentence(shape.first_paragraph),
        shape.leading_h1,
        next((h.text for h in shape.blocks.headings if h.level == 1), None),
        [(link.target, link.start) for link in markdown.links(text, shape.blocks.code_lines)],
    )
    return expected, found


def _documents() -> list[Path]:
    roots = [DEMO / "docs", DATA / "compile" / "raw"]
    if SHARED.is_dir():
        roots += [SHARED / "en", SHARED / "zh"]
    return [path for root in roots for path in sorted(root.rglob("*.md"))]


def test_scanner_agrees_with_commonmark_on_real_pages() -> None:
    documents = _documents()
    differ = []
    for path in documents:
        expected, found = _views(split(path.read_text(encoding="utf-8"), path).body)
        if expected != found:
            differ.append(path)
    assert len(documents) >= 15  # the demo and the golden data; tldr too when it is there
    assert differ == []


pieces = st.sampled_from(
    [
        "# Title",
        "## Sub",
        "Some *em* and **strong** text.",
        "snake_case_name",
        "`code` span",
        "[link](a.md)",
        "![img](b.png)",
        "> quoted",
        "- item",
        "1. first",
        "```",
        "~~~",
        "Setext",
        "---",
        "===",
        "",
        "<div>",
        "a | b",
        "|---|---|",
        "\\*escaped\\*",
        "&amp; entity",
        "重试。",
    ]
)


# Blocks separated by blank lines, as documents are written: any one construct, or a paragraph
# of a few lines of text. (Constructs that interrupt each other without a blank line are where
# CommonMark has its corner cases; the real pages above show they do not matter in practice.)
text_lines = st.sampled_from(
    ["Some *em* and **strong** text.", "snake_case_name", "`code` span", "[link](a.md)", "重试。"]
)
blocks = pieces | st.lists(text_lines, min_size=2, max_size=3).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(blocks, max_size=8).map("\n\n".join))
def test_scanner_agrees_with_commonmark_on_generated_text(text: str) -> None:
    expected, found = _views(text)
    assert found[:3] == expected[:3]  # the summary, the leading H1, the title
