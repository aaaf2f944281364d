"""Read paths: query and show, each first bringing the wiki up to date unless asked not to."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from skillwiki import search, statcache
from skillwiki.compiler import Problem, Progress, compile_workspace, make_plan
from skillwiki.config import Config
from skillwiki.errors import LockTimeout, NotFound, OutsideWorkspace
from skillwiki.fingerprint import fingerprint
from skillwiki.frontmatter.documents import decode, split
from skillwiki.search import Hit
from skillwiki.workspace import Workspace, article_rel


@dataclass(frozen=True)
class Refresh:
    """What a refresh did, and the search index it left in step, open until the `with` block
    around it ends. `skipped` says why nothing was compiled, when a writer was at work."""

    refreshed: int
    problems: list[Problem] = field(default_factory=list)
    index: sqlite3.Connection | None = None
    skipped: str | None = None
    wrote: frozenset[str] = frozenset()  # what the compile wrote, relative to .wiki/
    # The files as the compile left them (or as its plan found them, when `skipped`).
    listing: statcache.Listing | None = None

    def __enter__(self) -> Refresh:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.index is not None:
            self.index.close()


def refresh(
    ws: Workspace,
    config: Config,
    progress: Progress | None = None,
    *,
    shared: bool = False,
    changes: statcache.Changes | None = None,
    write_cache: bool = True,
    kept: sqlite3.Connection | None = None,
    read_only: bool = False,
    indexing: Progress | None = None,
) -> Refresh:
    """Compile what changed and bring the search index in step with the articles.

    A reader never waits for a writer: when another process holds the workspace lock (or the
    checkout cannot be written), nothing is compiled and the answer comes from the articles
    as they are. In a checkout that cannot be written, the index is built in memory. A
    `shared` index may be used from other threads (one at a time), as a server does, which
    also tells what changed since its `changes` look, may leave the stat cache for it to
    write (`write_cache` off), and may give the index connection it keeps (`kept`, see
    search.open_index), which then comes back if it could serve. `read_only` (a server told
    to write nothing) compiles nothing and writes nothing, not even the caches: the raw files
    changed since they were compiled are told, and the index is in memory. `progress` follows
    the compile, `indexing` the search index's sync (an index built, or its vectors made
    again, takes a while).
    """
    if read_only:
        return _as_they_are(ws, config, shared=shared, kept=kept)
    result = compile_workspace(
        ws,
        config,
        progress=progress,
        trust_articles=True,
        wait=False,
        changes=changes,
        write_cache=write_cache,
    )
    if result.unlocked is not None:
        reason = (
            "another skillwiki process is writing"
            if isinstance(result.unlocked, LockTimeout)
            else "the workspace cannot be written"
        )
        snapshot = search.Snapshot(lambda: statcache.scan(ws.wiki))
        index = search.open_index(ws, snapshot, shared=shared, kept=kept, progress=indexing)
        skipped = f"{reason}: answered from the articles as they are"
        return Refresh(0, index=index, skipped=skipped, listing=result.listing)
    index = search.open_index(ws, result.snapshot, shared=shared, kept=kept, progress=indexing)
    wrote = {f"wiki/{article}" for article in result.written + result.removed}
    if wrote or result.indexes_written:
        wrote |= {"index.md", "index.json", "log.md"}
    return Refresh(
        result.refreshed, result.problems, index, wrote=frozenset(wrote), listing=result.listing
    )


def _as_they_are(
    ws: Workspace, config: Config, *, shared: bool, kept: sqlite3.Connection | None
) -> Refresh:
    """The articles as they are, with an index in memory: what a read-only server answers
    from. The plan (which writes nothing) says which raw files a compile would take."""
    plan = make_plan(ws, config, trust_articles=True)
    waiting = len(plan.pending(False))
    skipped = None
    if waiting:
        files = "1 raw file" if waiting == 1 else f"{waiting} raw files"
        skipped = (
            f"this server is read-only, and {files} changed since the last compile: "
            "answered from the articles as they are"
        )
    snapshot = search.Snapshot(lambda: statcache.scan(ws.wiki))
    index = search.open_index(ws, snapshot, shared=shared, kept=kept, in_memory=True)
    return Refresh(0, plan.problems, index, skipped=skipped)


def as_compiled(
    ws: Workspace, config: Config, indexing: Progress | None = None
) -> sqlite3.Connection:
    """The search index as the last compile left it, for a read told not to compile
    (--no-compile): where the index was synced to the state the stat cache saved, it is
    opened as it is, without a look at wiki/; otherwise it is synced with the articles as
    they are, and that state recorded (the index then holds it or a later one), so that the
    next read compares only what changed since, as after a compile. `indexing` follows the
    sync."""
    from skillwiki.compiler import cache_path

    saved = statcache.open_cache(cache_path(ws), config.fingerprint, None)[0].saved_ns
    token = str(saved) if saved else None
    snapshot = search.Snapshot(lambda: statcache.scan(ws.wiki), token=token)
    return search.open_index(ws, snapshot, progress=indexing)


def notices(skipped: str | None, problems: Sequence[Problem]) -> list[str]:
    """What a read says beside its answer (the CLI as warnings on stderr, the server in a block
    of its own): why nothing was compiled, and each raw file that could not be."""
    said = [f"not compiled: {skipped}"] if skipped else []
    return said + [f"{problem.path}: {problem.message} (not compiled)" for problem in problems]


def query_notices(text: str) -> list[str]:
    """What a query says beside its answer about itself: the words it was not searched for."""
    left_out = search.words_left_out(text)
    if not left_out:
        return []
    words = "1 more word" if left_out == 1 else f"{left_out} more words"
    return [
        f"searched for the query's first {search.MAX_QUERY_WORDS} distinct words only; "
        f"{words} left out"
    ]


def query(
    ws: Workspace,
    config: Config,
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    tags: Sequence[str] = (),
    include_hidden: bool = False,
    compile_first: bool = True,
    progress: Progress | None = None,
) -> tuple[list[Hit], Refresh]:
    """Return ranked hits for `text`, after refreshing the wiki (unless compile_first is off)."""
    if compile_first:
        done = refresh(ws, config, progress)
    else:
        done = Refresh(0, index=as_compiled(ws, config))
    with done:
        hits = search.search(
            ws,
            text,
            limit=limit,
            kind=kind,
            tags=tags,
            include_hidden=include_hidden,
            db=done.index,
        )
    return hits, done


class Shown(NamedTuple):
    path: str  # relative to the workspace root
    text: str
    meta: dict[str, Any]
    body: str
    source: str | None  # the raw file, relative to the workspace root
    fingerprint: str | None  # of the raw file now: what --expect-fingerprint compares


def show(ws: Workspace, key: str, algorithm: str = "xxh3") -> Shown:
    """Return one article in full, found by lesson id, article path or raw path."""
    rel = _resolve(ws, key)
    if rel is None:
        hint = json.dumps(key, ensure_ascii=False)  # the key's letters as written, not \ud835
        raise NotFound(f"no article or lesson {key!r}; try: skillwiki query {hint}")
    path = ws.wiki / rel
    if not ws.holds(path):
        raise OutsideWorkspace(key, "is outside the workspace; show reads only its articles")
    text = decode(path.read_bytes(), ws.rel(path), 1 << 40)
    document = split(text, ws.rel(path))
    sources = document.meta.get("sources")
    source = ws.dot / str(sources[0]) if isinstance(sources, list) and sources else None
    if source is not None and not ws.holds(source):
        source = None  # an article naming a source outside: nothing of it is read
    try:
        current = fingerprint(source.read_bytes(), algorithm) if source else None
    except OSError:
        current = None
    shown_source = ws.rel(source) if source else None
    return Shown(ws.rel(path), text, document.meta, document.body, shown_source, current)


def _resolve(ws: Workspace, key: str) -> str | None:
    cleaned = (_from_here(ws, key) or key.strip()).removeprefix("./").removeprefix(".wiki/")
    candidates = []
    if cleaned.startswith("wiki/"):
        candidates.append(cleaned.removeprefix("wiki/"))
    elif cleaned.startswith("raw/"):
        candidates.append(article_rel(cleaned.removeprefix("raw/")))
    else:
        candidates += [f"lessons/{cleaned}.md", cleaned, article_rel(cleaned)]
    for rel in candidates:
        if ".." not in rel.split("/") and _is_file(ws.wiki / rel):
            return rel
    return _by_id(ws, cleaned)


def _from_here(ws: Workspace, key: str) -> str | None:
    """`key` as a path from the working directory (`../.wiki/wiki/x.md` in a folder of the
    checkout), from the workspace's root, when it names a file of .wiki/; None otherwise (a
    path from the workspace's root, an id). A name the system refuses names no file."""
    path = os.path.abspath(key.strip())
    if not os.path.isfile(path):
        return None
    rel = ws.rel(Path(path))
    return rel if rel.startswith(".wiki/") else None


def _is_file(path: Path) -> bool:
    """Whether a file is there; a name the system refuses (too long, a NUL) names none."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _by_id(ws: Workspace, key: str) -> str | None:
    from skillwiki.compiler import catalog

    for item in catalog.listed(ws):
        if item.get("id") == key and isinstance(item.get("path"), str):
            return str(item["path"]).removeprefix("wiki/")
    return None
