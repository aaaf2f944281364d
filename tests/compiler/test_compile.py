from __future__ import annotations

import json
import marshal
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from skillwiki import COMPILER
from tests.support import DATA, Invoke, mtimes, replace_by_hand, snapshot, write

GOLDEN = DATA / "compile"


def _golden_workspace(ws: Path) -> None:
    shutil.copytree(GOLDEN / "raw", ws / ".wiki" / "raw", dirs_exist_ok=True)


def test_compile_matches_golden_articles(ws: Path, invoke: Invoke) -> None:
    _golden_workspace(ws)
    result = invoke("compile", "-w", str(ws))
    assert result.exit_code == 0, result.output
    dot = ws / ".wiki"
    files = [dot / "index.md", dot / "index.json", *(dot / "wiki").rglob("*")]
    produced = {
        path.relative_to(dot).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(files)
        if path.is_file()
    }
    if os.environ.get("SKILLWIKI_REGEN"):
        shutil.rmtree(GOLDEN / "expected", ignore_errors=True)
        for rel, text in produced.items():
            write(GOLDEN / "expected" / rel, text)
    expected = {
        path.relative_to(GOLDEN / "expected").as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((GOLDEN / "expected").rglob("*"))
        if path.is_file()
    }
    assert produced == expected


def test_compile_is_deterministic_and_reproducible(ws: Path, invoke: Invoke) -> None:
    _golden_workspace(ws)
    invoke("compile", "-w", str(ws))
    first = snapshot(ws)
    shutil.rmtree(ws / ".wiki" / "wiki")
    shutil.rmtree(ws / ".wiki" / ".cache")
    (ws / ".wiki" / "index.md").unlink()
    (ws / ".wiki" / "index.json").unlink()
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    second = snapshot(ws)
    first.pop(".wiki/log.md")
    second.pop(".wiki/log.md")
    assert second == first


def test_compile_with_nothing_to_do_writes_nothing(demo: Path, invoke: Invoke) -> None:
    before = mtimes(demo)
    log = (demo / ".wiki" / "log.md").read_bytes()
    result = invoke("compile", "-w", str(demo), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["written"] == [] and report["counts"]["fresh"] == 12
    assert mtimes(demo) == before
    assert (demo / ".wiki" / "log.md").read_bytes() == log


def test_stale_article_is_rewritten_and_logged(demo: Path, invoke: Invoke) -> None:
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nA new paragraph about flaky tests.\n")
    status = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert {
        "article": ".wiki/wiki/docs/ci.md",
        "raw": ".wiki/raw/docs/ci.md",
        "state": "stale",
    } in status["files"]
    result = json.loads(invoke("compile", "-w", str(demo), "--json").stdout)
    assert result["written"] == [".wiki/wiki/docs/ci.md"]
    assert "flaky tests" in (demo / ".wiki" / "wiki" / "docs" / "ci.md").read_text()
    assert (
        (demo / ".wiki" / "log.md")
        .read_text()
        .splitlines()[-1]
        .endswith("compile 1 written 0 removed (0 new, 1 stale, 0 orphan, 0 edited)")
    )


def test_orphan_is_removed_and_index_updated(demo: Path, invoke: Invoke) -> None:
    (demo / ".wiki" / "raw" / "docs" / "deployment.md").unlink()
    result = json.loads(invoke("compile", "-w", str(demo), "--json").stdout)
    assert result["removed"] == [".wiki/wiki/docs/deployment.md"]
    assert not (demo / ".wiki" / "wiki" / "docs" / "deployment.md").exists()
    index = json.loads((demo / ".wiki" / "index.json").read_text())
    assert "wiki/docs/deployment.md" not in [item["path"] for item in index["articles"]]
    assert "deployment.md" not in (demo / ".wiki" / "index.md").read_text()


def test_edited_article_is_kept_with_warning(demo: Path, invoke: Invoke) -> None:
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    article.write_text(article.read_text() + "\nHand-written addition.\n")
    edited = article.read_bytes()
    result = invoke("compile", "-w", str(demo))
    assert result.exit_code == 0
    assert "Warning: .wiki/wiki/docs/ci.md was edited by hand" in result.stderr
    assert article.read_bytes() == edited


def test_force_overwrites_edited_article_after_backup(demo: Path, invoke: Invoke) -> None:
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    original = article.read_bytes()
    article.write_text(article.read_text() + "\nHand-written addition.\n")
    edited = article.read_bytes()
    result = json.loads(invoke("compile", "-w", str(demo), "--force", "--json").stdout)
    assert article.read_bytes() == original
    [backup] = result["backups"]
    assert backup.startswith(".wiki/.cache/backups/") and backup.endswith("/docs/ci.md")
    assert (demo / backup).read_bytes() == edited


def test_two_forced_compiles_in_one_second_keep_both_edits(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLWIKI_NOW", "2026-12-01T10:00:00Z")  # both in the same second
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    backups = []
    for edit in ("First edit.", "Second edit."):
        article.write_text(article.read_text() + f"\n{edit}\n")
        result = json.loads(invoke("compile", "-w", str(demo), "--force", "--json").stdout)
        backups += result["backups"]
    assert len(set(backups)) == 2
    assert "First edit." in (demo / backups[0]).read_text()
    assert "Second edit." in (demo / backups[1]).read_text()


def test_edited_orphan_is_kept(demo: Path, invoke: Invoke) -> None:
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    article.write_text(article.read_text() + "\nmine\n")
    (demo / ".wiki" / "raw" / "docs" / "ci.md").unlink()
    invoke("compile", "-w", str(demo))
    assert article.exists()


def test_racily_clean_file_is_rehashed(demo: Path, invoke: Invoke) -> None:
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    os.utime(raw)  # written just now ...
    invoke("compile", "-w", str(demo))  # ... and cached in the same moment
    assert raw.read_bytes().startswith(b"-")
    _rewrite_in_place(raw, "-", "#")  # same inode, same size, same mtime: only a hash can tell
    status = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert status["totals"]["stale"] == 1


def test_archived_lessons_are_hidden_unless_all(demo: Path, invoke: Invoke) -> None:
    lesson = next((demo / ".wiki" / "raw" / "lessons").glob("*cost-budget.md"))
    lesson.write_text(lesson.read_text().replace("status: active", "status: archived"))
    query = ("query", "-w", str(demo), "budget replan", "--json")
    hidden = json.loads(invoke(*query).stdout)["results"]
    shown = json.loads(invoke(*query, "--all").stdout)["results"]
    assert all("cost-budget" not in hit["path"] for hit in hidden)
    assert any("cost-budget" in hit["path"] for hit in shown)


def test_fnv1a64_fingerprints_are_verified(demo: Path, invoke: Invoke) -> None:
    (demo / ".wiki" / "config.toml").write_text('fingerprint = "fnv1a64"\n')
    shutil.rmtree(demo / ".wiki" / "wiki")
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    article = (demo / ".wiki" / "wiki" / "docs" / "ci.md").read_text()
    assert "raw/docs/ci.md=fnv1a64:" in article
    assert "compiled_fingerprint: fnv1a64:" in article
    (demo / ".wiki" / "config.toml").write_text('fingerprint = "xxh3"\n')
    status = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert status["fresh"] is True


def test_compiler_version_change_makes_articles_stale(demo: Path, invoke: Invoke) -> None:
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    article.write_text(
        article.read_text().replace("compiler: skillwiki/4", "compiler: skillwiki/1")
    )
    status = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert status["totals"]["stale"] == 1


def test_a_new_compiler_recompiles_a_settled_workspace(demo: Path, invoke: Invoke) -> None:
    """After an upgrade whose compiler makes other articles, a workspace whose cache says all
    is fresh is compiled again: what the cache said was said of the older compiler's work."""
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    old = time.time() - 3600
    for path in demo.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))
    assert "12 fresh" in invoke("compile", "-w", str(demo)).stdout  # the cache is settled
    cache = demo / ".wiki" / ".cache" / "state.marshal"
    data = marshal.loads(cache.read_bytes())
    data["compiler"] = "skillwiki/0"
    cache.write_bytes(marshal.dumps(data))  # as the older version left it ...
    for article in (demo / ".wiki" / "wiki").rglob("*.md"):
        stat = article.stat()
        text = article.read_text(encoding="utf-8").replace(
            f"compiler: {COMPILER}", "compiler: skillwiki/0"
        )
        article.write_text(text, encoding="utf-8")  # ... and its articles: same size and times
        os.utime(article, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert "12 stale" in invoke("compile", "-w", str(demo)).stdout
    assert f"compiler: {COMPILER}\n" in (demo / ".wiki" / "wiki" / "docs" / "ci.md").read_text()


def test_invalid_raw_file_is_reported_and_others_compile(ws: Path, invoke: Invoke) -> None:
    write(ws / ".wiki" / "raw" / "good.md", "# Good\n\nFine.\n")
    write(ws / ".wiki" / "raw" / "bad.md", "---\ntitle: [\n---\nBroken.\n")
    result = invoke("compile", "-w", str(ws))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: .wiki/raw/bad.md: unparsable YAML frontmatter (")
    assert (ws / ".wiki" / "wiki" / "good.md").exists()
    assert not (ws / ".wiki" / "wiki" / "bad.md").exists()


@pytest.mark.parametrize("name", ["notes.txt", "a b (c).md"])
def test_article_names_mirror_raw_names(ws: Path, invoke: Invoke, name: str) -> None:
    write(ws / ".wiki" / "raw" / "x" / name, "Some text.\n")
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    expected = name if name.endswith(".md") else name + ".md"
    assert (ws / ".wiki" / "wiki" / "x" / expected).is_file()


def test_a_no_change_run_settles_and_then_reads_nothing(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Entries, folders and indexes written too recently to trust are checked again, and saved
    # again once old enough; from then on a no-change query renders nothing, reads no article.
    import time

    from skillwiki import compiler, statcache
    from skillwiki.compiler import catalog, freshness

    monkeypatch.setattr(statcache.cache, "RACY_NS", 300_000_000)
    write(demo / ".wiki" / "raw" / "docs" / "new.md", "# New\n\nA new note: the index changes.\n")
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    past = time.time_ns() - 3600 * 10**9
    for path in [*(demo / ".wiki" / "raw").rglob("*"), *(demo / ".wiki" / "wiki").rglob("*")]:
        os.utime(path, ns=(past, past))  # every file settled, the indexes still fresh
    assert invoke("query", "-w", str(demo), "deploy").exit_code == 0
    time.sleep(0.35)
    assert invoke("query", "-w", str(demo), "deploy").exit_code == 0
    renders: list[object] = []
    reads: list[str] = []
    real_render, real_facts = catalog.render, compiler.facts_of

    def render(rows: dict[str, Any]) -> tuple[bytes, bytes]:
        renders.append(rows)
        return real_render(rows)

    def facts_of(data: bytes, path: Path, target: str) -> compiler.Facts:
        reads.append(target)
        return real_facts(data, path, target)

    monkeypatch.setattr(catalog, "render", render)
    monkeypatch.setattr(freshness, "facts_of", facts_of)
    assert invoke("query", "-w", str(demo), "deploy").exit_code == 0
    assert invoke("status", "-w", str(demo)).exit_code == 0
    assert renders == [] and reads == []


def _stale_ci(demo: Path) -> tuple[Path, Path]:
    """docs/ci.md of the demo made stale: its raw file and its article."""
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nA new line in the raw file.\n")
    return raw, demo / ".wiki" / "wiki" / "docs" / "ci.md"


def _kept_next_time(invoke: Invoke, demo: Path, article: Path, typed: str) -> Any:
    """The next compile keeps the article edited by hand, as it keeps any such article."""
    again = invoke("compile", "-w", str(demo))
    assert typed in article.read_text()
    assert "was edited by hand" in again.stderr
    return again


def test_a_hand_edit_made_while_compile_runs_is_kept(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillwiki.compiler import Problem, apply

    _, article = _stale_ci(demo)
    real = apply.compile_one

    def edit_meanwhile(job: tuple[str, str, str, str, int]) -> apply.Compiled | Problem:
        if job[1] == "docs/ci.md":  # after the plan looked, before the article is written
            article.write_text(article.read_text() + "\nTyped while compile ran.\n")
        return real(job)

    monkeypatch.setattr(apply, "compile_one", edit_meanwhile)
    result = invoke("compile", "-w", str(demo))
    assert "Typed while compile ran." in article.read_text()
    assert "Warning: .wiki/wiki/docs/ci.md was edited by hand" in result.stderr
    monkeypatch.undo()
    _kept_next_time(invoke, demo, article, "Typed while compile ran.")


def test_a_hand_edit_made_while_compile_writes_the_article_is_kept(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An article replaced by hand after compile looked at it for the last time before
    writing, while its new text goes to a temp file, is looked at again just before the
    rename that would put the compiled one in place, and left as the hand made it."""
    from skillwiki import fsio

    _, article = _stale_ci(demo)
    real = fsio.write_temp
    edits: list[str] = []

    def then_by_hand(path: Path, data: bytes, *, sync: bool) -> tuple[Path, Any]:
        staged = real(path, data, sync=sync)
        if path == article and not edits:  # the compiled text is in its temp, not in place
            replace_by_hand(article, "Typed while it was written.")
            edits.append("ci.md")
        return staged

    monkeypatch.setattr(fsio, "write_temp", then_by_hand)
    result = invoke("compile", "-w", str(demo))
    assert edits == ["ci.md"]
    assert "Typed while it was written." in article.read_text()
    assert "Warning: .wiki/wiki/docs/ci.md was edited by hand" in result.stderr
    assert not list(article.parent.glob(".*.tmp"))  # the compiled text's temp is gone
    monkeypatch.setattr(fsio, "write_temp", real)
    _kept_next_time(invoke, demo, article, "Typed while it was written.")


def test_a_hand_edit_right_after_compile_wrote_the_article_is_kept(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stat cache remembers an article compile wrote at the stat of what it wrote (its
    temp file's, which the rename keeps), not at one taken after: replaced by hand in
    between, the article is an edited one to the next compile, which keeps it."""
    from skillwiki import fsio, statcache

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # no recent stat looked at twice
    raw, article = _stale_ci(demo)
    real = fsio.write_many
    edits: list[str] = []

    def then_by_hand(items: Any, **options: Any) -> list[bool]:
        written = real(items, **options)
        if not edits and any(path == article for path, _ in items):
            replace_by_hand(article, "Typed right after.")
            edits.append("ci.md")
        return written

    monkeypatch.setattr(fsio, "write_many", then_by_hand)
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    assert edits == ["ci.md"]
    monkeypatch.setattr(fsio, "write_many", real)
    raw.write_text(raw.read_text() + "\nAnother line.\n")  # stale again
    again = _kept_next_time(invoke, demo, article, "Typed right after.")
    assert "Warning: .wiki/wiki/docs/ci.md was edited by hand" in again.stderr


def test_a_raw_file_saved_while_compile_runs_is_compiled_again(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stat cache remembers a raw file's fingerprint at the stat it had when compile read
    it: saved again after that read (here before its article is written), it differs from
    that stat, and the next look compiles it again, however long after the save that is."""
    from skillwiki import statcache
    from skillwiki.compiler import Problem, apply

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # no recent stat looked at twice
    raw, article = _stale_ci(demo)
    real = apply.compile_one

    def save_meanwhile(job: tuple[str, str, str, str, int]) -> apply.Compiled | Problem:
        compiled = real(job)
        if job[1] == "docs/ci.md":  # read and compiled; saved again before it is written
            time.sleep(0.05)  # past the file system's clock tick: the stat moves
            raw.write_text(raw.read_text() + "\nSaved while compile ran.\n")
        return compiled

    monkeypatch.setattr(apply, "compile_one", save_meanwhile)
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    assert "Saved while compile ran." not in article.read_text()  # compiled as it was read
    monkeypatch.setattr(apply, "compile_one", real)
    assert "Saved while compile ran." in invoke("show", "-w", str(demo), "docs/ci.md").stdout


def test_the_catalog_rows_are_those_of_the_articles_on_disk(demo: Path, invoke: Invoke) -> None:
    # Plan.rows takes each article's stat from the listing and its row from the cache only
    # while that stat holds: an article retitled by hand gives its new row, one just written
    # by this run gives the row made for it, and the rows come in the order of the paths.
    from skillwiki.compiler import make_plan
    from skillwiki.compiler.freshness import read_row
    from skillwiki.config import load_config
    from skillwiki.workspace import find_workspace

    assert invoke("query", "-w", str(demo), "deploy").exit_code == 0  # the rows cached
    ws = find_workspace(demo)
    config = load_config(ws.config_file)
    article = ws.wiki / "docs" / "ci.md"
    cached = make_plan(ws, config).cache.rows.files
    assert "docs/ci.md" in cached and "Retitled" not in cached["docs/ci.md"][1][1]
    time.sleep(0.05)
    article.write_text(article.read_text().replace("title: ", "title: Retitled ", 1))
    plan = make_plan(ws, config)
    on_disk = {target: tuple(read_row(ws.wiki / target, target)) for target in plan.wiki_stats}
    rows = plan.rows(ws)
    assert rows == on_disk and list(rows) == sorted(on_disk)
    assert "Retitled" in rows["docs/ci.md"][1]
    made = ("1docs", "- made", '{"path": "wiki/docs/ci.md"}')
    assert plan.rows(ws, {"docs/ci.md": made})["docs/ci.md"] == made


def _rewrite_in_place(path: Path, old: str, new: str) -> None:
    """Rewrite a file as some sync tools do: the same inode, the same size, the old mtime."""
    stat = path.stat()
    data = path.read_bytes()
    assert len(old) == len(new) and old.encode() in data
    with path.open("r+b") as handle:
        handle.write(data.replace(old.encode(), new.encode(), 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        stat.st_size,
        stat.st_mtime_ns,
        stat.st_ino,
    )


REWRITES: dict[str, tuple[str, tuple[str, ...], Any]] = {  # case -> (file, command, seen when)
    "raw file, status": (
        "raw/docs/ci.md",
        ("status", "--json"),
        lambda out: json.loads(out)["totals"]["stale"] == 1,
    ),
    "raw file, query": (
        "raw/docs/ci.md",
        ("query", "kazoofying", "--json"),
        lambda out: (
            [hit["path"] for hit in json.loads(out)["results"]] == [".wiki/wiki/docs/ci.md"]
        ),
    ),
    "raw file, lint": (
        "raw/docs/ci.md",
        ("lint", "--format", "json"),
        lambda out: any(finding["rule"] == "SW002" for finding in json.loads(out)["findings"]),
    ),
    "article, status": (
        "wiki/docs/ci.md",  # its body: the words of its frontmatter's summary are not hashed
        ("status", "--json"),
        lambda out: json.loads(out)["totals"]["edited"] == 1,
    ),
}


@pytest.mark.parametrize("case", REWRITES)
def test_a_rewrite_that_sets_the_mtime_back_is_seen(
    case: str, demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file rewritten in place with its size kept and its mtime set back (`touch -r`, some
    sync tools) is seen by its ctime, which no one can set back, however settled the cache."""
    from skillwiki import statcache
    from skillwiki.statcache import cache

    for module in (statcache, cache):  # settle within a test's time, not two seconds
        monkeypatch.setattr(module, "RACY_NS", 50_000_000)
    rel, command, seen = REWRITES[case]
    run = (command[0], "-w", str(demo), *command[1:])
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    time.sleep(0.1)
    invoke(*run)  # the caches saved with every file settled
    assert not seen(invoke(*run).stdout)
    _rewrite_in_place(demo / ".wiki" / rel, "configured", "kazoofying")
    assert seen(invoke(command[0], "-w", str(demo), *command[1:]).stdout)
