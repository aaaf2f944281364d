"""The query's words a page holds close together (search/near.py), and how that ranks pages:
a long page that holds the words in different sections no longer outranks the page about
them. (That reading only the candidates that may rank changes nothing: test_search_paths.)"""

from __future__ import annotations

from pathlib import Path

from skillwiki.search import near
from tests.support import Invoke, hit_names, write


def held(body: str, *roots: str) -> int:
    return near.held_near(body.encode(), roots)


def test_words_in_one_sentence_count_together_and_a_blank_line_parts_them() -> None:
    assert held("Send only the fields that changed to update an item.", "field", "updat") == 2
    assert held("Fields.\n\nThe rest.\n\nUpdate.", "field", "updat") == 1
    # A paragraph wrapped over lines is one block; a word 11 words on is out of reach.
    assert held("update the\nfields", "updat", "field") == 2
    assert held("update " + "x " * 10 + "fields", "updat", "field") == 1
    assert held("update " + "x " * 9 + "fields", "updat", "field") == 2
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
    from skillwiki.documents import body_of

    for article in ("---\ntitle: x\n---\n# X\n\nText.\n", "# No frontmatter\n", "---\nopen\n"):
        assert body_of(article.encode()) == body_of(article).encode()
