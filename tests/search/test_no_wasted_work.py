"""What one command leaves for the next: a write leaves the search index in step, a read opens
one connection, --no-compile leaves nothing to compare again, and a compile hands the index
what it parsed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from skillwiki import search
from skillwiki.search import heading_cache, sync
from skillwiki.workspace import Workspace
from tests.support import Invoke, count_calls, write


class IndexWork:
    """What the syncs of the index did while it was watched: the comparisons of every article
    with the index (those not told what changed since its last sync), the articles read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._compared = count_calls(monkeypatch, sync, "differences")
        self._read = count_calls(monkeypatch, sync, "read_row")

    @property
    def every_article_compared(self) -> int:
        return sum(1 for _, _, since in self._compared if since is None)

    @property
    def articles_read(self) -> list[str]:
        return [job.rel for (job,) in self._read]

    def none(self) -> bool:
        return self.every_article_compared == 0 and self.articles_read == []


def _hits(invoke: Invoke, root: Path, text: str, *more: str) -> list[str]:
    result = invoke("query", "-w", str(root), text, "--json", *more)
    assert result.exit_code == 0, result.output
    return [hit["path"] for hit in json.loads(result.stdout)["results"]]


def _notes(root: Path, count: int) -> None:
    for number in range(count):
        write(
            root / ".wiki" / "raw" / "notes" / f"n{number:02}.md",
            f"# Note {number}\n\nIntro.\n\n## Retry budget {number}\n\nText.\n",
        )


def test_after_record_lesson_the_next_query_has_no_index_work(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _hits(invoke, demo, "deploy")  # the index is built
    result = invoke(
        "record-lesson", "-w", str(demo), "--title", "Quokka retries",
        "--summary", "The quokka service needs three retries.",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    work = IndexWork(monkeypatch)
    assert any("quokka" in path for path in _hits(invoke, demo, "quokka"))
    assert work.none(), (work.every_article_compared, work.articles_read)


def test_a_write_builds_no_index_where_there_is_none(ws: Path, invoke: Invoke) -> None:
    _notes(ws, 3)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    assert not search.index_path(Workspace(ws)).exists()


def test_a_query_opens_one_connection_to_the_index(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = str(search.index_path(Workspace(demo)))
    for _ in range(2):  # the first query builds the index, the second finds it in step
        opened = count_calls(monkeypatch, sqlite3, "connect")
        assert _hits(invoke, demo, "deploy")
        assert [str(path) for (path, *_) in opened].count(index) == 1
        monkeypatch.undo()


def test_no_compile_leaves_nothing_for_the_next_query_to_compare(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _hits(invoke, demo, "deploy")
    assert _hits(invoke, demo, "deploy", "--no-compile") == expected
    work = IndexWork(monkeypatch)
    assert _hits(invoke, demo, "deploy") == expected
    assert work.none(), (work.every_article_compared, work.articles_read)
    search.index_path(Workspace(demo)).unlink()  # --no-compile builds it from the articles
    assert _hits(invoke, demo, "deploy", "--no-compile") == expected
    work = IndexWork(monkeypatch)
    assert _hits(invoke, demo, "deploy") == expected
    assert work.none(), (work.every_article_compared, work.articles_read)


def test_no_compile_opens_the_index_as_the_last_compile_left_it(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _hits(invoke, demo, "deploy")
    compared = count_calls(monkeypatch, sync, "differences")
    assert _hits(invoke, demo, "deploy", "--no-compile") == expected
    assert compared == []  # in step with the state the stat cache saved: nothing looked at


def test_a_compile_after_a_query_leaves_the_index_in_step(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    _notes(ws, 3)
    assert _hits(invoke, ws, "retry budget")
    write(ws / ".wiki" / "raw" / "notes" / "n01.md", "# Note 1\n\n## Backoff\n\nText.\n")
    assert invoke("-w", str(ws), "compile").exit_code == 0
    work = IndexWork(monkeypatch)
    assert _hits(invoke, ws, "backoff") == [".wiki/wiki/notes/n01.md"]
    assert work.none(), (work.every_article_compared, work.articles_read)


def test_the_first_query_after_a_bulk_compile_parses_no_article(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    _notes(ws, heading_cache.MIN_ARTICLES)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    parsed = count_calls(monkeypatch, heading_cache, "read_article")
    assert ".wiki/wiki/notes/n07.md" in _hits(invoke, ws, "retry budget 7")
    assert parsed == []


def test_the_query_just_after_a_write_does_not_render_the_catalog_again(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """index.md and index.json written a moment ago are not vouched for by their stat; the
    fingerprints of what was written are compared instead of rendering every row."""
    from skillwiki.compiler import catalog

    assert _hits(invoke, demo, "deploy")
    result = invoke(
        "record-lesson", "-w", str(demo), "--title", "Quokka retries",
        "--summary", "The quokka service needs three retries.",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rendered = count_calls(monkeypatch, catalog, "render")
    assert any("quokka" in path for path in _hits(invoke, demo, "quokka"))
    assert rendered == []


def test_indexes_changed_since_they_were_written_are_rendered_and_compared(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    import marshal

    from skillwiki.compiler import catalog

    _notes(ws, 3)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    kept = ws / ".wiki" / ".cache" / "indexes.marshal"
    written = marshal.loads(kept.read_bytes())
    assert written["stats"] and len(written["fingerprints"]) == 2
    # the stats as written, but other bytes: what a rewrite within one timestamp tick leaves
    kept.write_bytes(marshal.dumps({**written, "fingerprints": ("xxh3:0", "xxh3:0")}))
    rendered = count_calls(monkeypatch, catalog, "render")
    assert _hits(invoke, ws, "retry budget")
    assert len(rendered) == 1


def test_a_write_does_not_wait_long_for_another_process_syncing_the_index(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextlib import closing

    from skillwiki.search import index

    assert _hits(invoke, demo, "deploy")
    monkeypatch.setattr(index, "WRITER_WAIT", 0.05)
    with closing(sqlite3.connect(index.index_path(Workspace(demo)), isolation_level=None)) as db:
        db.execute("BEGIN IMMEDIATE")  # another process syncing
        result = invoke(
            "record-lesson", "-w", str(demo), "--title", "Quokka retries",
            "--summary", "The quokka service needs three retries.",
        )  # fmt: skip
        db.execute("ROLLBACK")
    assert result.exit_code == 0, result.output
    assert any("quokka" in path for path in _hits(invoke, demo, "quokka"))  # the read syncs it


def test_a_write_leaves_an_index_of_another_schema_for_the_next_read(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextlib import closing

    from skillwiki.search import index

    assert _hits(invoke, demo, "deploy")
    with closing(sqlite3.connect(index.index_path(Workspace(demo)))) as db, db:
        db.execute("UPDATE meta SET value = 'old' WHERE key = 'schema'")
    built = count_calls(monkeypatch, index, "create_schema")
    assert invoke("-w", str(demo), "compile", "--force").exit_code == 0
    assert built == []
    assert _hits(invoke, demo, "deploy") and len(built) == 1
