"""Parsing across worker processes gives the same articles, indexes and findings as one process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillwiki import parallel
from tests.support import DATA, DEMO, Invoke, count_calls, snapshot, write


def _workspace(root: Path, invoke: Invoke) -> Path:
    """A workspace with real pages, a lesson, a broken link and one file compile refuses."""
    root.mkdir()
    assert invoke("-w", str(root), "init").exit_code == 0
    raw = root / ".wiki" / "raw"
    shutil.copytree(DEMO / ".wiki" / "raw", raw, dirs_exist_ok=True)
    shutil.copytree(DATA / "compile" / "raw", raw / "golden", dirs_exist_ok=True)
    for number in range(40):
        write(
            raw / "pages" / f"page-{number:02}.md",
            f"# Page {number}\n\nText of page {number}, see [next](page-{number + 1:02}.md)"
            f" and [a section](#page-{number}).\n\n- item `[x]`\n- <a id='a{number}'></a>\n",
        )
    write(raw / "pages" / "bad.md", "---\ntitle: [unclosed\n---\nBody.\n")
    return root


def _outputs(root: Path) -> dict[str, bytes]:
    """What compile and lint made, but the log (it holds the time of day)."""
    return {
        name: data
        for name, data in snapshot(root / ".wiki").items()
        if name != "log.md" and not name.startswith(("raw/", ".cache/"))
    }


@pytest.mark.parametrize("command", ["compile", "lint"])  # compile: and query
def test_workers_give_the_same_bytes_as_one_process(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    results: dict[str, tuple[int, str, object]] = {}
    for workers in ("1", "2"):
        monkeypatch.setenv(parallel.WORKERS_ENV, workers)
        root = _workspace(tmp_path / f"with-{workers}", invoke)
        compiled = invoke("-w", str(root), "compile")
        if command == "lint":
            shown = invoke("-w", str(root), "lint", "--format", "json", "--exit-zero")
            results[workers] = (shown.exit_code, shown.stdout, _outputs(root)["index.json"])
        else:  # and the search index, built from every article on the first query
            found = invoke("-w", str(root), "query", "page section", "--json")
            results[workers] = (compiled.exit_code, compiled.stderr, (_outputs(root), found.stdout))
    assert results["1"] == results["2"]
    exit_code, output, made = results["2"]
    if command == "compile":  # the refused file came back through the pool, named
        assert isinstance(made, tuple) and "wiki/pages/page-07.md" in made[1]
        assert exit_code == 2 and ".wiki/raw/pages/bad.md: unparsable YAML" in output
    else:
        assert '"SW001"' in output and "page-40.md" in output


def test_workers_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.WORKERS_ENV, "3")
    assert parallel.workers() == 3
    monkeypatch.setenv(parallel.WORKERS_ENV, "1")
    assert parallel.workers() == 1
    monkeypatch.setenv(parallel.WORKERS_ENV, "many")  # not a number: the cores decide
    assert 1 <= parallel.workers() <= parallel.MAX_WORKERS


def test_few_items_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    seen: list[int] = []
    assert list(parallel.imap(seen.append, [1, 2, 3])) == [None, None, None]
    assert seen == [1, 2, 3]  # a worker process would have appended to its own copy


def _double(number: int) -> int:
    return 2 * number


def test_the_results_waiting_do_not_grow_with_the_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few chunks a worker are submitted ahead of the caller, not every item at once: the
    results waiting for a slow caller (whole articles) take memory bounded by the chunks."""
    from concurrent.futures import ProcessPoolExecutor

    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    submitted = count_calls(monkeypatch, ProcessPoolExecutor, "submit")
    ahead = []
    for taken, value in enumerate(parallel.imap(_double, list(range(6000)))):
        assert value == 2 * taken
        ahead.append(sum(len(chunk) for *_, chunk in submitted) - taken)
    assert len(ahead) == 6000
    assert max(ahead) <= 2 * parallel.IN_FLIGHT * 64 < 6000
