"""The headings and references compile hands to the search index are used only for the body
they were told for."""

from __future__ import annotations

from pathlib import Path

from skillwiki import headcache, search
from skillwiki.search import index
from skillwiki.workspace import Workspace
from tests.support import Invoke, write


def _bulk(ws: Path, invoke: Invoke) -> None:
    for number in range(headcache.MIN_ARTICLES):
        write(
            ws / ".wiki" / "raw" / "notes" / f"n{number:02}.md",
            f"# Note {number}\n\nIntro.\n\n## Retry budget {number}\n\nText.\n",
        )
    assert invoke("-w", str(ws), "compile").exit_code == 0


def test_a_bulk_compile_tells_the_headings_of_each_article(ws: Path, invoke: Invoke) -> None:
    _bulk(ws, invoke)
    told = headcache.load(Workspace(ws))
    assert told["notes/n07.md"][1:] == (("Retry budget 7", "Sources"), ())
    assert len(told) == headcache.MIN_ARTICLES


def test_the_index_is_the_same_with_or_without_told_headings(ws: Path, invoke: Invoke) -> None:
    _bulk(ws, invoke)
    with_told = invoke("-w", str(ws), "query", "retry budget", "--json", "--limit", "60")
    search.index_path(Workspace(ws)).unlink()
    headcache.path_of(Workspace(ws)).unlink()
    parsed = invoke("-w", str(ws), "query", "retry budget", "--json", "--limit", "60")
    assert with_told.exit_code == 0 and with_told.stdout == parsed.stdout
    assert "notes/n07.md" in parsed.stdout


def test_headings_told_for_another_body_are_not_used(ws: Path, invoke: Invoke) -> None:
    _bulk(ws, invoke)
    article = ws / ".wiki" / "wiki" / "notes" / "n03.md"
    told = headcache.load(Workspace(ws))["notes/n03.md"]
    edited = article.read_text(encoding="utf-8").replace("## Retry budget 3", "## Backoff")
    body = edited.split("\n---\n", 1)[1]
    assert headcache.told_of(told, body) is None  # a hand edit: parse instead
    document = index._document((article, "notes/n03.md", None, told))
    assert document is not None and document.values[2] == "Retry budget 3 Sources"
    article.write_text(edited.replace("Text.", "See `n04`."), encoding="utf-8")
    document = index._document((article, "notes/n03.md", None, told))
    assert document is not None and document.values[2] == "Backoff Sources"
    assert document.refs == ("k:n04",)
    for damaged in (
        None,
        ("xxh3:zz", ("A",), ()),
        ("xxh3:0000000000000000",),
        (told[0], ("A",), ("k:x", 1)),
        "text",
    ):
        assert headcache.told_of(damaged, body) is None  # type: ignore[arg-type]
