"""SW001 and the links of real documentation: `[lint.links] ignore` as a link is written,
GitHub's heading anchors as github-slugger makes them, percent-encoded anchors, and links
to files that ingest or compile refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillwiki.markdown.anchors import heading_anchors, slug
from skillwiki.markdown.outline import Heading
from tests.support import Invoke, write
from tests.support.links import CONFIG
from tests.support.links import ingest as _ingest
from tests.support.links import sw001 as _sw001


def test_ignore_names_a_link_as_the_raw_file_writes_it(ws: Path, invoke: Invoke) -> None:
    """Hugo's glossary links are written `[term](g)`: compile points such a link at the
    repository (`../../../docs/g` from the article), and a pattern names it as written, as
    the finding's `target` shows it. A pattern for the article's target still works."""
    write(ws / "docs" / "page.md", "# Page\n\nA [term](g) and a [gone](gone) link.\n")
    _ingest(ws, invoke, "docs")
    assert [f["target"] for f in _sw001(ws, invoke)] == ["g", "gone"]
    write(ws / CONFIG, '[lint.links]\nignore = ["^g$"]\n')
    assert [f["target"] for f in _sw001(ws, invoke)] == ["gone"]
    write(ws / CONFIG, '[lint.links]\nignore = ["^\\\\.\\\\./\\\\.\\\\./\\\\.\\\\./docs/g$"]\n')
    assert [f["target"] for f in _sw001(ws, invoke)] == ["gone"]


GUIDE = """# Guide

## Café

## A - नमस्ते

## مَرْحَبًا - بِكُمْ

## A - B

## A - B

## A - B 1

## Squares: x²

## Circled Ⓐ

[1](#caf%C3%A9) [2](#a---नमस्ते) [3](#مَرْحَبًا---بِكُمْ) [4](#a---b-1-1) [5](#squares-x)
[6](#circled-ⓐ) [7](other.md#caf%C3%A9) [8](#caf%C3%A9-1) [9](#squares-x²)
"""


def test_anchors_are_github_s_and_may_be_percent_encoded(ws: Path, invoke: Invoke) -> None:
    """GitHub keeps the marks of Devanagari and Arabic letters and letters in circles, drops
    `²`, numbers a heading whose anchor came before until it is new (`a---b-1-1`), and a
    browser finds `#caf%C3%A9` at the heading Café."""
    write(ws / "docs" / "guide.md", GUIDE)
    write(ws / "docs" / "other.md", "# Other\n\n## Café\n")
    _ingest(ws, invoke, "docs")
    assert [f["target"] for f in _sw001(ws, invoke)] == ["#caf%C3%A9-1", "#squares-x²"]


# What GitHub makes of headings, as github-slugger's fixtures (taken from pages GitHub
# rendered) record it: punctuation and symbols go, ' ' is '-', nothing is trimmed.
GITHUB_SLUGS = [
    ("alpha", "alpha"),
    ("bravoCharlieDelta", "bravocharliedelta"),
    ("__proto__", "__proto__"),
    ("heading with a - dash", "heading-with-a---dash"),
    ("heading with an _ underscore", "heading-with-an-_-underscore"),
    ("heading with a period.txt", "heading-with-a-periodtxt"),
    (
        "exchange.bind_headers(exchange, routing [, bindCallback])",
        "exchangebind_headersexchange-routing--bindcallback",
    ),
    (" ", "-"),
    (" a", "-a"),
    ("a ", "a-"),
    ("-a-", "-a-"),
    ("apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"),
    ("I ♥ unicode", "i--unicode"),
    ("en–dash", "endash"),
    ("😄 unicode emoji", "-unicode-emoji"),
    ("😄-😄 unicode emoji", "--unicode-emoji"),
    ("😄_😄 unicode emoji", "_-unicode-emoji"),
    (":smile: - a gemoji", "smile---a-gemoji"),
    ("Профили пользователей", "профили-пользователей"),
    ("Привет non-latin 你好", "привет-non-latin-你好"),
    (":ok_hand::hatched_chick: Two in a row", "ok_handhatched_chick-two-in-a-row"),
    # one case for each kind of character (Unicode's general categories)
    ("aÆ Ð ǅ İb", "aæ-ð-ǆ-i̇b"),  # letters, lowered: İ is i and a combining dot
    ("aʰ ª ऴb", "aʰ-ª-ऴb"),  # modifier and other letters
    ("नमस्ते दुनिया", "नमस्ते-दुनिया"),  # nonspacing and spacing marks stay
    ("مَرْحَبًا", "مَرْحَبًا"),  # Arabic's harakat stay
    ("a\u20dd \u0488b", "a\u20dd-\u0488b"),  # enclosing marks
    ("a0 ١ ५b", "a0-١-५b"),  # decimal digits of any script
    ("aⅫ ᛮb", "aⅻ-ᛮb"),  # letter numbers
    ("a² ½ ௱b", "a--b"),  # other numbers go
    ("a_ ‿ ＿b", "a_-‿-＿b"),  # connector punctuation stays
    ("a‐ — －b", "a--b"),  # dashes other than '-' go
    ("a( ] « » ! ¿ §b", "a------b"),  # open, close, initial, final and other punctuation
    ("a+ ± $ € ^ ¨ © №b", "a-------b"),  # math, currency, modifier and other symbols
    ("aⓐ Ⓩ 🄰 🅐 🅰b", "aⓐ-ⓩ-🄰-🅐-🅰b"),  # but symbols that are letters in circles stay
    ("a\u00a0\u2003\u3000b", "ab"),  # spaces other than ' ': a no-break space too
    ("a\u2028\u2029b", "ab"),  # line and paragraph separators
    ("a\x07\x7fb", "ab"),  # control characters
    ("a\u00ad\u200b\u200d\u202eb", "ab"),  # format characters
    ("a\ue000\U000f0000b", "ab"),  # private use
    ("a\u0378b", "ab"),  # unassigned
    ("ΟΔΟΣ", "οδος"),  # a final sigma lowered as such
]


@pytest.mark.parametrize(("heading", "anchor"), GITHUB_SLUGS)
def test_github_anchor_as_github_slugger_makes_it(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_github_anchors_of_repeated_headings_count_on_until_new() -> None:
    """github-slugger's numbering: each slug counts its repeats, and a numbered anchor that
    is taken already counts on (`echo 1` after two `echo` is `echo-1-1`)."""
    texts = ["alpha", "alpha", "echo", "echo", "echo 1", "echo-1", "echo"]
    texts += ["foxtrot-1", "foxtrot", "foxtrot", " a ", "-a-", "golf", "golf", "golf"]
    headings = [Heading(2, text, line, ()) for line, text in enumerate(texts, 1)]
    github = list(heading_anchors(headings))[::4]  # then MkDocs's, Redcarpet's, VitePress's
    assert github == [
        "alpha",
        "alpha-1",
        "echo",
        "echo-1",
        "echo-1-1",
        "echo-1-2",
        "echo-2",
        "foxtrot-1",
        "foxtrot",
        "foxtrot-2",
        "-a-",
        "-a--1",
        "golf",
        "golf-1",
        "golf-2",
    ]


def test_a_link_to_a_file_ingest_refused_says_why(ws: Path, invoke: Invoke) -> None:
    """The page links to three files that ingest refuses (too large, NUL bytes, UTF-16):
    each finding says which, and why, not that nothing is there."""
    write(ws / CONFIG, "max_file_bytes = 200\n")
    links = "# Guide\n\n[big](big.md) [binary](binary.md) [notes](notes.txt) [gone](gone.md)\n"
    write(ws / "docs" / "guide.md", links)
    write(ws / "docs" / "big.md", "# Big\n\n" + "x" * 300 + "\n")
    write(ws / "docs" / "binary.md", b"# Binary\n\n\x00\n")
    write(ws / "docs" / "notes.txt", "Notes\n".encode("utf-16"))
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert result.output.count("refused") == 3, result.output
    assert [f["message"] for f in _sw001(ws, invoke)] == [
        "broken link to big.md: ingest refuses docs/big.md, so it has no article: file is "
        "308 bytes, over the limit of 200 (max_file_bytes in .wiki/config.toml)",
        "broken link to binary.md: ingest refuses docs/binary.md, so it has no article: "
        "binary file (contains NUL bytes); only text files can be used",
        "broken link to notes.txt: ingest refuses docs/notes.txt, so it has no article: "
        "file is UTF-16 encoded; save it as UTF-8",
        "broken link to gone.md: gone.md does not exist; fix the link in the raw file",
    ]
    write(ws / "docs" / "big.md", "# Big\n\nShorter now.\n")  # lint looks again
    assert _sw001(ws, invoke)[0]["message"] == (
        "broken link to big.md: docs/big.md was never ingested; ingest it, or fix the link "
        "in the raw file"
    )


def test_a_link_to_a_raw_file_compile_refuses_says_why(ws: Path, invoke: Invoke) -> None:
    """Raw files put in .wiki/raw/ by hand have no article: one whose frontmatter compile
    refuses, and one not compiled yet. A link to either says so (SW003 reports the files)."""
    write(ws / "docs" / "guide.md", "# Guide\n\n[notes](notes.md) [later](later.md)\n")
    _ingest(ws, invoke, "docs/guide.md")
    write(ws / ".wiki" / "raw" / "docs" / "notes.md", "---\ntitle: [a, b]\n---\n# Notes\n")
    invoke("compile", "-w", str(ws))
    write(ws / ".wiki" / "raw" / "docs" / "later.md", "# Later\n")
    assert [f["message"] for f in _sw001(ws, invoke)] == [
        "broken link to notes.md: compile refuses .wiki/raw/docs/notes.md, so it has no "
        "article: frontmatter key 'title' must be a string",
        "broken link to later.md: .wiki/raw/docs/later.md has no article yet; run "
        "'skillwiki compile'",
    ]


def test_a_heading_s_no_break_space_and_double_space_are_kept_for_github_s_anchor(
    ws: Path, invoke: Invoke
) -> None:
    """GitHub slugs a heading's text as written: `Step\u00a01` is `step1` (the no-break space
    dropped) and `Two  spaces` is `two--spaces`; the title and the other sites' anchors read
    the text with its spaces collapsed."""
    write(
        ws / "docs" / "spaces.md",
        "# Spaces\n\n## Step\u00a01\n\n## Two  spaces\n\n"
        "[a](#step1) [b](#two--spaces) [c](#step-1) [d](#two-spaces)\n",
    )
    _ingest(ws, invoke, "docs")
    # `#step-1` and `#two-spaces` are MkDocs's and VitePress's anchors of the same headings.
    assert [f["target"] for f in _sw001(ws, invoke)] == []
    broken = "# Spaces\n\n## Step\u00a01\n\n[a](#step-x)\n"
    write(ws / "docs" / "spaces.md", broken)
    _ingest(ws, invoke, "docs")
    assert [f["target"] for f in _sw001(ws, invoke)] == ["#step-x"]
