"""Copies of one page (versions, translations) are one hit that names the others, and a page
whose whole title the query names ranks above pages that only say one of its words more."""

from __future__ import annotations

import json
from pathlib import Path

from skillwiki.search.copies import Copies, grouped, lead, page_of
from tests.support import Invoke, write

ALTER = """\
# ALTER DATABASE

Use `ALTER DATABASE` to change a database's survival goal in a multi-region cluster.
A survival goal says whether the database survives the loss of a zone or of a region.
{extra}
## Synopsis

Set the goal with `ALTER DATABASE movr SURVIVE REGION FAILURE`.
"""

REGIONS = """\
# Multi-region overview

Pick the survival goals of each database: zone failure or region failure.
"""


def _ingest(ws: Path, invoke: Invoke, pages: dict[str, str]) -> None:
    for rel, text in pages.items():
        write(ws / "docs" / rel, text)
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert result.exit_code == 0, result.output


def _query(invoke: Invoke, ws: Path, text: str) -> list[dict]:
    result = invoke("query", "-w", str(ws), text, "--json", "--limit", "3")
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout)["results"])


def test_version_copies_of_one_page_are_one_hit(ws: Path, invoke: Invoke) -> None:
    """Three version folders hold the same page, near word for word: it is one hit, the
    others listed under `copies`, and the next page is second, not fourth."""
    _ingest(
        ws,
        invoke,
        {
            "v1/alter-database.md": ALTER.format(extra=""),
            "v2/alter-database.md": ALTER.format(extra="Since v2 it also sets the placement.\n"),
            "v3/alter-database.md": ALTER.format(extra="Since v2 it also sets the placement.\n"),
            "v3/regions.md": REGIONS,
        },
    )
    hits = _query(invoke, ws, "multi-region survival goals")
    assert [hit["title"] for hit in hits] == ["ALTER DATABASE", "Multi-region overview"]
    first = hits[0]
    found = {first["path"], *first["copies"]}
    assert found == {f".wiki/wiki/docs/v{n}/alter-database.md" for n in (1, 2, 3)}
    assert "copies" not in hits[1]
    text = invoke("query", "-w", str(ws), "multi-region survival goals").stdout
    assert "   also at: .wiki/wiki/docs/" in text and text.count("ALTER DATABASE  [") == 1
    (ws / ".wiki" / "config.toml").write_text('[search]\nprefer = ["v2"]\n')
    assert _query(invoke, ws, "multi-region survival goals")[0]["path"].endswith(
        "v2/alter-database.md"
    )
    (ws / ".wiki" / "config.toml").write_text('[search]\nprefer = ["a/v2"]\n')
    refused = invoke("query", "-w", str(ws), "goals")
    assert refused.exit_code == 2
    assert "search.prefer: must be folder names" in refused.stderr


def test_pages_of_one_title_and_other_words_stay_apart(ws: Path, invoke: Invoke) -> None:
    """Two pages titled Overview that say different things are two pages."""
    _ingest(
        ws,
        invoke,
        {
            "cli/overview.md": "# Overview\n\nThe command line deploys a cluster in one step.\n",
            "api/overview.md": "# Overview\n\nThe HTTP interface lists each cluster's nodes.\n",
        },
    )
    assert len(_query(invoke, ws, "cluster overview")) == 2


def test_lint_copies_make_translations_one_hit(ws: Path, invoke: Invoke) -> None:
    """Translations share few words, so only `[lint] copies` makes them one page; the copy
    that holds the query's words leads."""
    _ingest(
        ws,
        invoke,
        {
            "pages/common/tar.md": "# tar\n\n> Archive files: tar archive tar.\n",
            "pages.de/common/tar.md": "# tar\n\n> Dateien archivieren: tar Archiv.\n",
        },
    )
    assert len(_query(invoke, ws, "tar archive")) == 2
    (ws / ".wiki" / "config.toml").write_text('[lint]\ncopies = ["pages*"]\n')
    [english] = _query(invoke, ws, "tar archive")
    assert english["path"] == ".wiki/wiki/docs/pages/common/tar.md"
    assert english["copies"] == [".wiki/wiki/docs/pages.de/common/tar.md"]
    [german] = _query(invoke, ws, "tar Dateien archivieren")
    assert german["path"] == ".wiki/wiki/docs/pages.de/common/tar.md"


class _Page:
    def __init__(self, path: str, title: str, held: int = 1) -> None:
        self.path, self.title, self.held = path, title, held


def test_the_preferred_version_leads_its_copies() -> None:
    """Of copies that hold as many of the query's words, the one in the first folder `prefer`
    names leads; else the best ranked."""
    pages = [
        _Page("v1/a.md", "A"),
        _Page("v3/a.md", "A"),
        _Page("v2/a.md", "A"),
        _Page("b.md", "B"),
    ]
    copies = Copies(("v[0-9]",), ("v2", "v3"))
    groups = grouped(pages, copies, lambda page: None)
    assert [[page.path for page in group] for group in groups] == [
        ["v1/a.md", "v3/a.md", "v2/a.md"],
        ["b.md"],
    ]
    assert lead(groups[0], copies.prefer, lambda page: page.held).path == "v2/a.md"
    assert lead(groups[0], (), lambda page: page.held).path == "v1/a.md"
    pages[1].held = 2  # the one copy that holds more of the query's words
    assert lead(groups[0], copies.prefer, lambda page: page.held).path == "v3/a.md"
    assert page_of("docs/v1/a.md", ["v[0-9]"]) == page_of("docs/v2/a.md", ["v[0-9]"])


def test_a_query_naming_a_whole_title_ranks_that_page_first(ws: Path, invoke: Invoke) -> None:
    """ "add middleware" names the whole title of the page Middleware, which never says "add":
    it passes the pages that say "add" beside a middleware in passing."""
    pages = {
        "middleware.md": (
            "# Middleware\n\nA middleware runs around every request.\n\n"
            "Write a middleware as a function that takes the request and the next handler.\n"
        ),
    }
    for name in ("routing", "settings", "testing", "templates"):
        pages[f"{name}.md"] = (
            f"# {name.title()}\n\nHow {name} works. Add a route, add a setting, add a test.\n\n"
            "You can add a middleware here too.\n"
        )
    _ingest(ws, invoke, pages)
    assert _query(invoke, ws, "add middleware")[0]["title"] == "Middleware"
