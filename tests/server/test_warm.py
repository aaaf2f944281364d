"""The workspace a server keeps open (server/live.py) and the kernel's word on what changed
(server/watch.py), in-process: an unchanged workspace is answered without a look, any change
gets one, and without a watcher every read looks as the CLI does."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillwiki.errors import WorkspaceNotFound
from skillwiki.search import search, semantic
from skillwiki.server import watch
from skillwiki.server.live import LiveWorkspace, WorkspaceLookup
from tests.support import Invoke, write


def _has_inotify() -> bool:
    watcher = watch.start(Path(__file__).parent)
    if watcher is None:
        return False
    watcher.close()
    return True


needs_inotify = pytest.mark.skipif(not _has_inotify(), reason="no inotify on this system")


def _hits(warm: LiveWorkspace, text: str) -> tuple[bool, list[str]]:
    with warm.reading() as read:
        hits = search(read.ws, text, db=read.index, vectors=read.vectors)  # as the server asks
        return read.unchanged, [hit.path for hit in hits]


@needs_inotify
def test_an_unchanged_workspace_is_answered_without_a_look(demo: Path) -> None:
    warm = LiveWorkspace(WorkspaceLookup(demo))
    first, _ = _hits(warm, "retry")  # compiles the demo: its own writes are not a change
    second, hits = _hits(warm, "retry")
    assert (first, second) == (False, True)
    assert hits
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    assert _hits(warm, "kookaburra") == (False, [".wiki/wiki/docs/ci.md"])
    assert _hits(warm, "kookaburra") == (True, [".wiki/wiki/docs/ci.md"])
    (demo / ".wiki" / "config.toml").write_text((demo / ".wiki" / "config.toml").read_text())
    assert _hits(warm, "kookaburra")[0] is False  # the config may differ: a look
    warm.forget()
    assert _hits(warm, "kookaburra")[0] is False
    warm.close()


@needs_inotify
def test_at_once_answers_only_an_unchanged_workspace_and_never_waits(demo: Path) -> None:
    warm = LiveWorkspace(WorkspaceLookup(demo))
    with warm.at_once() as read:
        assert read is None  # no look yet: nothing known to be in step
    assert _hits(warm, "retry")[0] is False
    with warm.at_once() as read:
        assert read is not None and read.unchanged
        assert search(read.ws, "retry", db=read.index)
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    with warm.at_once() as read:
        assert read is None  # a change: the next read must look
    with warm.at_once() as read:
        assert read is None  # nor did asking take the change for seen
    assert _hits(warm, "kookaburra") == (False, [".wiki/wiki/docs/ci.md"])
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with warm.reading():
            holding.set()
            release.wait(60)

    other = threading.Thread(target=hold)
    other.start()
    holding.wait(60)
    began = time.monotonic()
    with warm.at_once() as read:
        assert read is None  # another read has the turn: not waited for
    assert time.monotonic() - began < 30
    release.set()
    other.join()
    with warm.at_once() as read:
        assert read is not None and read.unchanged
    warm.close()


def _replace(path: Path, text: str) -> None:
    """Write a file as editors and git do: a hidden temp file renamed over it."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text)
    temp.replace(path)


def _until(done: Callable[[], bool]) -> None:
    """Wait (up to a generous minute) for `done`."""
    deadline = time.monotonic() + 60
    while not done():
        assert time.monotonic() < deadline, "the follower did not look"  # pragma: no cover
        time.sleep(0.01)


@needs_inotify
def test_a_follower_looks_before_the_next_call(demo: Path) -> None:
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    assert _hits(warm, "retry")[0] is False
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    _replace(raw, raw.read_text() + "\nThe kookaburra step.\n")  # one event, not two
    # The article is written during the follower's look, which holds the reads' turn until
    # the index is in step too: the call then finds nothing left to do.
    _until(lambda: "kookaburra" in article.read_text())
    assert _hits(warm, "kookaburra") == (True, [".wiki/wiki/docs/ci.md"])
    warm.close()
    assert warm._follower is not None and not warm._follower.is_alive()


@needs_inotify
def test_a_problem_a_follower_s_look_found_is_told_by_the_reads_after_it(demo: Path) -> None:
    """A raw file that cannot be compiled, found by the follower's look (not by a call), is
    told by every read after it, and still after looks at other changes, in its folder or
    another."""
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    with warm.reading() as read:
        assert read.problems == ()
    raw, wiki = demo / ".wiki" / "raw", demo / ".wiki" / "wiki"
    write(raw / "docs" / "bad.md", "---\ntitle: [unclosed\n---\n# B\n")
    for name in ("docs/good.md", "other/fine.md"):
        write(raw / name, "# Fine\n\nFine.\n")  # the follower's look is over once it is compiled
        _until((wiki / name).exists)
        with warm._lock:
            pass
        for _ in range(2):
            with warm.reading() as read:
                assert [problem.path for problem in read.problems] == [".wiki/raw/docs/bad.md"]
    warm.close()


@needs_inotify
def test_closing_waits_for_the_follower_s_look(demo: Path) -> None:
    """A look the follower began ends before `close` returns: a server's process does not end
    in the middle of writing articles."""
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    _hits(warm, "retry")
    began, ended = threading.Event(), threading.Event()
    read = warm._read

    def slow() -> Any:
        began.set()
        time.sleep(0.3)
        try:
            return read()
        finally:
            ended.set()

    warm._read = slow  # type: ignore[method-assign]
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    assert began.wait(60)
    warm.close()
    assert ended.is_set()
    assert warm._follower is not None and not warm._follower.is_alive()


@needs_inotify
def test_a_follower_whose_look_fails_waits_for_the_next_change(demo: Path) -> None:
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    _hits(warm, "retry")
    looks = []
    read = warm._read

    def counted() -> Any:
        try:
            return read()
        finally:
            looks.append(1)  # when done: a change during a look may be part of that look

    warm._read = counted  # type: ignore[method-assign]
    config = demo / ".wiki" / "config.toml"
    good = config.read_text()
    for attempt in (1, 2):  # the second fails before the look reads the kernel's queue
        config.write_text("[search\n")
        _until(lambda attempt=attempt: len(looks) >= attempt)  # type: ignore[misc]
    time.sleep(0.5)
    # Not again and again for the same events (a write may come as two events, and a
    # look may be woken by a temp file's alone): without draining them, dozens.
    assert len(looks) <= 4
    config.write_text(good)
    _until(lambda: len(looks) >= 3)
    assert _hits(warm, "retry")[0] is True
    warm.close()


@needs_inotify
@pytest.mark.skipif(not semantic.installed(), reason="the semantic extra is not installed")
def test_a_follower_reads_the_new_vectors_before_the_next_search(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "1")
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    _hits(warm, "retry")
    assert warm.vectors.last is not None  # the kept index's own vectors, not a shared cache
    before = list(warm.vectors.last.read.ids)
    article = demo / ".wiki" / "wiki" / "docs" / "lyrebird.md"
    write(demo / ".wiki" / "raw" / "docs" / "lyrebird.md", "# Lyrebird\n\nMimics.\n")
    _until(article.exists)
    with warm._lock:  # the follower's look (which wrote the article) is over
        vectors = warm.vectors.last
        assert vectors is not None
        db = vectors.db
        assert db is warm._index.connection
        assert vectors.state == (db.execute("PRAGMA data_version").fetchone()[0], db.total_changes)
        assert len(vectors.read.ids) == len(before) + 1
    warm.close()


@needs_inotify
def test_a_look_keeps_the_index_s_write_ahead_log(demo: Path) -> None:
    """The index kept open is replaced by the look's own after a change: closing the old one
    must not be the last close, which checkpoints the write-ahead log and removes it."""
    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    wal = demo / ".wiki" / ".cache" / "search.sqlite-wal"
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    for word in ("kookaburra", "lyrebird"):
        raw.write_text(raw.read_text() + f"\nThe {word} step.\n")
        with warm.reading() as read:
            assert not read.unchanged and wal.exists()
    warm.close()


@needs_inotify
def test_a_replaced_index_is_not_trusted(demo: Path) -> None:
    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    assert _hits(warm, "retry")[0] is True
    for index in (demo / ".wiki" / ".cache").glob("search.sqlite*"):
        index.unlink()
    warm_again, hits = _hits(warm, "retry")
    assert warm_again is False and hits
    warm.close()


@needs_inotify
def test_a_look_after_a_change_syncs_the_index_on_the_connection_kept(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look after a change syncs the index on the connection the server keeps, which
    answers after it (its cached pages still hold). Where that connection cannot write (a
    read of it left open on the state before another process wrote), a new one syncs, at
    once, not after waiting for a lock, and the answer is the same."""
    waits: list[float] = []
    monkeypatch.setattr("skillwiki.search.index.time.sleep", waits.append)  # waits on a lock
    warm = LiveWorkspace(WorkspaceLookup(demo))
    with warm.reading() as read:
        first = read.index
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    with warm.reading() as read:
        assert not read.unchanged and read.index is first
        assert [hit.path for hit in search(read.ws, "kookaburra", db=read.index)] == [
            ".wiki/wiki/docs/ci.md"
        ]
    left_open = first.execute("SELECT path FROM docs")
    assert left_open.fetchone() is not None  # a read transaction on this state, still open
    raw.write_text(raw.read_text() + "\nThe lyrebird step.\n")
    assert invoke("query", "-w", str(demo), "lyrebird").exit_code == 0  # it syncs the index
    raw.write_text(raw.read_text() + "\nThe numbat step.\n")
    with warm.reading() as read:
        assert read.index is not first
        assert [hit.path for hit in search(read.ws, "numbat lyrebird", db=read.index)] == [
            ".wiki/wiki/docs/ci.md"
        ]
    assert waits == []
    warm.close()


@needs_inotify
def test_a_read_only_workspace_is_answered_from_the_articles_as_they_are(demo: Path) -> None:
    """A read-only LiveWorkspace never compiles nor writes: a raw file changed since is named, not
    compiled; its index is in memory, kept between looks and synced with the articles; an
    unchanged workspace is answered without a look, the notice kept."""
    from tests.support import snapshot

    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    before = snapshot(demo)
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True, read_only=True)
    with warm.reading() as read:
        first, index = read, read.index
        assert not read.unchanged and read.refreshed == 0 and read.skipped is not None
        assert "read-only, and 1 raw file changed" in read.skipped
        assert search(read.ws, "kookaburra", db=read.index) == []
        assert [row[2] for row in index.execute("PRAGMA database_list")] == [""]  # in memory
    with warm.reading() as read:
        assert read.unchanged and read.skipped == first.skipped and read.index is index
    # An article changed by hand (a checkout, say) is found, on the index kept.
    article = demo / ".wiki" / "wiki" / "docs" / "architecture.md"
    article.write_text(article.read_text() + "\nThe lyrebird section.\n")
    with warm.reading() as read:
        assert not read.unchanged and read.index is index
        hits = search(read.ws, "lyrebird", db=read.index)
        assert [hit.path for hit in hits] == [".wiki/wiki/docs/architecture.md"]
    raw.write_text(raw.read_text().replace("\nThe kookaburra step.\n", ""))
    with warm.reading() as read:
        assert read.skipped is None  # nothing to compile
    warm.close()
    del before[".wiki/wiki/docs/architecture.md"], before[".wiki/raw/docs/ci.md"]
    after = snapshot(demo)
    del after[".wiki/wiki/docs/architecture.md"], after[".wiki/raw/docs/ci.md"]
    assert after == before
    assert not (demo / ".wiki" / ".cache").exists()


def test_a_read_only_workspace_starts_from_a_copy_of_the_index_file(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index file is copied into memory (read as immutable: nothing made beside it) and
    synced with the articles; one that cannot be copied whole is left as it is, and the index
    is built in memory from the articles."""
    from skillwiki.search import index as search_index
    from skillwiki.search.schema import create_schema as create

    built: list[int] = []

    def counted(db: Any) -> None:
        built.append(1)
        create(db)

    monkeypatch.setattr(search_index, "create_schema", counted)
    assert invoke("query", "-w", str(demo), "retry").exit_code == 0  # the index file, made
    cache = demo / ".wiki" / ".cache"
    built.clear()
    article = demo / ".wiki" / "wiki" / "docs" / "architecture.md"
    article.write_text(article.read_text() + "\nThe lyrebird section.\n")

    def files() -> dict[str, bytes]:
        return {path.name: path.read_bytes() for path in cache.iterdir()}

    before = files()
    for damaged in (False, True):
        warm = LiveWorkspace(WorkspaceLookup(demo), read_only=True)
        with warm.reading() as read:
            hits = search(read.ws, "lyrebird", db=read.index)
            assert [hit.path for hit in hits] == [".wiki/wiki/docs/architecture.md"]
        warm.close()
        assert files() == before
        assert built == ([1] if damaged else [])
        (cache / "search.sqlite").write_bytes(b"not an index")
        before = files()


def test_without_a_watcher_every_read_looks(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "inotify_simple", None)  # as on a system without inotify
    assert watch.start(demo / ".wiki") is None
    warm = LiveWorkspace(WorkspaceLookup(demo))
    assert _hits(warm, "retry")[0] is False
    assert _hits(warm, "retry")[0] is False
    write(demo / ".wiki" / "raw" / "docs" / "lyrebird.md", "# Lyrebird\n\nMimics.\n")
    assert _hits(warm, "lyrebird") == (False, [".wiki/wiki/docs/lyrebird.md"])
    warm.close()


@needs_inotify
def test_the_watcher_names_what_changed(demo: Path) -> None:
    dot = demo / ".wiki"
    watcher = watch.start(dot)
    assert watcher is not None
    assert watcher.changes() == set()
    write(dot / "raw" / "docs" / "new.md", "# New\n")
    write(dot / "raw" / "docs" / ".hidden.md.tmp", "x")
    write(dot / ".cache" / "anything", "x")
    (dot / "raw" / "more").mkdir()
    (dot / "index.md").write_text((dot / "index.md").read_text())
    assert watcher.changes() == {"raw/docs/new.md", "raw/more/", "index.md"}
    assert watcher.changes() == set()  # each change is told once
    write(dot / "raw" / "more" / "unwatched.md", "# Not yet\n")
    assert watcher.changes() == set()  # a new folder is watched only once armed again
    watcher.arm()
    write(dot / "raw" / "more" / "watched.md", "# Now\n")
    assert watcher.changes() == {"raw/more/watched.md"}
    (dot / "raw" / "more" / "unwatched.md").unlink()
    (dot / "raw" / "more" / "watched.md").unlink()
    (dot / "raw" / "more").rmdir()
    assert watcher.changes() is None  # a watched folder went: look at everything
    watcher.close()


@needs_inotify
def test_the_watcher_tells_a_folder_that_came_and_watches_it_when_asked(demo: Path) -> None:
    dot = demo / ".wiki"
    watcher = watch.start(dot)
    assert watcher is not None
    write(dot / "raw" / "zoo" / "in" / "a.md", "# A\n")  # made before any watch on zoo/
    assert watcher.changes() == {"raw/zoo/"}  # what is in it is not told
    assert watcher.watch_below("raw/zoo/") == ["raw/zoo/in/a.md"]
    write(dot / "raw" / "zoo" / "in" / "b.md", "# B\n")
    write(dot / "raw" / "zoo" / "in" / ".b.md.tmp", "x")
    assert watcher.changes() == {"raw/zoo/in/b.md"}
    assert sorted(watcher.watch_below("raw/zoo/")) == ["raw/zoo/in/a.md", "raw/zoo/in/b.md"]
    with pytest.raises(FileNotFoundError):
        watcher.watch_below("raw/nowhere/")
    (dot / "raw" / "zoo" / "in").rename(dot / "raw" / "zoo" / "out")
    assert watcher.changes() is None  # a folder moved: look at everything
    (dot / "raw" / "docs" / "sub").mkdir()
    (dot / "raw" / "docs" / "sub").rmdir()  # never watched, and gone
    assert watcher.changes() is None
    watcher.close()


def test_the_place_of_the_workspace(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    with pytest.raises(WorkspaceNotFound, match="skillwiki init"):
        WorkspaceLookup(None).open()
    assert WorkspaceLookup(None, roots=[empty, demo / ".wiki" / "raw"]).open()[0].root == demo
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(demo))
    assert WorkspaceLookup(None).open()[0].root == demo
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(empty))  # none there: the roots, then here
    assert WorkspaceLookup(None, roots=[demo]).open()[0].root == demo
    with pytest.raises(WorkspaceNotFound, match=str(empty)):
        WorkspaceLookup(empty).open()  # -w names exactly one place


@needs_inotify
def test_a_folder_that_came_while_no_read_was_made_is_watched(demo: Path) -> None:
    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    raw = demo / ".wiki" / "raw"
    (raw / "empty").mkdir()  # nothing in it to compile: no write of the look reveals it
    warm.forget()  # the next read looks at everything, whatever the watcher holds
    assert _hits(warm, "wallaby") == (False, [])
    assert _hits(warm, "wallaby") == (True, [])
    write(raw / "empty" / "first.md", "# First\n\nWallaby.\n")
    assert _hits(warm, "wallaby") == (False, [".wiki/wiki/empty/first.md"])
    warm.close()


@needs_inotify
def test_after_a_change_only_the_changed_files_are_looked_at_again(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between reads, files are written, added, removed and edited in raw/ and wiki/; each
    read lists only what the watcher named, and its listing and answers equal those of a look
    at every file: the CLI's look after it finds nothing left to do."""
    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    raw = demo / ".wiki" / "raw" / "docs"
    changes: list[Callable[[], object]] = [
        lambda: write(raw / "ci.md", (raw / "ci.md").read_text() + "\nThe kookaburra step.\n"),
        lambda: write(raw / "quokka.md", "# Quokka\n\nThe quokka page.\n"),
        lambda: (raw / "quokka.md").unlink(),
        lambda: write(raw / "numbat.md", "# Numbat\n\nThe numbat page.\n"),
        lambda: (raw / "numbat.md").rename(raw / "bilby.md"),
        lambda: write(
            demo / ".wiki" / "wiki" / "docs" / "ci.md",
            (demo / ".wiki" / "wiki" / "docs" / "ci.md").read_text() + "\nBy hand.\n",
        ),
    ]
    for change in changes:
        change()
        _looked_as_at_every_file(warm, demo, monkeypatch)
    warm.close()


@needs_inotify
def test_a_folder_that_came_is_looked_at_without_a_whole_listing(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that came (with files made in it before it was watched, and folders of its
    own) is watched, and the look lists it and the files the watcher named, not every folder:
    its listing and answers equal those of a look at every file. One that went or moved has
    every folder listed again."""
    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    raw = demo / ".wiki" / "raw"
    lessons = demo / ".wiki" / "wiki" / "lessons"  # as the first lesson's compile makes it
    changes: list[Callable[[], object]] = [
        lambda: write(raw / "zoo" / "quokka.md", "# Quokka\n\nThe quokka page.\n"),
        lambda: (
            write(raw / "zoo" / "deep" / "er" / "bilby.md", "# Bilby\n\nThe bilby page.\n"),
            write(raw / "zoo" / "deep" / "numbat.md", "# Numbat\n\nThe numbat page.\n"),
            write(raw / "zoo" / "deep" / ".numbat.md.tmp", "a writer's temp file"),
        ),
        lambda: write(raw / "zoo" / "quokka.md", "# Quokka\n\nThe quokka page, again.\n"),
        lambda: write(lessons / "by-hand.md", "# By hand\n\nA page written here.\n"),
    ]
    for change in changes:
        change()
        _looked_as_at_every_file(warm, demo, monkeypatch)
    (raw / "zoo" / "deep" / ".numbat.md.tmp").unlink(missing_ok=True)  # or compile took it
    (raw / "zoo" / "deep").rename(raw / "deeper")
    _looked_as_at_every_file(warm, demo, monkeypatch, whole=True)
    warm.close()


def _looked_as_at_every_file(
    warm: LiveWorkspace, demo: Path, monkeypatch: pytest.MonkeyPatch, *, whole: bool = False
) -> None:
    """A read after a change lists every folder (`whole`) or none, and leaves the listing and
    the answers a look at every file gives: the CLI's look after it finds no work left."""
    from skillwiki import statcache
    from skillwiki.config import load_config
    from skillwiki.reading import query
    from skillwiki.workspace import find_workspace

    scan = statcache.scan_folders
    listed: list[Path] = []

    def counted(root: Path, *args: Any, **kwargs: Any) -> Any:
        listed.append(root)
        return scan(root, *args, **kwargs)

    monkeypatch.setattr(statcache, "scan_folders", counted)
    with warm.reading() as read:
        assert not read.unchanged
        listing = warm._listing
        hits = {w: search(read.ws, w, db=read.index) for w in ("kookaburra", "page")}
    monkeypatch.setattr(statcache, "scan_folders", scan)
    assert bool(listed) == whole
    assert listing is not None
    ws = find_workspace(demo)
    config = load_config(ws.config_file)
    assert listing.raw_folders == scan(ws.raw)
    assert {f: set(names) for f, names in listing.wiki_folders.items() if names} == {
        f: set(names) for f, names in scan(ws.wiki, stats=False).items()
    }  # (a folder whose articles this run removed stays listed, empty)
    for word, found in hits.items():  # the CLI's look at every file finds no work left
        cold, done = query(ws, config, word)
        assert done.refreshed == 0
        assert [h.path for h in found] == [h.path for h in cold]


@needs_inotify
def test_a_big_folder_keeps_its_spread_while_its_names_stay(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look after an edit in a big folder takes the last look's spread of its names over
    the buckets (with the new stats) instead of hashing every name again; a look after a name
    came spreads them anew. Either way the spread equals one made from the listing."""
    from skillwiki import statcache
    from skillwiki.statcache import listing as listing_module

    raw = ws / ".wiki" / "raw" / "big"
    for number in range(statcache.BUCKET_FILES + 100):
        write(raw / f"page-{number:04d}.md", f"# Page {number}\n\nMarker m{number:04d}x.\n")
    warm = LiveWorkspace(WorkspaceLookup(ws))
    _hits(warm, "marker")  # compiles them all; wiki/big/ came: the next look lists it all
    write(raw / "page-0001.md", "# Page 1\n\nMarker m0001x, again.\n")
    _hits(warm, "marker")
    spread: list[str] = []
    split = statcache.split

    def counted(folder: str, *rest: Any) -> Any:
        spread.append(folder)
        return split(folder, *rest)

    monkeypatch.setattr(listing_module, "split", counted)
    for name, word, spread_anew in (
        ("page-0007.md", "numbat", False),
        ("page-9999.md", "quoll", True),  # a new name
        ("page-0008.md", "bilby", False),
    ):
        spread.clear()
        write(raw / name, f"# {name}\n\nThe {word} was here.\n")
        _, hits = _hits(warm, "numbat quoll bilby")
        assert ("big/" in spread) is spread_anew
        listing = warm._listing
        assert listing is not None
        for (folder, count), (raws, wikis) in listing.splits.items():
            assert raws == split(folder, listing.raw_folders.get(folder, {}), count)
            assert wikis == split(folder, listing.wiki_folders.get(folder, {}), count)
    assert sorted(hits) == [f".wiki/wiki/big/page-{n}.md" for n in ("0007", "0008", "9999")]
    warm.close()


def test_a_relisting_equals_a_whole_listing(tmp_path: Path) -> None:
    """Given the files that changed, a relisting equals a listing of every file, folder stats
    included: files written, added, removed, renamed, a folder emptied, one gone meanwhile."""
    from skillwiki.statcache import relist_folders, scan_folders

    for name in ("a/one.md", "a/two.md", "b/three.md", "c/d/four.md", "top.md"):
        write(tmp_path / name, name)
    before_stats: dict[str, tuple[int, int, int, int]] = {}
    before = {stats: scan_folders(tmp_path, stats=stats) for stats in (True, False)}
    scan_folders(tmp_path, folder_stats=before_stats)
    write(tmp_path / "a" / "one.md", "longer than it was")
    write(tmp_path / "a" / "new.md", "new")
    (tmp_path / "a" / "two.md").rename(tmp_path / "a" / "renamed.md")
    (tmp_path / "b" / "three.md").unlink()
    (tmp_path / "c" / "d" / "four.md").unlink()
    (tmp_path / "c" / "d").rmdir()
    changed = ["a/one.md", "a/new.md", "a/two.md", "a/renamed.md", "b/three.md", "c/d/four.md"]
    for stats in (True, False):
        folder_stats: dict[str, tuple[int, int, int, int]] = {}
        whole_stats: dict[str, tuple[int, int, int, int]] = {}
        relisted = relist_folders(
            tmp_path,
            before[stats],
            changed,
            stats=stats,
            folder_stats=folder_stats,
            previous_stats=before_stats,
        )
        whole = scan_folders(tmp_path, stats=stats, folder_stats=whole_stats)
        assert relisted == whole
        assert {f: list(names) for f, names in relisted.items()} == {  # and in the same order
            f: list(names) for f, names in whole.items()
        }
        assert folder_stats == whole_stats
        assert relisted[""] is before[stats][""]  # nothing changed in it: taken over as it is
    assert before[True]["a/"].keys() == {"one.md", "two.md"}  # the earlier one is left as it was


@needs_inotify
def test_the_watcher_counts_the_events_it_has_not_told(demo: Path) -> None:
    dot = demo / ".wiki"
    watcher = watch.start(dot)
    assert watcher is not None
    assert watcher.pending() == 0
    write(dot / "raw" / "docs" / "one.md", "# One\n")
    first = watcher.pending()
    assert first > 0
    write(dot / "raw" / "docs" / "two.md", "# Two\n")
    assert watcher.pending() > first  # a burst that goes on: the count grows
    assert watcher.changes() == {"raw/docs/one.md", "raw/docs/two.md"}
    assert watcher.pending() == 0
    watcher.close()


class _Counts:
    """A watcher's queue as the follower sees it: the unread bytes, one count a look."""

    def __init__(self, counts: list[int]) -> None:
        self.counts = counts
        self.asked = 0

    def pending(self) -> int:
        self.asked += 1
        return self.counts.pop(0)


class _Waits:
    """The follower's `closed` event: each wait is counted, and closed after `open_for`."""

    def __init__(self, open_for: int = 1000) -> None:
        self.waits: list[float] = []
        self.open_for = open_for

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        return len(self.waits) > self.open_for


def _settling(demo: Path, counts: list[int], closed: _Waits) -> tuple[bool, list[float]]:
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True, _closed=closed)  # type: ignore[arg-type]
    warm._changes.watcher = _Counts(counts)  # type: ignore[assignment]
    return warm._settled(), closed.waits


def test_a_follower_looks_once_a_burst_of_changes_ends(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower looks once no new event came for QUIET (a save: one wait), lets a burst
    that goes on go on, but no longer than SETTLE, and stops when closed."""
    from skillwiki.server import live as warm_module

    pause = warm_module.QUIET
    assert _settling(demo, [64, 64], _Waits()) == (True, [pause])
    assert _settling(demo, [64, 128, 192, 192], _Waits()) == (True, [pause] * 3)
    assert _settling(demo, [64, 0, 0], _Waits()) == (True, [pause] * 2)  # a read drained it
    assert _settling(demo, [64, 128, 192], _Waits(open_for=1)) == (False, [pause] * 2)
    monkeypatch.setattr(warm_module, "SETTLE", 0.0)
    assert _settling(demo, [64, 128, 192], _Waits()) == (True, [pause])  # no longer than SETTLE
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    assert warm._pending() == -1  # no watcher to ask: the wait is QUIET's


@needs_inotify
def test_a_follower_makes_the_compiler_ready_once_idle(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once no call came for IDLE, a follower compiles a sample note in memory, once, so that
    the first change is not the one to import and build the Markdown parser."""
    from skillwiki import compiler
    from skillwiki.compiler import Problem
    from skillwiki.server import live as warm_module

    made: list[Any] = []
    warm_up = compiler.warm_up
    monkeypatch.setattr(warm_module, "IDLE", 0.05)
    monkeypatch.setattr(compiler, "warm_up", lambda: made.append(warm_up()))
    warm = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    _hits(warm, "retry")
    _until(lambda: len(made) == 1)
    time.sleep(3 * warm_module.POLL)
    assert len(made) == 1
    assert not isinstance(made[0], Problem)  # the sample compiles: it warms the whole path
    _, text, row, outline, _ = made[0]
    assert text.startswith(b"---\n") and '"sample"' in row[2] and outline[1]  # headings found
    warm.close()


@needs_inotify
def test_a_look_that_fails_leaves_the_next_to_list_everything(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look takes the last look's folders over and may change them (relist_folders): when
    it fails part way, the next look lists every file rather than start from them, and
    answers as a look at every file would."""
    from skillwiki import statcache
    from skillwiki.compiler import apply
    from skillwiki.compiler.plan import make_plan

    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    relisted: list[str] = []
    relist, planned = statcache.relist_folders, make_plan

    def counted(root: Path, *rest: Any, **options: Any) -> Any:
        relisted.append(root.name)
        return relist(root, *rest, **options)

    def failing(*args: Any, **options: Any) -> Any:
        planned(*args, **options)  # the last look's folders taken over, and changed
        raise OSError("the disk went away")

    monkeypatch.setattr(statcache, "relist_folders", counted)
    monkeypatch.setattr(apply, "make_plan", failing)
    write(demo / ".wiki" / "raw" / "numbat.md", "# Numbat\n\nThe numbat eats termites.\n")
    with pytest.raises(OSError):
        _hits(warm, "termites")
    assert relisted == ["raw", "wiki"] and warm._listing is None
    monkeypatch.setattr(apply, "make_plan", planned)
    relisted.clear()
    assert _hits(warm, "termites") == (False, [".wiki/wiki/numbat.md"])
    assert relisted == []  # listed whole
    write(demo / ".wiki" / "raw" / "numbat.md", "# Numbat\n\nThe numbat eats ants.\n")
    assert _hits(warm, "ants")[1][0] == ".wiki/wiki/numbat.md"
    assert relisted == ["raw", "wiki"]  # and the look after starts from it again
    warm.close()


@needs_inotify
def test_a_look_another_writer_kept_from_compiling_leaves_the_next_to_list_only_what_changed(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look made while another writer holds the lock compiles nothing (it answers from the
    articles as they are), and what the watcher told stays for the next look: that one lists
    only the files changed since the last compile, not every folder, and leaves the listing
    and answers a look at every file gives."""
    from skillwiki import fsio
    from skillwiki.workspace import find_workspace

    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "retry")
    raw = demo / ".wiki" / "raw"
    write(raw / "numbat.md", "# Numbat\n\nThe numbat page eats termites.\n")
    with fsio.workspace_lock(find_workspace(demo), 0):  # held as by another process
        with warm.reading() as read:
            assert read.skipped is not None and read.refreshed == 0
    assert not (demo / ".wiki" / "wiki" / "numbat.md").exists()
    write(raw / "docs" / "ci.md", (raw / "docs" / "ci.md").read_text() + "\nThe kookaburra.\n")
    _looked_as_at_every_file(warm, demo, monkeypatch)
    assert (demo / ".wiki" / "wiki" / "numbat.md").is_file()
    warm.close()


@needs_inotify
def test_after_a_change_the_other_folders_are_answered_by_the_records_kept(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read after a change takes over the stat cache the last look left in memory while its
    file is unchanged, and answers each folder the watcher named nothing in by the very
    records that answered it last time, without a digest of its files; its plan equals a look
    at every file. Once another process has saved the cache, the next read reads the file."""
    from skillwiki import statcache
    from skillwiki.compiler import apply
    from skillwiki.compiler.plan import make_plan
    from skillwiki.config import load_config
    from skillwiki.statcache import answering, records
    from skillwiki.workspace import find_workspace

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # records quiet at once, as if settled
    raw = demo / ".wiki" / "raw"
    write(raw / "marsupials" / "wombat.md", "# Wombat\n\nThe wombat digs.\n")
    write(raw / "monotremes" / "echidna.md", "# Echidna\n\nThe echidna digs.\n")
    warm = LiveWorkspace(WorkspaceLookup(demo))
    _hits(warm, "digs")  # folders came: the next look lists every file
    for word in ("kookaburra", "dingo"):  # then the next looks at docs/ what the watcher named
        write(raw / "docs" / "ci.md", (raw / "docs" / "ci.md").read_text() + f"\nA {word}.\n")
        _hits(warm, word)
    digested: list[set[str]] = []
    plans: list[Any] = []
    digest, planned = records.digest, make_plan

    def counted(folder: dict[str, Any]) -> bytes:
        digested.append(set(folder))
        return digest(folder)

    def kept_plan(*args: Any, **kwargs: Any) -> Any:
        plans.append(planned(*args, **kwargs))
        return plans[-1]

    monkeypatch.setattr(answering, "digest", counted)  # the digests a record is matched by
    monkeypatch.setattr(apply, "make_plan", kept_plan)
    ws = find_workspace(demo)
    config = load_config(ws.config_file)
    docs = {path.name for path in (raw / "docs").iterdir()}
    for word in ("quokka", "numbat"):
        kept = warm._listing.cache if warm._listing is not None else None
        digested.clear()
        write(raw / "docs" / "ci.md", (raw / "docs" / "ci.md").read_text() + f"\nA {word}.\n")
        assert _hits(warm, word) == (False, [".wiki/wiki/docs/ci.md"])
        assert plans[-1].cache is kept  # taken over, not read again
        assert all(names <= docs for names in digested)  # of docs/ alone, if any
        cold = make_plan(ws, config, trust_articles=True)  # after the compile of docs/ci.md
        others = [entry for entry in plans[-1].others if entry.article != "docs/ci.md"]
        assert (others, plans[-1].problems) == (cold.others, cold.problems)
        answered = plans[-1].listing.trusted_records
        assert {key[0] for key in answered} >= {"marsupials/", "monotremes/"}
        assert answered == {key: cold.listing.trusted_records[key] for key in answered}
    # Another process compiles and saves the cache: the next read reads it from its file.
    from skillwiki.reading import query

    write(raw / "monotremes" / "echidna.md", "# Echidna\n\nThe echidna digs, a platypus swims.\n")
    assert query(ws, config, "platypus")[1].refreshed == 1
    kept = warm._listing.cache if warm._listing is not None else None
    write(raw / "docs" / "ci.md", (raw / "docs" / "ci.md").read_text() + "\nA bilby.\n")
    looked, hits = _hits(warm, "bilby platypus")
    assert (looked, sorted(hits)) == (
        False,
        [".wiki/wiki/docs/ci.md", ".wiki/wiki/monotremes/echidna.md"],
    )
    assert plans[-1].cache is not kept
    warm.close()


@needs_inotify
def test_in_a_big_folder_the_keys_the_watcher_named_nothing_in_are_answered_by_their_records(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit in a big folder, the look compares with its files only the record of the
    bucket that holds the file; the others answer as the records the last look left, while the
    folder's stat is as that look left it. An article that came changes the stat: every
    bucket is compared. Either way the plan equals a look at every file."""
    from skillwiki import statcache
    from skillwiki.compiler import apply, plan
    from skillwiki.config import load_config
    from skillwiki.statcache import answering
    from skillwiki.workspace import find_workspace

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # records quiet at once, as if settled
    raw = ws / ".wiki" / "raw" / "big"
    for number in range(statcache.BUCKET_FILES + 100):
        write(raw / f"page-{number:04d}.md", f"# Page {number}\n\nMarker m{number:04d}x.\n")
    warm = LiveWorkspace(WorkspaceLookup(ws))
    _hits(warm, "marker")  # wiki/big/ came: the next look lists it all
    for number in (1, 2):
        write(raw / f"page-000{number}.md", f"# Page {number}\n\nMarker, again.\n")
        _hits(warm, "again")
    compared: list[tuple[str, ...]] = []
    plans: list[Any] = []
    matches, planned = answering.matches, plan.make_plan

    def counted(known: Any, raw_files: dict[str, Any], *rest: Any) -> bool:
        compared.append(tuple(raw_files))
        return matches(known, raw_files, *rest)

    def kept_plan(*args: Any, **kwargs: Any) -> Any:
        plans.append(planned(*args, **kwargs))
        return plans[-1]

    monkeypatch.setattr(answering, "matches", counted)
    monkeypatch.setattr(apply, "make_plan", kept_plan)
    config = load_config(find_workspace(ws).config_file)
    count = statcache.buckets_for(statcache.BUCKET_FILES + 100)

    def key(name: str) -> tuple[str, int, int]:
        return ("big/", count, statcache.bucket_of(name, count))

    previous = "page-0002.md"  # whose article the last look wrote: its key is looked again
    for name, word, alike in (
        ("page-0007.md", "numbat", True),
        ("page-0300.md", "bilby", True),
        ("page-0400.md", "quoll", False),  # and a page written into wiki/big/ by hand
    ):
        compared.clear()
        if not alike:  # a name came in wiki/big/: the folder's stat changed
            write(ws / ".wiki" / "wiki" / "big" / "by-hand.md", "# By hand\n\nWritten here.\n")
        write(raw / name, f"# {name}\n\nThe {word} was here.\n")
        assert _hits(warm, word) == (False, [f".wiki/wiki/big/{name}"])
        looked_at = {  # by key: a big folder's summary, tried first, is matched whole
            key(names[0])
            for names in compared
            if names and names[0].startswith("page") and len(names) <= statcache.BUCKET_FILES
        }
        if alike:  # the others, answered by their records
            assert looked_at <= {key(name), key(previous)}
        else:  # every bucket whose record is quiet: all but the last look's own
            assert looked_at >= {key(f"page-{n:04d}.md") for n in range(count * 8)} - {
                key(previous)
            }
        cold = planned(find_workspace(ws), config, trust_articles=True)
        others = [entry for entry in plans[-1].others if entry.article != f"big/{name}"]
        assert (others, plans[-1].problems) == (cold.others, cold.problems)
        if alike:
            answered = plans[-1].listing.trusted_records.keys() - {key(name), key(previous)}
            assert answered == cold.listing.trusted_records.keys() - {key(name), key(previous)}
            assert len(answered) >= count - 2
        previous = name
    warm.close()


@needs_inotify
@pytest.mark.parametrize("seed", [1, 2])
def test_each_look_after_changes_in_a_big_folder_plans_as_a_look_at_every_file(
    ws: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Random edits, new files, removals and renames in a big folder, and articles written in
    it by hand, one or a few between two looks: each look's plan equals that of a look at
    every file made just before it, whatever its buckets answered by their records."""
    import random

    from skillwiki import statcache
    from skillwiki.compiler import apply, plan
    from skillwiki.config import load_config
    from skillwiki.workspace import find_workspace

    monkeypatch.setattr(statcache.cache, "RACY_NS", 0)  # records quiet at once, as if settled
    raw = ws / ".wiki" / "raw" / "big"
    wiki = ws / ".wiki" / "wiki" / "big"
    for number in range(statcache.BUCKET_FILES + 60):
        write(raw / f"page-{number:04d}.md", f"# Page {number}\n\nMarker m{number:04d}x.\n")
    warm = LiveWorkspace(WorkspaceLookup(ws))
    _hits(warm, "marker")
    _hits(warm, "marker")
    plans: list[Any] = []
    alike_answered = [0]
    planned, alike_of = plan.make_plan, statcache.Changes.keys_alike

    def kept_plan(*args: Any, **kwargs: Any) -> Any:
        plans.append(planned(*args, **kwargs))
        return plans[-1]

    def counted(*args: Any) -> Any:
        alike = alike_of(*args)

        def alike_counted(key: Any) -> bool:
            alike_answered[0] += alike(key)
            return bool(alike(key))

        return alike_counted

    monkeypatch.setattr(apply, "make_plan", kept_plan)
    monkeypatch.setattr(statcache.Changes, "keys_alike", counted)
    root = find_workspace(ws)
    config = load_config(root.config_file)
    chance = random.Random(seed)
    for step in range(24):
        for _ in range(chance.choice([1, 1, 2, 3])):
            _change_at_random(chance, raw, wiki, step)
        cold = planned(root, config, trust_articles=True)
        assert _hits(warm, "marker")[0] is False
        assert (plans[-1].others, plans[-1].problems) == (cold.others, cold.problems), step
    assert alike_answered[0] > 0  # the records answered some buckets
    warm.close()


def _change_at_random(chance: Any, raw: Path, wiki: Path, step: int) -> None:
    """One change in a folder: a raw file edited (longer each time: its stat differs), a new
    one, one removed or renamed, or an article written beside the others by hand."""
    page = chance.choice(sorted(raw.glob("*.md")))
    action = chance.choice(["edit", "edit", "edit", "new", "remove", "rename", "by hand"])
    if action == "edit":
        write(page, page.read_text() + f"More at step {step}.\n")
    elif action == "new":
        write(raw / f"new-{step}-{chance.randrange(1000)}.md", f"# New {step}\n")
    elif action == "remove":
        page.unlink()
    elif action == "rename":
        page.rename(raw / f"renamed-{step}-{chance.randrange(1000)}.md")
    else:
        write(wiki / f"by-hand-{step}.md", f"# By hand {step}\n\nWritten here.\n")


def test_a_stat_cache_is_taken_over_only_while_its_file_holds_what_it_holds(
    tmp_path: Path,
) -> None:
    """take_over: after its own save or load, while no one else saved, for the same
    fingerprint algorithm, and once per save (a run that fails before saving leaves the next
    to read the file)."""
    from skillwiki import statcache
    from skillwiki.statcache import store

    path = tmp_path / "state.marshal"
    mine = statcache.StatCache(dirty=True)
    store.save(path, mine, "xxh3", 10)
    assert not mine.take_over(path, "sha256")
    assert mine.take_over(path, "xxh3")
    assert not mine.take_over(path, "xxh3")  # taken, not saved since
    store.save(path, mine, "xxh3", 11)  # nothing changed: the file still holds it
    assert mine.take_over(path, "xxh3")
    store.save(path, mine, "xxh3", 12)
    loaded = store.load(path, "xxh3")
    assert loaded.take_over(path, "xxh3")
    store.save(path, loaded, "xxh3", 13)
    other = statcache.StatCache(dirty=True)
    store.save(path, other, "xxh3", 14)  # another process saved
    assert not mine.take_over(path, "xxh3")
    assert not loaded.take_over(path, "xxh3")
    assert other.take_over(path, "xxh3")
    store.save(path, other, "xxh3", 15)
    path.unlink()  # removed since
    assert not other.take_over(path, "xxh3")
    assert not statcache.StatCache().take_over(path, "xxh3")  # never loaded nor saved


def test_a_save_by_another_process_right_after_this_one_is_not_taken_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A saved cache knows its file by the stat of what it wrote (its temp file's, which the
    rename keeps), not by one taken after: another process's save right after this one's is
    not taken for it, and the next run reads that file rather than take this cache over."""
    from skillwiki import fsio, statcache
    from skillwiki.statcache import store

    path = tmp_path / "state.marshal"
    real = fsio.atomic_write
    theirs = statcache.StatCache(dirty=True)
    saved: list[int] = []

    def then_another(target: Path, data: bytes, **options: Any) -> Any:
        written = real(target, data, **options)
        if target == path and not saved:  # another process saves, before any stat of ours
            saved.append(1)
            time.sleep(0.05)  # past the file system's clock tick
            store.save(path, theirs, "xxh3", 20)
        return written

    monkeypatch.setattr(fsio, "atomic_write", then_another)
    mine = statcache.StatCache(dirty=True)
    store.save(path, mine, "xxh3", 10)
    assert saved == [1]
    assert not mine.take_over(path, "xxh3")
    assert theirs.take_over(path, "xxh3")


@needs_inotify
def test_a_follower_writes_the_stat_cache_once_idle(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A following server's look leaves the stat cache it settled in memory: the call does
    not wait for its write. The next look takes it over from memory, a CLI run meanwhile
    reads the older file and answers right, and once idle (or at close) the follower writes
    it: the file then holds what the server held."""
    from skillwiki import statcache
    from skillwiki.compiler.plan import cache_path
    from skillwiki.config import load_config
    from skillwiki.reading import query
    from skillwiki.server import live
    from skillwiki.statcache import store
    from skillwiki.workspace import find_workspace

    ws = find_workspace(demo)
    path, config = cache_path(ws), load_config(ws.config_file)
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"

    def on_disk() -> int:
        return store.load(path, config.fingerprint).saved_ns

    def held(server: LiveWorkspace) -> statcache.StatCache:
        assert server._listing is not None
        return server._listing.cache

    server = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    _hits(server, "retry")
    _until(lambda: server._unwritten is None and on_disk() == held(server).saved_ns)
    monkeypatch.setattr(live, "IDLE", 3600.0)  # never idle enough, until closed
    for word in ("kookaburra", "numbat"):
        _replace(raw, raw.read_text() + f"\nThe {word} step.\n")
        assert _hits(server, word)[1] == [".wiki/wiki/docs/ci.md"]
        assert server._unwritten is not None and server._unwritten[1] is held(server)
        assert on_disk() < held(server).saved_ns  # not written yet
    kept = held(server)
    server.close()
    assert store.load(path, config.fingerprint).records == kept.records
    # A CLI run while the write waits reads the older file, looks again where it differs,
    # and saves its own: the server does not write over it.
    server = LiveWorkspace(WorkspaceLookup(demo), follow=True)
    _hits(server, "numbat")
    _replace(raw, raw.read_text() + "\nThe quokka step.\n")
    assert _hits(server, "quokka")[1] == [".wiki/wiki/docs/ci.md"]
    assert on_disk() < held(server).saved_ns
    cold, done = query(ws, config, "kookaburra quokka")
    assert [hit.path for hit in cold] == [".wiki/wiki/docs/ci.md"] and done.refreshed == 0
    theirs = on_disk()
    assert theirs > held(server).saved_ns
    server.close()
    assert on_disk() == theirs
