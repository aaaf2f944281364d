"""outline.json: the headings and references compile found, committed with the articles, so
that an index built from scratch (a fresh clone's first query) parses no article again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillwiki.search import heading_cache
from skillwiki.workspace import Workspace
from tests.support import Invoke, count_calls, write

NOTES = heading_cache.MIN_ARTICLES + 5


def _notes(ws: Path, count: int = NOTES, start: int = 0) -> None:
    for number in range(start, start + count):
        write(
            ws / ".wiki" / "raw" / "notes" / f"n{number:03}.md",
            f"# Note {number}\n\nIntro.\n\n## Retry budget {number}\n\nSee `n{number + 1:03}`.\n",
        )


def _clone(ws: Path, where: Path) -> Path:
    """The workspace as a fresh clone has it: everything but `.wiki/.cache/`."""
    shutil.copytree(ws, where, ignore=shutil.ignore_patterns(".cache", ".lock"))
    return where


def _query(invoke: Invoke, ws: Path) -> str:
    found = invoke("-w", str(ws), "query", "retry budget", "--json", "--limit", "80")
    assert found.exit_code == 0, found.output
    return str(found.stdout)


def test_a_fresh_clone_s_first_query_parses_no_article(
    ws: Path, invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _notes(ws)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    outline = heading_cache.load(Workspace(ws))
    assert len(outline) == NOTES
    assert outline["notes/n007.md"][1:] == (("Retry budget 7", "Sources"), ("k:n008",))
    expected = _query(invoke, ws)
    clone = _clone(ws, tmp_path / "clone")
    parsed = count_calls(monkeypatch, heading_cache, "read_article")  # (body, path, title)
    assert _query(invoke, clone) == expected  # the same answer, the same bytes
    assert [call[1] for call in parsed] == []


def test_an_article_compiled_again_since_is_parsed_and_the_file_left_alone(
    ws: Path, invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compile of a few articles rewrites no file the size of the wiki: the entry of the
    article it wrote no longer matches, and a fresh clone parses that article alone."""
    _notes(ws)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    before = heading_cache.path_of(Workspace(ws)).read_bytes()
    write(ws / ".wiki" / "raw" / "notes" / "n003.md", "# Note 3\n\n## Backoff budget\n\nText.\n")
    assert invoke("-w", str(ws), "compile").exit_code == 0
    assert heading_cache.path_of(Workspace(ws)).read_bytes() == before
    expected = _query(invoke, ws)
    clone = _clone(ws, tmp_path / "clone")
    parsed = count_calls(monkeypatch, heading_cache, "read_article")  # (body, path, title)
    assert _query(invoke, clone) == expected
    assert [call[1] for call in parsed] == ["notes/n003.md"]


def test_compile_makes_the_file_again_byte_for_byte_and_a_read_never_writes_it(
    ws: Path, invoke: Invoke
) -> None:
    _notes(ws)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    path = heading_cache.path_of(Workspace(ws))
    first = path.read_bytes()
    assert json.loads(first)["version"] == heading_cache.VERSION
    path.unlink()
    assert "notes/n001.md" in _query(invoke, ws)
    assert not path.exists()  # a read leaves it to the next compile
    done = invoke("-w", str(ws), "compile", "--json")
    assert done.exit_code == 0 and json.loads(done.stdout)["written"] == []
    assert path.read_bytes() == first


def test_a_bulk_compile_drops_the_articles_gone_and_adds_the_new(ws: Path, invoke: Invoke) -> None:
    _notes(ws)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    (ws / ".wiki" / "raw" / "notes" / "n000.md").unlink()
    _notes(ws, NOTES, start=NOTES)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    outline = heading_cache.load(Workspace(ws))
    assert "notes/n000.md" not in outline and len(outline) == 2 * NOTES - 1
    assert outline[f"notes/n{NOTES + 1:03}.md"][1][0] == f"Retry budget {NOTES + 1}"


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{not json",
        b'{"version": 99, "articles": {}}',
        b'{"version": 1, "articles": []}',
        b'{"version": 1, "articles": {"notes/n001.md": ["xxh3:0", "x", []], "n": 3}}',
    ],
)
def test_a_damaged_file_is_read_as_none_and_the_answer_is_the_same(
    ws: Path, invoke: Invoke, tmp_path: Path, damage: bytes
) -> None:
    _notes(ws)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    expected = _query(invoke, ws)
    clone = _clone(ws, tmp_path / "clone")
    heading_cache.path_of(Workspace(clone)).write_bytes(damage)
    assert heading_cache.load(Workspace(clone)) == {}
    assert _query(invoke, clone) == expected
