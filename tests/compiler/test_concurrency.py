"""Real processes: parallel writers all land, and a dead writer's lock is released by the OS."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support import Invoke, replace_by_hand, write

CLI = [sys.executable, "-m", "skillwiki"]


def test_parallel_record_lesson_both_land(ws: Path) -> None:
    procs = [
        subprocess.Popen(
            [
                *CLI,
                "-w",
                str(ws),
                "record-lesson",
                "--title",
                f"Lesson {n}",
                "--summary",
                f"S {n}.",
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(4)
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0, 0], outputs
    ids = {json.loads(out)["id"] for out, _ in outputs}
    assert len(ids) == 4
    index = json.loads((ws / ".wiki" / "index.json").read_text())
    assert {item["id"] for item in index["articles"]} == ids
    log = (ws / ".wiki" / "log.md").read_text()
    assert sum(" record-lesson " in line for line in log.splitlines()) == 4


def test_lock_of_a_killed_writer_is_released(ws: Path, invoke: Invoke) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from skillwiki.fsio import workspace_lock\n"
            "from pathlib import Path\n"
            "from skillwiki.workspace import Workspace\n"
            f"with workspace_lock(Workspace(Path({str(ws)!r})), 5):\n"
            "    print('locked', flush=True)\n"
            "    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    (ws / ".wiki" / "config.toml").write_text("lock_timeout = 0.2\n")
    blocked = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.")
    assert blocked.exit_code == 2
    assert blocked.stderr == (
        f"Error: the workspace {ws} is locked by another skillwiki process (pid {holder.pid}) "
        "for more than 0.2s; try again when it has finished\n"
    )
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    holder.stdout.close()
    started = time.monotonic()
    result = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.")
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 30


def _run_all(
    commands: list[list[str]], cwd: Path | None = None
) -> list[subprocess.CompletedProcess[str]]:
    procs = [
        subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for cmd in commands
    ]
    results = []
    for proc, cmd in zip(procs, commands, strict=True):
        out, err = proc.communicate(timeout=300)
        results.append(subprocess.CompletedProcess(cmd, proc.returncode, out, err))
    return results


@pytest.mark.slow
def test_thirty_two_writers(ws: Path, invoke: Invoke) -> None:
    record = [*CLI, "-w", str(ws), "record-lesson", "--json", "--summary"]
    distinct = _run_all(
        [
            [*record, f"Lesson number {n} went wrong.", "--title", f"Parallel lesson {n}"]
            for n in range(32)
        ]
    )
    assert [r.returncode for r in distinct] == [0] * 32, [
        r.stderr for r in distinct if r.returncode
    ]
    ids = [json.loads(r.stdout)["id"] for r in distinct]
    assert len(set(ids)) == 32
    same = _run_all(
        [[*record, "Everyone saw the same failure.", "--title", "The same lesson"]] * 32
    )
    assert [r.returncode for r in same] == [0] * 32, [r.stderr for r in same if r.returncode]
    created = [json.loads(r.stdout)["created"] for r in same]
    assert created.count(True) == 1  # the other 31 found it already recorded
    assert len({json.loads(r.stdout)["id"] for r in same}) == 1
    files = sorted(p.stem for p in (ws / ".wiki" / "raw" / "lessons").iterdir())
    assert len(files) == 33 and not [
        p for p in (ws / ".wiki").rglob("*.tmp") if ".cache" not in p.parts
    ]
    index = json.loads((ws / ".wiki" / "index.json").read_text())
    assert sorted(item["id"] for item in index["articles"]) == files
    index_md = (ws / ".wiki" / "index.md").read_text()
    assert all(f"wiki/lessons/{name}.md" in index_md for name in files)
    log = [
        line
        for line in (ws / ".wiki" / "log.md").read_text().splitlines()
        if " record-lesson " in line
    ]
    assert len(log) == 33  # one line per write, none lost
    for n in range(32):
        hits = json.loads(invoke("query", "-w", str(ws), f"Parallel lesson {n}", "--json").stdout)[
            "results"
        ]
        assert hits[0]["path"] == f".wiki/wiki/lessons/{ids[n]}.md"
    assert invoke("lint", "-w", str(ws), "--format", "json").exit_code in (0, 1)
    assert invoke("status", "-w", str(ws), "--check").exit_code == 0


@pytest.mark.slow
def test_ingest_and_query_at_once(ws: Path) -> None:
    for n in range(60):
        write(
            ws / "docs" / f"part{n % 3}" / f"note{n}.md",
            f"# Note {n}\n\nThe quokka number {n} is here.\n",
        )
    write(ws / "docs" / "seed.md", "# Seed\n\nquokka seed\n")
    subprocess.run(
        [*CLI, "-w", str(ws), "ingest", str(ws / "docs" / "seed.md")],
        check=True,
        capture_output=True,
    )
    folders = [
        str(ws / "docs"),
        str(ws / "docs" / "part0"),
        str(ws / "docs" / "part1"),
        str(ws / "docs" / "part2"),
    ]
    ingests = [[*CLI, "-w", str(ws), "ingest", folders[n % 4]] for n in range(8)]
    queries = [[*CLI, "-w", str(ws), "query", "quokka", "--json"] for _ in range(8)]
    results = _run_all(ingests + queries)
    assert [r.returncode for r in results] == [0] * 16, [r.stderr for r in results if r.returncode]
    for result in results[8:]:
        assert json.loads(result.stdout)["results"]  # never failed, never an empty or half index
    final = subprocess.run(
        [*CLI, "-w", str(ws), "query", "quokka", "--json", "--limit", "100"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(json.loads(final.stdout)["results"]) == 61
    raw = sorted(p.name for p in (ws / ".wiki" / "raw" / "docs").rglob("*.md"))
    assert len(raw) == 61  # overlapping folders: no duplicates


def test_another_writer_right_after_the_lock_is_not_taken_for_this_one(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compile takes the stat of each wiki/ folder it wrote into before it lets the lock
    go, so that the records it renews after do not vouch for a write someone made into the
    same folder in between: an article replaced by hand there then (its name unchanged, in
    another bucket of a big folder) is found by the next look, which lists articles by name
    only and answers a bucket by its record while the folder's stat is the one recorded."""
    from contextlib import contextmanager

    from skillwiki import fsio, statcache
    from skillwiki.compiler import compile_workspace
    from skillwiki.config import load_config
    from skillwiki.workspace import find_workspace

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # records quiet at once, as if settled
    raw = ws / ".wiki" / "raw" / "big"
    names = [f"page-{number:04d}.md" for number in range(statcache.BUCKET_FILES + 60)]
    for name in names:
        write(raw / name, f"# {name}\n\nA page.\n")
    root = find_workspace(ws)
    config = load_config(root.config_file)
    compile_workspace(root, config)
    compile_workspace(root, config, trust_articles=True)  # the records settle, quiet
    count = statcache.buckets_for(len(names))
    changed = names[0]
    bucket = statcache.bucket_of(changed, count)
    other = next(name for name in names if statcache.bucket_of(name, count) != bucket)
    article = ws / ".wiki" / "wiki" / "big" / other
    locked = fsio.workspace_lock
    others: list[str] = []

    @contextmanager
    def then_another(*args: Any) -> Any:
        with locked(*args):
            yield
        if not others:  # someone else's write into the same folder, by a rename over
            replace_by_hand(article, "Edited by hand.")  # the folder's stat moves
            others.append(other)

    monkeypatch.setattr(fsio, "workspace_lock", then_another)  # as compile takes it
    write(raw / changed, "# Changed\n\nThe page, changed.\n")
    assert compile_workspace(root, config, trust_articles=True).written == [f"big/{changed}"]
    assert others == [other]
    assert compile_workspace(root, config, trust_articles=True).kept_edited == [f"big/{other}"]
    assert "Edited by hand." in article.read_text()


def test_files_removed_while_a_compile_plans_and_runs_are_taken_as_gone(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the listing and the read of a file, another writer (a compile beside this one,
    a person) may remove it: a raw file read to be hashed, or to be compiled, and an article
    read for its facts. The compile ended in a FileNotFoundError traceback. Now an article
    gone is written again, and a raw file gone is named (exit 2, no traceback); the next
    compile removes its article."""
    from skillwiki.compiler import apply, freshness
    from skillwiki.statcache import read_with_stat

    raw, wiki = demo / ".wiki" / "raw" / "docs", demo / ".wiki" / "wiki" / "docs"
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    for name in ("ci.md", "agents.md"):
        write(raw / name, (raw / name).read_text() + "\nOne more line.\n")
    later = time.time() + 5  # its stat no longer the one the cache vouches for: it is read
    os.utime(wiki / "deployment.md", (later, later))

    def removed_before(gone: set[Path]) -> Any:
        def read(path: Path) -> Any:
            if path in gone:
                gone.discard(path)
                path.unlink()
            return read_with_stat(path)

        return read

    planning, compiling = {raw / "ci.md", wiki / "deployment.md"}, {raw / "agents.md"}
    monkeypatch.setattr(freshness, "read_with_stat", removed_before(planning))
    monkeypatch.setattr(apply, "read_with_stat", removed_before(compiling))
    result = invoke("compile", "-w", str(demo))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and not planning and not compiling
    assert "Error: 2 raw files could not be compiled" in result.stderr
    for name in ("agents.md", "ci.md"):
        assert f".wiki/raw/docs/{name}: removed while this compile ran" in result.stderr
    assert "docs/deployment.md" in (wiki / "deployment.md").read_text()  # written again
    monkeypatch.undo()
    again = invoke("compile", "-w", str(demo), "--json")
    assert again.exit_code == 0, again.output
    removed = sorted(json.loads(again.stdout)["removed"])
    assert removed == [".wiki/wiki/docs/agents.md", ".wiki/wiki/docs/ci.md"]
