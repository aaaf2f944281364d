"""The query's words a page holds close together (search/near.py), and how that ranks pages:
a long page that holds the words in different sections no longer outranks the page about
them. (That reading only the candidates that may rank changes nothing: test_search_paths.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillwiki.search import near
from skillwiki.search.text import words
from tests.support import DEMO, Invoke, hit_names, real_pages, write


def held(body: str, *roots: str) -> int:
    return near.held_near(body.encode(), roots)


def test_words_in_one_sentence_count_together_and_a_blank_line_parts_them() -> None:
    assert held("Send only the fields that changed to update an item.", "field", "updat") == 2
    assert held("Fields.\n\nThe rest.\n\nUpdate.", "field", "updat") == 1
    # A paragraph wrapped over lines is one block; a word 11 words on is out of reach.
    assert held("update the\nfields", "updat", "field") == 2
    assert held("update " + "x " * 10 + "fields", "updat", "field") == 1
    assert held("update " + "x " * 9 + "fields", "updat", "field") == 2
    # A gap of one byte between two matches counts as any gap does: `c` is 11 words from `b`.
    assert held("c" + " x" * 9 + " a b", "a", "b", "c") == 2
    # The most of them in any one place, not the most of each.
    body = "alpha beta\n\nalpha gamma delta\n\nbeta"
    assert held(body, "alpha", "beta", "gamma", "delta") == 3


def test_a_run_of_white_space_is_one_gap_and_a_line_of_spaces_is_a_blank_line() -> None:
    # An indented code line, a padded table cell, a tab: one gap each, as a space is.
    assert held("update(\n" + "        x,\n" * 9 + "        fields)", "updat", "field") == 2
    assert held("| update " + " " * 30 + "| fields |", "updat", "field") == 2
    assert held("update\t" + "x\t" * 9 + "fields", "updat", "field") == 2
    assert held("update\t" + "x\t" * 10 + "fields", "updat", "field") == 1
    # A line of nothing but spaces or tabs ends the block, as an empty one does.
    assert held("Update.\n   \nFields.", "updat", "field") == 1
    assert held("Update.\n\t\nFields.", "updat", "field") == 1
    assert held("Update.\r\n\r\nFields.", "updat", "field") == 1
    assert held("Update.\r\nFields.", "updat", "field") == 2


def test_words_start_where_the_index_splits_them() -> None:
    assert held("call getUserName() once", "user", "name") == 2
    assert held("the user_name column", "user", "name") == 2
    assert held("the HTTPServer class", "http", "server") == 2
    assert held("usernames and filenames", "user", "name") == 1  # inside a word: not one
    assert held("Value and VALUE", "valu") == 1
    assert held("Écrire le fichier", "écri", "fichier") == 2  # capitalized beyond ASCII
    assert held("éfile file", "file") == 1
    assert held("café file", "caf", "file") == 2
    assert held("重试策略", "重试", "试策", "策略") == 3  # CJK: anywhere, overlapping
    # Letters marked inside a word are unmarked, as the index reads them.
    assert held("- [d]elete lines 1 to 5", "delet", "line") == 2
    assert held("E[x]tract the archive, then Lis[t] it", "extract", "archiv", "list") == 3
    assert held("a [link](x.md) to v[0] and [x] alone", "link", "v0", "x") == 3


def test_the_compiler_s_sources_are_not_the_article() -> None:
    body = "Update it.\n\n## Sources\n- [raw/fields.md](../raw/fields.md) update fields\n"
    assert held(body, "updat", "field") == 1


def test_the_page_about_the_words_outranks_a_long_page_that_scatters_them(
    demo: Path, invoke: Invoke
) -> None:
    raw = demo / ".wiki" / "raw" / "docs"
    write(raw / "partial.md", "# Partial\n\nSend only the fields that changed to update an item.\n")
    sections = ["Update the index.", "Some say so.", "Fields are typed.", "An item is a row."]
    filler = " ".join(["More words about other things entirely."] * 20)
    write(raw / "log.md", "# Log\n\n" + "".join(f"{s} {filler}\n\n" for s in sections))
    assert hit_names(invoke, demo, "update some fields of an item")[:2] == ["partial.md", "log.md"]
    result = invoke("query", "-w", str(demo), "update some fields of an item", "--explain")
    assert "4 of the query's words (1 close together)" in result.stdout
    assert "3 of the query's words (3 close together)" in result.stdout


def test_an_article_s_body_is_read_alike_from_its_text_and_its_bytes() -> None:
    from skillwiki.frontmatter.documents import body_of

    for article in ("---\ntitle: x\n---\n# X\n\nText.\n", "# No frontmatter\n", "---\nopen\n"):
        assert body_of(article.encode()) == body_of(article).encode()


def _held_by_pairs(body: bytes, roots: tuple[str, ...]) -> int:
    """held_near by its definition, match by match: the most distinct roots among a match and
    those before it with no blank line and at most NEAR_WORDS runs of white space between (the
    bytes after the earlier one's first, to the later one's start). The text and the matches
    are found as held_near finds them; only the counting differs."""
    cut = body.find(b"\n## Sources\n")
    text = body if cut < 0 else body[:cut]
    text = near.unmark(text)
    starts = [near.root_starts(text, text.lower(), root) for root in roots]
    present = sum(1 for found in starts if found)
    if present < 2:
        return present
    found = sorted((start, index) for index, each in enumerate(starts) for start in each)
    best = 0
    for later, (end, index) in enumerate(found):
        held = {index}
        for start, other in reversed(found[:later]):
            between = text[start + 1 : end]
            if re.search(rb"\n[ \t\r\f\v]*\n", between):
                break
            if len(re.findall(rb"[ \t\n\r\f\v]+", between)) > near.NEAR_WORDS:
                break
            held.add(other)
        best = max(best, len(held))
    return best


@settings(max_examples=600, deadline=None)
@given(
    text=st.text(alphabet="ab cA\n\t_[]重试", max_size=80),
    roots=st.lists(st.sampled_from(["a", "b", "ab", "ca", "重试", "试"]), min_size=1, max_size=3),
)
def test_held_near_equals_counting_match_by_match(text: str, roots: list[str]) -> None:
    """Going through only the first and last of each run of one root, and counting the words
    across a run at once, finds what counting from every match does (one-letter roots and
    one-byte gaps included)."""
    unique = tuple(dict.fromkeys(roots))
    assert held(text, *unique) == _held_by_pairs(text.encode(), unique)


@pytest.mark.corpus
def test_held_near_equals_counting_match_by_match_on_real_pages(with_corpora: bool) -> None:
    """Real pages, each with roots of words from its own opening and with common ones."""
    pages = sorted((DEMO / ".wiki" / "wiki").rglob("*.md"))
    pages += real_pages("en") if with_corpora else []
    common = ("the", "file", "use", "command", "rust", "type", "value", "page")
    compared = 0
    for number, path in enumerate(pages):
        body = path.read_bytes()[: near.READ_BYTES]
        own = [word[:5] for word in words(body[:600].decode("utf-8", "replace"))[3:6]]
        for roots in (tuple(dict.fromkeys(own)), common[number % 4 : number % 4 + 3]):
            if len(roots) > 1:
                assert near.held_near(body, roots) == _held_by_pairs(body, roots), (path, roots)
                compared += 1
    assert compared >= 2 * len(pages) - 5
