"""What one command leaves for the next: a write leaves the search index in step, a read opens
one connection, --no-compile leaves nothing to compare again, and a compile hands the index
what it parsed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillwiki import search, statcache
from skillwiki.search import sync
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


def test_a_write_other_than_compile_builds_no_index_where_there_is_none(
    ws: Path, invoke: Invoke
) -> None:
    _notes(ws, 3)
    args = ("--title", "Quokka retries", "--summary", "The quokka service needs three retries.")
    assert invoke("record-lesson", "-w", str(ws), *args).exit_code == 0
    assert (ws / ".wiki" / "wiki" / "notes" / "n02.md").exists()  # it compiled the notes
    assert not search.index_path(Workspace(ws)).exists()


@pytest.mark.parametrize("command", ["compile", "ingest"])
def test_the_compile_and_ingest_commands_build_the_index_the_next_query_uses(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    from skillwiki.compiler import catalog, freshness, plan

    monkeypatch.setattr(statcache.cache, "RACY_NS", 3600 * 10**9)  # every stat too recent
    _notes(ws, 60)
    args = [command]
    if command == "ingest":  # the notes ingested from a folder of the repository
        (ws / ".wiki" / "raw" / "notes").rename(ws / "notes")
        args.append(str(ws / "notes"))
    assert invoke("-w", str(ws), *args).exit_code == 0
    assert search.index_path(Workspace(ws)).exists()
    # Right after the compile its articles are too recent for their stats to vouch for what
    # the stat cache learned of them: their bytes do, read and hashed, not parsed again.
    work = IndexWork(monkeypatch)
    parsed = count_calls(monkeypatch, freshness, "facts_of")
    rows = count_calls(monkeypatch, plan, "read_row")
    rendered = count_calls(monkeypatch, catalog, "render")
    assert _hits(invoke, ws, "retry budget 7")[0] == ".wiki/wiki/notes/n07.md"
    assert work.none(), (work.every_article_compared, work.articles_read)
    assert (parsed, rows, rendered) == ([], [], [])


def test_an_article_changed_within_its_stat_is_parsed_again(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes changed with the stat unchanged (a write within the same timestamp tick, of the
    same size) are not taken for those the stat cache learned: their digest differs."""
    from skillwiki.compiler import freshness

    monkeypatch.setattr(statcache.cache, "RACY_NS", 3600 * 10**9)  # every stat too recent
    _notes(ws, 2)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    real = freshness.read_bytes

    def changed_within_its_stat(path: Path) -> bytes:
        data = real(path)
        return data.replace(b"Intro.", b"Intrx.") if path.name == "n01.md" else data

    monkeypatch.setattr(freshness, "read_bytes", changed_within_its_stat)
    parsed = count_calls(monkeypatch, freshness, "facts_of")
    result = invoke("status", "-w", str(ws), "--json")
    assert [target for _, _, target in parsed] == ["notes/n01.md"]
    assert json.loads(result.stdout)["totals"]["edited"] == 1


def test_the_index_takes_articles_in_as_they_are_read(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync does not read every article before it puts the first in: what it holds at once
    does not grow with the wiki."""
    _notes(ws, sync.SAMPLE + 30)
    events: list[str] = []
    read, insert = getattr(sync, "read_row"), sync._insert  # noqa: B009 (not exported)

    def reading(job: Any) -> Any:
        events.append("read")
        return read(job)

    def inserting(*args: Any) -> Any:
        events.append("insert")
        return insert(*args)

    monkeypatch.setattr(sync, "read_row", reading)
    monkeypatch.setattr(sync, "_insert", inserting)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    assert events.count("read") == events.count("insert") == sync.SAMPLE + 30
    ahead = [
        events[: n + 1].count("read") - events[: n + 1].count("insert") for n in range(len(events))
    ]
    assert max(ahead) == sync.SAMPLE


def test_a_compile_leaves_records_that_answer_the_next_look(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a compile wrote is fresh in the records it leaves, and the names of a folder it
    added articles to are digested in the order a listing gives them: the next look takes
    every folder (a big one spread over buckets too) from its record, not file by file."""
    from skillwiki.compiler import plan as planning

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # every file settled at once
    for number in range(statcache.BUCKET_FILES + 40):
        write(ws / ".wiki" / "raw" / "big" / f"p{number:04}.md", f"# Page {number}\n\nText.\n")
    _notes(ws, 3)
    assert invoke("-w", str(ws), "compile").exit_code == 0
    looked = count_calls(monkeypatch, planning, "plan_key")
    result = invoke("status", "-w", str(ws), "--json")
    assert looked == []
    total = statcache.BUCKET_FILES + 43
    assert json.loads(result.stdout)["totals"] == {
        "fresh": total, "new": 0, "stale": 0, "orphan": 0, "edited": 0,
    }  # fmt: skip
    assert _hits(invoke, ws, "retry budget 2")[0] == ".wiki/wiki/notes/n02.md"
    assert looked == []


def test_a_compile_tells_how_far_the_index_build_has_come(ws: Path) -> None:
    """The search index a compile builds tells its progress (the command line draws it as a
    bar of its own: with the `semantic` extra, embedding the articles takes longest)."""
    from skillwiki import api
    from skillwiki.config import load_config

    _notes(ws, sync.PROGRESS_EVERY * 2 + 2)
    root = Workspace(ws)
    told: list[tuple[int, int]] = []
    api.compile(root, load_config(root.config_file), indexing=lambda *now: told.append(now))
    every, total = sync.PROGRESS_EVERY, sync.PROGRESS_EVERY * 2 + 2
    assert told == [(every, total), (every * 2, total), (total, total)]


@pytest.mark.parametrize("compile_first", [True, False])
def test_a_read_that_builds_the_index_tells_how_far_it_has_come(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, compile_first: bool
) -> None:
    """A query that finds no index builds it, which on a large wiki takes a while: the command
    line draws that as its `Indexing` bar, with --no-compile too."""
    from contextlib import contextmanager

    from skillwiki.cli import render

    total = sync.PROGRESS_EVERY * 2 + 2
    _notes(ws, total)
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    search.index_path(Workspace(ws)).unlink()
    told: dict[str, list[tuple[int, int]]] = {}

    @contextmanager
    def phases(*labels: str) -> Any:
        yield tuple(
            lambda *now, label=label: told.setdefault(label, []).append(now) for label in labels
        )

    monkeypatch.setattr(render, "phases", phases)
    more = () if compile_first else ("--no-compile",)
    assert _hits(invoke, ws, "retry budget 2", *more)[0] == ".wiki/wiki/notes/n02.md"
    every = sync.PROGRESS_EVERY
    assert told == {"Indexing": [(every, total), (every * 2, total), (total, total)]}
