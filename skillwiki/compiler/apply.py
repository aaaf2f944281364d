"""Applying a plan under the workspace lock: compile what is new or stale (across cores when
many), drop orphans, keep hand edits, write index.md/index.json, outline.json and the log."""

from __future__ import annotations

import contextlib
import marshal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

from skillwiki import COMPILER, clock, fsio, parallel, statcache
from skillwiki.compiler.freshness import Entry, Facts, Problem, State, row_key
from skillwiki.compiler.plan import Plan, cache_path, make_plan
from skillwiki.config import Config
from skillwiki.errors import InputError, LockTimeout, ReadOnlyWorkspace
from skillwiki.fingerprint import fingerprint, xxh3
from skillwiki.frontmatter.documents import body_of, decode, split
from skillwiki.parallel import Progress as Progress  # named here too: compiler.Progress
from skillwiki.search import heading_cache
from skillwiki.search.snapshot import ChangesSince, Snapshot
from skillwiki.statcache import Stat, read_with_stat
from skillwiki.workspace import Workspace


@dataclass
class CompileResult:
    counts: dict[State, int]
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept_edited: list[str] = field(default_factory=list)
    changed_meanwhile: list[str] = field(default_factory=list)  # edited while compile ran
    backups: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    indexes_written: bool = False
    new_rows: dict[str, tuple[str, ...]] = field(default_factory=dict)  # of articles written
    headings: dict[str, heading_cache.ArticleHeadings] = field(
        default_factory=dict
    )  # of articles written
    rows_changed: bool = False  # a written article's catalog row differs from before
    # wiki/ as this compile left it, for the search index
    snapshot: Snapshot = field(default_factory=lambda: Snapshot(dict))
    listing: statcache.Listing | None = None  # the files as this compile left them
    # Why nothing was compiled (no `wait`): another writer held the lock, or the checkout cannot
    # be written. `listing` is then the files as the plan found them; nothing was written.
    unlocked: LockTimeout | ReadOnlyWorkspace | None = None

    @property
    def refreshed(self) -> int:
        return len(self.written) + len(self.removed)


def compile_workspace(
    ws: Workspace,
    config: Config,
    *,
    force: bool = False,
    progress: Progress | None = None,
    trust_articles: bool = False,
    wait: bool = True,
    changes: statcache.Changes | None = None,
    write_cache: bool = True,
    outline: bool = False,
) -> CompileResult:
    """Compile what is new or stale, drop orphans, refresh index.md/index.json and the log.

    `trust_articles` (for the read commands) lists wiki/ by name only, and `changes` looks
    again only at the files it names: see make_plan. Without `wait`, a workspace lock held by
    another writer (or a checkout that cannot be written) compiles nothing: the result says
    why (`unlocked`) at once. Without `write_cache`, the stat cache is
    settled but not written (the caller writes it, with statcache.write, when it can spare
    the time: a server, once it is idle). With `outline` (the compile and ingest commands), a
    missing outline.json is made again from the articles (see heading_cache).
    """
    trust_articles = trust_articles and not force
    generation = _generation(ws)
    plan = make_plan(ws, config, trust_articles=trust_articles, changes=changes)
    outline_missing = outline and _outline_missing(ws, plan)
    if (
        not plan.pending(force)
        and not plan.temps
        and not outline_missing
        and _indexes_current(ws, plan)
    ):
        result = CompileResult(plan.count(), kept_edited=plan.edited(), problems=plan.problems)
        entry_of: Callable[[str], str | None] = partial(plan.entry_json, ws)
        done: set[str] = set()
    else:
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(fsio.workspace_lock(ws, config.lock_timeout if wait else 0))
            except (LockTimeout, ReadOnlyWorkspace) as exc:
                if wait:
                    raise
                return CompileResult(plan.count(), listing=plan.listing, unlocked=exc)
            if _generation(ws) != generation:  # another writer finished meanwhile: look again
                plan = make_plan(ws, config, trust_articles=trust_articles)
            result = _apply(ws, config, plan, force, progress, outline)
            done = {*result.headings, *result.removed}
        entry_of = partial(_entry_of, ws, plan, result.new_rows)
    loaded_at = plan.cache.saved_ns
    now = time.time_ns()
    plan.renew_records(force, now, done)
    statcache.settle(plan.cache, now)
    if write_cache:
        statcache.write(cache_path(ws), plan.cache, config.fingerprint)
    listing = result.listing = plan.listing
    result.snapshot = Snapshot(
        lambda: listing.wiki_stats,
        entry_of,
        token=None if plan.cache.dirty else str(plan.cache.saved_ns),
        changes=ChangesSince(
            str(loaded_at), listing.looked_articles(), listing.covers, listing.wiki_folders
        )
        if loaded_at
        else None,
        headings=result.headings,
    )
    return result


def _entry_of(
    ws: Workspace, plan: Plan, made: dict[str, tuple[str, ...]], target: str
) -> str | None:
    """An article's index.json entry: from the row just made for it, else from the catalog."""
    return made[target][2] if target in made else plan.entry_json(ws, target)


def _outline_missing(ws: Workspace, plan: Plan) -> bool:
    """Whether the wiki has articles but no outline.json."""
    return any(plan.listing.wiki_folders.values()) and not heading_cache.path_of(ws).exists()


def _generation(ws: Workspace) -> Stat | None:
    """Return the stat of log.md, which every write through skillwiki appends to."""
    try:
        return statcache.stat_of(ws.log_md)
    except OSError:
        return None


def _indexes_current(ws: Workspace, plan: Plan) -> bool:
    """Tell whether index.md and index.json match the articles, rendering them only if unsure."""
    try:
        stats = (statcache.stat_of(ws.index_md), statcache.stat_of(ws.index_json))
    except OSError:
        return False
    if plan.cache.indexes_known(stats):
        return True
    if not plan.cache.wiki_changed and plan.cache.indexes == stats and _as_written(ws, stats):
        plan.cache.remember_indexes(stats)
        return True
    from skillwiki.compiler import catalog

    expected_md, expected_json = catalog.render(plan.rows(ws))
    current = _same_bytes(ws.index_md, expected_md) and _same_bytes(ws.index_json, expected_json)
    if current:
        plan.cache.remember_indexes(stats)
    return current


def _written_path(ws: Workspace) -> Path:
    """Where the fingerprints of index.md and index.json as a compile last wrote them are."""
    return ws.cache / "indexes.marshal"


def _remember_written(ws: Workspace, stats: list[Stat | None], data: tuple[bytes, ...]) -> None:
    """Keep the fingerprints of index.md and index.json as just written, at their stats, for
    `_as_written`; nothing where a file was changed meanwhile (its stat None)."""
    if any(stat is None for stat in stats):
        return
    written = {"stats": tuple(stats), "fingerprints": tuple(map(fingerprint, data))}
    try:
        fsio.atomic_write(_written_path(ws), marshal.dumps(written), durable=False)
    except OSError:
        pass  # a cache: the next read renders the catalog to compare


def _as_written(ws: Workspace, stats: tuple[Stat, ...]) -> bool:
    """Whether index.md and index.json are, byte for byte, what a compile wrote at these stats.

    Files written a moment before the stat cache was saved are not vouched for by their stat
    (they may have been written again within the same timestamp tick), so a read just after a
    write would render the whole catalog to compare it; their fingerprints, compared with those
    of the bytes written, tell as much for the cost of reading two files."""
    try:
        with open(_written_path(ws), "rb") as handle:
            written = marshal.loads(handle.read())
        if not isinstance(written, dict) or written.get("stats") != stats:
            return False
        found = [read_with_stat(path) for path in (ws.index_md, ws.index_json)]
    except (OSError, EOFError, ValueError, TypeError):
        return False
    return tuple(stat for _, stat in found) == stats and written.get("fingerprints") == tuple(
        fingerprint(data) for data, _ in found
    )


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


BATCH = 500  # articles rendered, then written to disk together


def _apply(
    ws: Workspace,
    config: Config,
    plan: Plan,
    force: bool,
    progress: Progress | None,
    outline: bool = False,
) -> CompileResult:
    result = CompileResult(plan.count(), problems=list(plan.problems))
    try:  # checked before anything is written: no article learned or lost since the last check
        stats = (statcache.stat_of(ws.index_md), statcache.stat_of(ws.index_json))
        indexes_known = plan.cache.indexes_known(stats)
    except OSError:
        indexes_known = False
    for temp in plan.temps:  # under the lock no writer is at work: these are leftovers
        fsio.remove_file(ws.dot / temp)
    pending = plan.pending(force)
    stamp = clock.stamp().replace(":", "")
    for entry in pending:
        if entry.state is State.EDITED:
            result.backups.append(_backup(ws, entry.article, stamp))
        if entry.raw is None:
            fsio.remove(ws.wiki / entry.article, ws.wiki)
            plan.listing.set_article(entry.article, None)
            plan.cache.forget_article(entry.article)
            plan.facts.pop(entry.article, None)
            result.removed.append(entry.article)
    _compile_all(ws, config, plan, [entry for entry in pending if entry.raw], result, progress)
    _save_outline(ws, config, plan, result, outline)
    result.kept_edited = ([] if force else plan.edited()) + result.changed_meanwhile
    if result.removed or result.rows_changed or not indexes_known:
        _write_indexes(ws, plan, result)
    # else: only bodies changed, every catalog row is the same: index.md/index.json stand.
    if result.refreshed or result.indexes_written:
        fsio.append_log(ws, "compile", _log_details(result))
    plan.listing.stat_written()  # still under the lock
    return result


def _compile_all(
    ws: Workspace,
    config: Config,
    plan: Plan,
    todo: list[Entry],
    result: CompileResult,
    progress: Progress | None,
) -> None:
    """Compile each entry (across cores when many), writing the articles batch by batch."""
    jobs = [_job(ws, config, raw, entry.article) for entry in todo if (raw := entry.raw)]
    compiled = parallel.imap(compile_one, jobs)
    for start in range(0, len(todo), BATCH):
        batch = todo[start : start + BATCH]
        _write_batch(ws, plan, list(zip(batch, islice(compiled, len(batch)), strict=True)), result)
        if progress is not None:
            progress(min(start + BATCH, len(todo)), len(todo))


def _save_outline(
    ws: Workspace, config: Config, plan: Plan, result: CompileResult, wanted: bool
) -> None:
    """Keep the outlines of the articles written in outline.json (heading_cache), after a
    compile of many articles, or where the file is missing and `wanted` (see
    compile_workspace's `outline`)."""
    bulk = len(result.headings) >= heading_cache.MIN_ARTICLES
    if not bulk and not (wanted and _outline_missing(ws, plan)):
        return  # a small compile lists no article for it
    wiki_folders = plan.listing.wiki_folders
    names = {folder + name for folder, files in wiki_folders.items() for name in files}
    heading_cache.save(ws, result.headings, names, config.fingerprint)


def _write_indexes(ws: Workspace, plan: Plan, result: CompileResult) -> None:
    from skillwiki.compiler import catalog

    for target, row in result.new_rows.items():
        stat = plan.listing.article_stat(target)
        assert stat is not None
        plan.cache.rows.put(target, stat, row)
    index_md, index_json = catalog.render(plan.rows(ws, result.new_rows))
    stats: list[Stat | None] = []  # as written: a change made since is not taken for them
    written = fsio.write_many([(ws.index_md, index_md), (ws.index_json, index_json)], stats=stats)
    result.indexes_written = any(written)
    _remember_written(ws, stats, (index_md, index_json))
    plan.cache.remember_indexes(tuple(stat for stat in stats if stat is not None))  # no keep


class Compiled(NamedTuple):
    """One raw file compiled: its fingerprint, the article's bytes and catalog row, the
    headings handed to the search index, and the raw file's stat as it was read."""

    raw_fingerprint: str
    text: bytes
    row: tuple[Any, ...]
    headings: heading_cache.ArticleHeadings
    raw_stat: Stat


Job = tuple[str, str, str, str, int]  # raw file, article, raw file's path, algorithm, limit


def _job(ws: Workspace, config: Config, raw_rel: str, article: str) -> Job:
    return (raw_rel, article, str(ws.raw / raw_rel), config.fingerprint, config.max_file_bytes)


def compile_one(job: Job) -> Compiled | Problem:
    """Compile one raw file into its article's bytes and catalog row (in a worker, if many)."""
    raw_rel, target, path, algorithm, max_bytes = job
    try:
        data, stat = read_with_stat(Path(path))
    except FileNotFoundError:  # removed since it was listed: its article goes with the next
        return Problem(f".wiki/raw/{raw_rel}", "removed while this compile ran")
    return _compiled(raw_rel, target, data, stat, algorithm, max_bytes)


def _compiled(
    raw_rel: str, target: str, data: bytes, stat: Stat, algorithm: str, max_bytes: int
) -> Compiled | Problem:
    """Compile one raw file's bytes (read at `stat`) into its article's bytes and catalog
    row."""
    from skillwiki.compiler import catalog
    from skillwiki.compiler.article import render

    where = f".wiki/raw/{raw_rel}"
    try:
        raw_fp = fingerprint(data, algorithm)
        rendered = render(raw_rel, split(decode(data, where, max_bytes), where), raw_fp, algorithm)
    except InputError as exc:
        return Problem(exc.path or where, exc.detail)
    headings, refs = rendered.headings, rendered.refs
    if headings is None or refs is None:  # not told by the raw file: parse the article
        title = str(rendered.meta["title"])
        headings, refs = heading_cache.read_article(body_of(rendered.text), target, title)
    handed = (str(rendered.meta["compiled_fingerprint"]), headings, refs)
    row = tuple(catalog.row(target, rendered.meta))
    return Compiled(raw_fp, rendered.text.encode(), row, handed, stat)


# A raw note that takes the compiler's every step: frontmatter, headings, a list, code, a link.
_SAMPLE = b"""---
title: Warming up
tags: [sample]
---
# Warming up

A **note** with `inline code`, a [link](other.md) and a footnote.[^1]

- one
- two

```sh
echo done
```

[^1]: The footnote.
"""


def warm_up() -> Compiled | Problem:
    """Compile a small note in memory, so that the imports and the parser a compile needs
    are ready before the first change comes: a server does so once idle, so that the first
    look after a change costs what the next ones do."""
    nowhere = (0, 0, 0, 0)  # the stat of a note read from no file
    return _compiled("warm-up.md", "warm-up.md", _SAMPLE, nowhere, "xxh3", len(_SAMPLE) + 1)


def _changed_since_planned(ws: Workspace, plan: Plan, article: str) -> bool:
    """Tell whether an article was created, changed or removed since the plan looked at it
    (a hand edit made while compile ran): its stat then differs from the planned one."""
    try:
        now: Stat | None = statcache.stat_of(ws.wiki / article)
    except OSError:
        now = None
    return now != plan.listing.article_stat(article)


def _write_batch(
    ws: Workspace, plan: Plan, batch: list[tuple[Entry, Compiled | Problem]], result: CompileResult
) -> None:
    """Write a batch of compiled articles together and record what they are. An article
    someone changed since the plan looked at it is left alone: it is looked at just before
    the rename that would put the compiled one in place."""
    done: list[tuple[Entry, Compiled]] = []
    for entry, compiled in batch:
        if isinstance(compiled, Problem):
            result.problems.append(compiled)
            continue
        done.append((entry, compiled))
    articles = {ws.wiki / entry.article: entry.article for entry, _ in done}

    def unchanged(path: Path) -> bool:
        return not _changed_since_planned(ws, plan, articles[path])

    stats: list[Stat | None] = []  # as written: a hand edit made since is not taken for them
    items = [(ws.wiki / entry.article, compiled.text) for entry, compiled in done]
    written = fsio.write_many(items, stats=stats, keep=unchanged)
    for (entry, compiled), was_written, stat in zip(done, written, stats, strict=True):
        raw_fp, _, row, handed, raw_stat = compiled
        assert entry.raw is not None
        if stat is None:  # changed since the plan looked: someone's edit, left alone
            result.changed_meanwhile.append(entry.article)
            continue
        if was_written:
            result.written.append(entry.article)
        facts = Facts(raw_fp, COMPILER, False, row_key(row), xxh3(compiled.text))
        old = plan.facts.get(entry.article)
        result.rows_changed = result.rows_changed or old is None or old.row_key != facts.row_key
        result.headings[entry.article] = handed
        plan.listing.set_article(entry.article, stat)
        plan.facts[entry.article] = facts
        plan.cache.remember_article(entry.article, stat, tuple(facts))
        result.new_rows[entry.article] = row
        # At the stat it was read at: one taken now may be of an edit made since, which
        # the next look would then take for the content compiled.
        plan.cache.remember_raw(entry.raw, raw_stat, raw_fp)


def _backup(ws: Workspace, article: str, stamp: str) -> str:
    """Keep a copy of a hand-edited article before it is replaced; never over another copy
    (two compiles within a second would otherwise share a stamp and lose the first edit)."""
    source = ws.wiki / article
    backup = ws.cache / "backups" / stamp / article
    number = 1
    while backup.exists():
        number += 1
        backup = ws.cache / "backups" / f"{stamp}-{number}" / article
    fsio.atomic_write(backup, source.read_bytes())
    return ws.rel(backup)


def _log_details(result: CompileResult) -> str:
    counts = result.counts
    parts = [
        f"{len(result.written)} written",
        f"{len(result.removed)} removed",
        f"({counts[State.NEW]} new, {counts[State.STALE]} stale, {counts[State.ORPHAN]} orphan,"
        f" {counts[State.EDITED]} edited)",
    ]
    return " ".join(parts)
