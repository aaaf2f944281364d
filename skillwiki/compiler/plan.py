"""Planning a compile: the state of every raw file and article (fresh, new, stale, orphan,
edited). Each folder (or bucket of a big one) is answered by its record in the stat cache
where the record still holds; the others are looked into file by file (freshness)."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillwiki import fsio, statcache
from skillwiki.compiler.freshness import (
    Entry,
    Facts,
    Problem,
    State,
    plan_key,
    read_row,
    row_key,
    todo,
)
from skillwiki.config import Config
from skillwiki.statcache import Folder, Key, Listing, Record, Stat
from skillwiki.workspace import Workspace, article_rel

if TYPE_CHECKING:
    from skillwiki.statcache import Changes


@dataclass
class Plan:
    """What a compile would do: each article's state, and what stands in its way."""

    listing: Listing  # the files as listed, and the stat cache's bookkeeping for this run
    facts: dict[str, Facts] = field(default_factory=dict)  # of the articles looked at
    problems: list[Problem] = field(default_factory=list)
    temps: list[str] = field(default_factory=list)  # left by killed writers, relative to .wiki/
    others: list[Entry] = field(default_factory=list)  # every article not known fresh, sorted
    found_fresh: list[tuple[str, str]] = field(default_factory=list)  # in looked folders
    raw_tree: set[str] | None = None  # every folder of raw/ with a file below it, made once

    @property
    def cache(self) -> statcache.StatCache:
        return self.listing.cache

    @property
    def raw_stats(self) -> dict[str, Stat]:
        return self.listing.raw_stats

    @property
    def wiki_stats(self) -> dict[str, Stat]:
        return self.listing.wiki_stats

    @property
    def fresh(self) -> list[tuple[str, str]]:
        """Every (article, raw) pair known fresh, unordered."""
        found = list(self.found_fresh)
        spreads: dict[tuple[str, int], dict[Key, Folder]] = {}
        for key, record in self.listing.trusted_records.items():
            folder, count, _ = key
            taken = {article for article, _, _ in record.others}
            losers = {path.removeprefix(".wiki/raw/") for path, _ in record.problems}
            names = self.listing.raw_folders.get(folder, {})
            if count > 1:  # the folder split once, not looked through once for each bucket
                spread = spreads.get((folder, count))
                if spread is None:
                    spread = spreads[folder, count] = statcache.split(folder, names, count)
                names = spread.get(key, {})
            for name in names:
                source = folder + name
                target = source if name[-3:] == ".md" else article_rel(source)
                if target not in taken and source not in losers:
                    found.append((target, source))
        return found

    @property
    def entries(self) -> list[Entry]:
        """Every article with its state, sorted by path."""
        found = [Entry(target, source, State.FRESH) for target, source in self.fresh]
        return sorted(found + self.others)

    def count(self) -> dict[State, int]:
        """How many articles are in each state."""
        counts = dict.fromkeys(State, 0)
        counts[State.FRESH] = len(self.found_fresh) + sum(
            record.fresh for record in self.listing.trusted_records.values()
        )
        for entry in self.others:
            counts[entry.state] += 1
        return counts

    def rows(
        self, ws: Workspace, made: Mapping[str, tuple[str, ...]] | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Return every article's catalog row (catalog.Row's fields), in the order of the
        articles' paths, reading an article only when its row is unknown.

        `made`: rows of the articles this process just wrote, known without a look (their stat
        is too recent for the cache to vouch for). Each article's stat is taken once, from the
        listing, not looked up by path for each row.
        """
        made = made or {}
        stats = self.wiki_stats
        known = self.cache.rows.known(stats)
        found: dict[str, tuple[str, ...]] = {}
        for target in sorted(stats):
            found[target] = (
                made.get(target) or known.get(target) or self._row_of(ws, target, stats[target])
            )
        return found

    def row(self, ws: Workspace, target: str) -> Any:
        """An existing article's catalog row (a catalog.Row), from the cache where its stat
        still holds."""
        from skillwiki.compiler.catalog import Row

        stat = self.listing.article_stat(target)
        assert stat is not None
        return Row._make(self.cache.rows.get(target, stat) or self._row_of(ws, target, stat))

    def _row_of(self, ws: Workspace, target: str, stat: Stat) -> tuple[str, ...]:
        """An article's catalog row where its stat cannot vouch for the cached one: that row
        when the article's facts, learned or checked by this run, have its fingerprint (as
        after a compile wrote it); else read from the article, kept in the cache under its
        stat."""
        row = self.cache.rows.at(target, stat)
        facts = self.facts.get(target)
        if row is not None and facts is not None and facts.row_key == row_key(row):
            return tuple(row)
        row = tuple(read_row(ws.wiki / target, target))
        self.cache.rows.put(target, stat, row)
        return row

    def entry_json(self, ws: Workspace, target: str) -> str | None:
        """Return the index.json entry of an article (for the search index), if it exists."""
        if self.listing.article_stat(target) is None:
            return None
        return str(self.row(ws, target).json)

    def has_raw_folder(self, folder: str) -> bool:
        """Tell whether raw/ has `folder` (ending in '/') with a file anywhere below it: the
        listing names only the folders that hold files themselves."""
        if self.raw_tree is None:
            self.raw_tree = set()
            for listed in self.listing.raw_folders:
                while listed and listed not in self.raw_tree:
                    self.raw_tree.add(listed)
                    listed = listed[: listed.rfind("/", 0, -1) + 1]
        return folder in self.raw_tree

    def edited(self) -> list[str]:
        """The articles edited by hand."""
        return [entry.article for entry in self.others if entry.state is State.EDITED]

    def pending(self, force: bool) -> list[Entry]:
        """The articles a compile (`force`: one that overwrites hand edits) acts on."""
        acted_on = todo(force)
        return [entry for entry in self.others if entry.state in acted_on]

    def take_record(self, record: Record) -> None:
        """Take what a trusted record says of its articles and raw files as this plan's."""
        self.others += [Entry(a, source, State(state)) for a, source, state in record.others]
        self.problems += [Problem(path, message) for path, message in record.problems]

    def renew_records(self, force: bool, now: int, done: Collection[str] = ()) -> None:
        """Give each key looked at a record of how its files are now, with what was found;
        the articles a compile `done` (compiled or removed) as it left them: fresh, or gone.
        The records of the folders it wrote into then hold (and are trusted where their files
        are settled), rather than make the next look plan those folders file by file again.
        What it left is as planned: a raw file it could not compile, an article edited while
        it ran, are looked at again next time."""
        key_of = self.cache.key_of
        left = [entry for entry in self.others if entry.article not in done]
        others: dict[Key, list[tuple[str, str | None, str]]] = {}
        for entry in left:
            mine = (entry.article, entry.raw, entry.state.value)
            others.setdefault(key_of(entry.article), []).append(mine)
        problems: dict[Key, list[tuple[str, str]]] = {}
        for problem in self.problems:
            key = key_of(problem.path.removeprefix(".wiki/raw/"))
            problems.setdefault(key, []).append((problem.path, problem.message))
        acted_on = todo(force)
        pending = {key_of(entry.article) for entry in left if entry.state in acted_on}
        leftovers = bool(self.temps)
        self.listing.renew(
            now,
            {key: tuple(found) for key, found in others.items()},
            {key: tuple(found) for key, found in problems.items()},
            lambda key: leftovers or key in pending,
        )


def cache_path(ws: Workspace) -> Path:
    """Where the stat cache of a workspace is kept."""
    return ws.cache / "state.marshal"


def make_plan(
    ws: Workspace,
    config: Config,
    *,
    trust_articles: bool = False,
    changes: Changes | None = None,
) -> Plan:
    """Work out the state of every raw file and article, hashing only files whose stat changed.

    A folder whose listing matches its record is answered by the record; the others are
    planned file by file. With `trust_articles` the articles of wiki/ are listed by name
    only, not stat'ed: an article edited by hand in place goes unseen until a full look
    (compile, status, lint), but never lost, for an article is looked at before it is rewritten.
    With `changes` (a server that watches the files: its last listing and what changed since)
    only the files it says changed are looked at again.
    """
    cache, kept = statcache.open_cache(
        cache_path(ws), config.fingerprint, changes.listing.cache if changes else None
    )
    plan = _listed(ws, cache, trust_articles, changes)
    for key, raw, wiki, record in statcache.answers(
        plan.listing,
        changes if kept else None,
        trust_articles=trust_articles,
        look_apart=_clashing_folders(plan.listing.raw_folders),
    ):
        if record is None:
            plan_key(ws, config, plan, key, raw, wiki)
        else:
            plan.take_record(record)
    plan.others.sort()
    plan.problems.sort()
    return plan


def _listed(
    ws: Workspace, cache: statcache.StatCache, trust_articles: bool, changes: Changes | None
) -> Plan:
    """A plan with nothing sorted out yet: the files of raw/ and wiki/ listed (again only
    where `changes` names a file, when given), and the temp files killed writers left."""
    temps: list[str] = []
    wiki_temps: list[str] = []
    folder_stats: dict[str, Stat] = {}
    if changes is None:
        raw_folders = statcache.scan_folders(ws.raw, temps)
        wiki_folders = statcache.scan_folders(
            ws.wiki, wiki_temps, stats=not trust_articles, folder_stats=folder_stats
        )
    else:
        before = changes.listing
        raw_folders = statcache.relist_folders(
            ws.raw, before.raw_folders, changes.below("raw/"), came=changes.came_below("raw/")
        )
        wiki_folders = statcache.relist_folders(
            ws.wiki,
            before.wiki_folders,
            changes.below("wiki/"),
            stats=not trust_articles,
            folder_stats=folder_stats,
            previous_stats=before.folder_stats,
            came=changes.came_below("wiki/"),
        )
    temps = [f"raw/{rel}" for rel in temps]
    temps += [f"wiki/{rel}" for rel in wiki_temps]
    temps += [name for name in os.listdir(ws.dot) if name.endswith(fsio.TEMP_SUFFIX)]
    listing = Listing(
        raw_folders,
        wiki_folders,
        cache,
        ws.wiki,
        folder_stats,
        previous=changes.listing if changes is not None else None,
        changed_names=changes.names_by_folder() if changes is not None else {},
    )
    return Plan(listing, temps=temps)


def _clashing_folders(raw_folders: Mapping[str, Folder]) -> set[str]:
    """The folders of raw/ that hold a file whose article would be a folder of raw/ too
    (raw/x.txt, whose article is wiki/x.txt.md, beside raw/x.txt.md/y.md): looked into file
    by file whatever their records say, so that the file is refused (as unusable) and not taken
    for fresh by a record made before the folder came, which no change of its own folder
    tells of. Only a folder named like an article (`.md`) can clash: a look at each."""
    found: set[str] = set()
    for listed in raw_folders:
        start = listed.find(".md/")
        while start != -1:
            article = listed[: start + 3]
            source = article[:-3]
            parent = statcache.folder_of(source)
            if source[len(parent) :] in raw_folders.get(parent, {}):
                if article_rel(source) == article:
                    found.add(parent)
            start = listed.find(".md/", start + 1)
    return found
