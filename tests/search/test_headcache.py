"""The headings and references compile hands to the search index are used only for the body
they were found in."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillwiki import search
from skillwiki.search import heading_cache
from skillwiki.search.row import ArticleToRead, read_row
from skillwiki.workspace import Workspace
from tests.support import Invoke, count_calls, write


def _bulk(ws: Path, invoke: Invoke) -> None:
    for number in range(heading_cache.MIN_ARTICLES):
        write(
            ws / ".wiki" / "raw" / "notes" / f"n{number:02}.md",
            f"# Note {number}\n\nIntro.\n\n## Retry budget {number}\n\nText.\n",
        )
    assert invoke("-w", str(ws), "compile").exit_code == 0


def test_a_bulk_compile_tells_the_headings_of_each_article(ws: Path, invoke: Invoke) -> None:
    _bulk(ws, invoke)
    cached = heading_cache.load(Workspace(ws))
    assert cached["notes/n07.md"][1:] == (("Retry budget 7", "Sources"), ())
    assert len(cached) == heading_cache.MIN_ARTICLES


def test_the_index_is_the_same_with_or_without_the_headings_of_compile(
    ws: Path, invoke: Invoke
) -> None:
    _bulk(ws, invoke)
    with_cache = invoke("-w", str(ws), "query", "retry budget", "--json", "--limit", "60")
    search.index_path(Workspace(ws)).unlink()
    heading_cache.path_of(Workspace(ws)).unlink()
    parsed = invoke("-w", str(ws), "query", "retry budget", "--json", "--limit", "60")
    assert with_cache.exit_code == 0 and with_cache.stdout == parsed.stdout
    assert "notes/n07.md" in parsed.stdout


def test_headings_found_in_another_body_are_not_used(ws: Path, invoke: Invoke) -> None:
    _bulk(ws, invoke)
    article = ws / ".wiki" / "wiki" / "notes" / "n03.md"
    found = heading_cache.load(Workspace(ws))["notes/n03.md"]
    edited = article.read_text(encoding="utf-8").replace("## Retry budget 3", "## Backoff")
    body = edited.split("\n---\n", 1)[1]
    assert heading_cache.for_body(found, body) is None  # a hand edit: parse instead
    document = read_row(ArticleToRead(article, "notes/n03.md", headings=found))
    assert document is not None and document.values[2] == "Retry budget 3 Sources"
    article.write_text(edited.replace("Text.", "See `n04`."), encoding="utf-8")
    document = read_row(ArticleToRead(article, "notes/n03.md", headings=found))
    assert document is not None and document.values[2] == "Backoff Sources"
    assert document.refs == ("k:n04",)
    for damaged in (
        None,
        ("xxh3:zz", ("A",), ()),
        ("xxh3:0000000000000000",),
        (found[0], ("A",), ("k:x", 1)),
        "text",
    ):
        assert heading_cache.for_body(damaged, body) is None  # type: ignore[arg-type]


def test_an_article_just_written_is_not_parsed_again_by_the_index(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a compile of a few articles (too few for the headings file), the index takes
    their headings and references from compile itself; a hand edit is still parsed."""
    raw = ws / ".wiki" / "raw" / "notes"
    write(raw / "a.md", "# A\n\nIntro.\n\n## Retry budget\n\nSee `b`.\n")
    write(raw / "b.md", "# B\n\nText.\n")
    assert invoke("-w", str(ws), "query", "intro").exit_code == 0
    calls = count_calls(monkeypatch, heading_cache, "read_article")  # (body, path, title)
    write(raw / "a.md", "# A\n\nIntro.\n\n## Backoff budget\n\nSee `b`.\n")
    found = invoke("-w", str(ws), "query", "backoff", "--json")
    assert found.exit_code == 0 and "notes/a.md" in found.stdout
    assert [call[1] for call in calls] == []
    article = ws / ".wiki" / "wiki" / "notes" / "b.md"
    article.write_text(article.read_text().replace("Text.", "## Jitter\n\nText."))
    assert "notes/b.md" in invoke("-w", str(ws), "query", "jitter", "--json").stdout
    assert [call[1] for call in calls] == ["notes/b.md"]
