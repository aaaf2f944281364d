"""Planning a compile: the state of every raw file and article (fresh, new, stale, orphan,
edited), hashing only files whose stat changed since the stat cache learned them."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

from skillwiki import COMPILER, fsio, statcache
from skillwiki.config import Config
from skillwiki.errors import InputError
from skillwiki.fingerprint import algorithm_of, fingerprint, matches
from skillwiki.frontmatter.documents import decode, split
from skillwiki.statcache import Folder, Key, Listing, Record, Stat, Summary, older_than
from skillwiki.workspace import Workspace, article_rel


class State(Enum):
    FRESH = "fresh"
    NEW = "new"
    STALE = "stale"
    ORPHAN = "orphan"
    EDITED = "edited"


# Entry and Facts are NamedTuples rather than frozen dataclasses: a plan makes one of each per
# article on every query, and a tuple is several times cheaper to create.
class Entry(NamedTuple):
    """One article and its raw source (None for an orphan), with its freshness state."""

    article: str
    raw: str | None
    state: State


@dataclass(frozen=True, order=True)
class Problem:
    """A raw file that could not be compiled, and why."""

    path: str
    message: str


class Facts(NamedTuple):
    """What an article's frontmatter says, as far as freshness and the catalog need it."""

    source_fingerprint: str | None
    compiler: str | None
    edited: bool
    row_key: str | None  # fingerprint of its catalog row: unchanged rows need no new index


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
        spreads: dict[tuple[str, int], dict[statcache.Key, statcache.Folder]] = {}
        for key, record in self.listing.answered.items():
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
        counts = dict.fromkeys(State, 0)
        counts[State.FRESH] = len(self.found_fresh) + sum(
            record.fresh for record in self.listing.answered.values()
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
                made.get(target) or known.get(target) or self._read_row(ws, target, stats[target])
            )
        return found

    def row(self, ws: Workspace, target: str) -> Any:
        from skillwiki.compiler.catalog import Row

        stat = self.listing.article_stat(target)
        assert stat is not None
        return Row._make(self.cache.rows.get(target, stat) or self._read_row(ws, target, stat))

    def _read_row(self, ws: Workspace, target: str, stat: Stat) -> tuple[str, ...]:
        """An article's catalog row read from it, kept in the cache under its stat."""
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
        return [entry.article for entry in self.others if entry.state is State.EDITED]

    def pending(self, force: bool) -> list[Entry]:
        todo = _todo(force)
        return [entry for entry in self.others if entry.state in todo]

    def renew_records(self, force: bool, now: int) -> None:
        """Give each key looked at a record of how its files are now, with what was found."""
        key_of = self.cache.key_of
        others: dict[Key, list[tuple[str, str | None, str]]] = {}
        for entry in self.others:
            mine = (entry.article, entry.raw, entry.state.value)
            others.setdefault(key_of(entry.article), []).append(mine)
        problems: dict[Key, list[tuple[str, str]]] = {}
        for problem in self.problems:
            key = key_of(problem.path.removeprefix(".wiki/raw/"))
            problems.setdefault(key, []).append((problem.path, problem.message))
        todo = _todo(force)
        pending = {key_of(entry.article) for entry in self.others if entry.state in todo}
        leftovers = bool(self.temps)
        self.listing.renew(
            now,
            {key: tuple(found) for key, found in others.items()},
            {key: tuple(found) for key, found in problems.items()},
            lambda key: leftovers or key in pending,
        )


def _todo(force: bool) -> set[State]:
    """The states a compile acts on."""
    return {State.NEW, State.STALE, State.ORPHAN} | ({State.EDITED} if force else set())


def cache_path(ws: Workspace) -> Path:
    return ws.cache / "state.marshal"


def make_plan(
    ws: Workspace,
    config: Config,
    *,
    trust_articles: bool = False,
    earlier: statcache.Earlier | None = None,
) -> Plan:
    """Work out the state of every raw file and article, hashing only files whose stat changed.

    A folder whose listing matches its record is answered by the record; the others are
    planned file by file. With `trust_articles` the articles of wiki/ are listed by name
    only, not stat'ed: an article edited by hand in place goes unseen until a full look
    (compile, status, lint), but never lost, for an article is looked at before it is rewritten.
    With `earlier` (a server that watches the files) only the files it says changed are
    looked at again.
    """
    kept = earlier is not None and earlier.listing.cache.take_over(
        cache_path(ws), config.fingerprint
    )
    if earlier is not None and kept:
        cache = earlier.listing.cache
    else:
        cache = statcache.load(cache_path(ws), config.fingerprint)
    temps: list[str] = []
    wiki_temps: list[str] = []
    folder_stats: dict[str, Stat] = {}
    if earlier is None:
        raw_folders = statcache.scan_folders(ws.raw, temps)
        wiki_folders = statcache.scan_folders(
            ws.wiki, wiki_temps, stats=not trust_articles, folder_stats=folder_stats
        )
    else:
        before = earlier.listing
        raw_folders = statcache.relist_folders(
            ws.raw, before.raw_folders, earlier.below("raw/"), came=earlier.came_below("raw/")
        )
        wiki_folders = statcache.relist_folders(
            ws.wiki,
            before.wiki_folders,
            earlier.below("wiki/"),
            stats=not trust_articles,
            folder_stats=folder_stats,
            previous_stats=before.folder_stats,
            came=earlier.came_below("wiki/"),
        )
    temps = [f"raw/{rel}" for rel in temps]
    temps += [f"wiki/{rel}" for rel in wiki_temps]
    temps += [name for name in os.listdir(ws.dot) if name.endswith(fsio.TEMP_SUFFIX)]
    listing = Listing(raw_folders, wiki_folders, cache, ws.wiki, folder_stats)
    listing.earlier = earlier.listing if earlier is not None else None
    listing.changed_names = earlier.names_by_folder() if earlier is not None else {}
    plan = Plan(listing, temps=temps)
    seen: set[Key] = set()
    still = _still_answered(earlier, cache) if earlier is not None and kept else {}
    clashing = _clashing_folders(raw_folders)
    for folder in sorted(raw_folders.keys() | wiki_folders.keys()):
        raw_files = raw_folders.get(folder, {})
        wiki_files = wiki_folders.get(folder, {})
        count = statcache.buckets_for(max(len(raw_files), len(wiki_files)))
        alike = _keys_alike(earlier if kept else None, listing, folder, count)
        cache.buckets[folder] = count
        if folder not in clashing and _folder_answered(
            plan, still.get(folder), folder, count, trust_articles, seen
        ):
            continue
        raws, wikis = listing.spread(folder, count)
        for key in sorted(raws.keys() | wikis.keys()):
            seen.add(key)
            raw = raws.get(key, {})
            wiki = wikis.get(key, {})
            record = cache.records.get(key)
            listed = (raw, wiki, folder_stats.get(folder))
            if (
                record is not None
                and record.quiet
                and folder not in clashing
                and (alike(key) or _matches(record, *listed, trust_articles))
            ):
                _answer(plan, key, record)
                continue
            if trust_articles and wiki:
                wiki = wikis[key] = _stat_listed(ws, folder, wiki, wiki_files)
            _plan_folder(ws, config, plan, key, raw, wiki)
    listing.looked |= cache.records.keys() - seen  # records of files that are gone
    listing.earlier = None  # its spreads were taken over where they could be: let it go
    plan.others.sort()
    plan.problems.sort()
    return plan


def _folder_answered(
    plan: Plan,
    answers: list[tuple[Key, Record]] | None,
    folder: str,
    count: int,
    trust_articles: bool,
    seen: set[Key],
) -> bool:
    """Answer a whole folder by what is known of it, if it can be: the earlier run's records
    (`answers`) when nothing in it changed since, or, for a big folder, its summary."""
    if answers is not None and answers[0][0][1] == count:
        for key, known in answers:
            _answer(plan, key, known)
            seen.add(key)
        return True
    if count > 1 and _whole_folder_answered(plan, folder, trust_articles):
        seen.update(plan.listing.answered.keys() & plan.cache.keys_of(folder))
        return True
    return False


def _clashing_folders(raw_folders: Mapping[str, Folder]) -> set[str]:
    """The folders of raw/ that hold a file whose article would be a folder of raw/ too
    (raw/x.txt, whose article is wiki/x.txt.md, beside raw/x.txt.md/y.md): planned file by
    file whatever their records say, so that the file is refused (_unusable) and not taken
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


def _still_answered(
    earlier: statcache.Earlier, cache: statcache.StatCache
) -> dict[str, list[tuple[Key, Record]]]:
    """The folders the earlier run answered wholly by their records, with those records, when
    nothing in them changed since (the watcher named no file of theirs) and their records are
    the very ones it answered with (the cache taken over, and none renewed since): the same
    records match the same files again, so they answer without their digests."""
    before = earlier.listing
    touched = {statcache.folder_of(path.partition("/")[2]) for path in earlier.changed}
    touched |= {key[0] for key in before.looked}
    mine: dict[str, list[tuple[Key, Record]]] = {}
    for key, record in before.answered.items():
        if key[0] not in touched:
            mine.setdefault(key[0], []).append((key, record))
    held: dict[str, int] = {}
    for key in cache.records:
        held[key[0]] = held.get(key[0], 0) + 1
    return {
        folder: sorted(answers)
        for folder, answers in mine.items()
        if held.get(folder) == len(answers)
        and all(cache.records.get(key) is record and record.quiet for key, record in answers)
    }


def _keys_alike(
    earlier: statcache.Earlier | None, listing: Listing, folder: str, count: int
) -> Callable[[Key], bool]:
    """Of a folder with the same stat as the earlier run left it (no file created, removed or
    renamed in it since), the keys that hold no name the watcher told changed: their files
    are as the earlier run left them, and the earlier run left each quiet record of the
    cache it hands over true of the files as it left them (it answered by it, or made it
    then; a record of a key it did not see, the folder spread over other buckets, it
    dropped), so such a record answers without digests. (Of a folder the watcher named
    nothing in, _still_answered takes the records whole.) Without the earlier run's cache
    taken over (`earlier` None), none."""
    if earlier is None or count == 1:
        return _none
    if listing.folder_stats.get(folder) != earlier.listing.folder_stats.get(folder):
        return _none
    changed = listing.changed_buckets(folder, count)
    return lambda key: key[2] not in changed


def _none(key: Key) -> bool:
    return False


def _stat_listed(ws: Workspace, folder: str, listed: Folder, wiki_files: Folder) -> Folder:
    """Stat the articles of a key that were listed by name only, keeping the folder in step."""
    wiki = statcache.stat_files(ws.wiki, folder, listed)
    for name in listed.keys() - wiki.keys():  # gone since they were listed
        del wiki_files[name]
    wiki_files.update(wiki)
    return wiki


def _whole_folder_answered(plan: Plan, folder: str, trust_articles: bool) -> bool:
    """Answer every bucket of a big folder at once, when the folder matches its summary."""
    listing = plan.listing
    summary = plan.cache.folders.get(folder)
    if summary is None or summary.buckets != plan.cache.buckets[folder]:
        return False
    if not _matches(
        summary,
        listing.raw_folders.get(folder, {}),
        listing.wiki_folders.get(folder, {}),
        listing.folder_stats.get(folder),
        trust_articles,
    ):
        return False
    records = [(key, plan.cache.records[key]) for key in plan.cache.keys_of(folder)]
    if not records or not all(record.quiet for _, record in records):
        return False
    for key, record in records:
        _answer(plan, key, record)
    return True


def _matches(
    known: Record | Summary, raw: Folder, wiki: Folder, wiki_stat: Stat | None, trust: bool
) -> bool:
    """Tell whether a record's (or summary's) digests name these files as they are listed now
    (the articles' stats not compared when they were listed by name only)."""
    return (
        known.raw == statcache.digest(raw)
        and known.names == statcache.names_digest(wiki, wiki_stat)
        and (trust or known.articles == statcache.digest(wiki))
    )


def _answer(plan: Plan, key: Key, record: Record) -> None:
    plan.listing.answered[key] = record
    plan.others += [Entry(a, source, State(state)) for a, source, state in record.others]
    plan.problems += [Problem(path, message) for path, message in record.problems]


def _plan_folder(
    ws: Workspace, config: Config, plan: Plan, key: Key, raw: Folder, wiki: Folder
) -> None:
    """Plan one key file by file: the common case (both files known to the cache, the
    fingerprints equal) is decided from the cache's tables; anything else by _state_of."""
    plan.listing.looked.add(key)
    folder = key[0]
    expected = _targets(plan, folder, raw)
    fresh = plan.found_fresh
    raw_known, wiki_known = plan.cache.open_folder(key)
    limit = plan.cache.limit(key)
    skip = len(folder)
    for target, source in expected.items():
        stat = wiki.get(target[skip:])
        if stat is not None and _known_fresh(
            wiki_known.get(target), stat, raw_known.get(source), raw[source[skip:]], limit
        ):
            fresh.append((target, source))
            continue
        state = _state_of(ws, config, plan, target, source)
        if state is State.FRESH:
            fresh.append((target, source))
        else:
            plan.others.append(Entry(target, source, state))
    for name in wiki:
        if folder + name not in expected:
            target = folder + name
            plan.others.append(Entry(target, None, _state_of(ws, config, plan, target, None)))
    plan.cache.prune(key, {folder + name for name in raw}, {folder + name for name in wiki})


def _targets(plan: Plan, folder: str, raw: Folder) -> dict[str, str]:
    """Each article the folder's raw files make (article -> raw file); a raw file that cannot
    have one, or whose article another raw file makes too, is a problem."""
    expected: dict[str, str] = {}
    for name in raw:
        source = folder + name
        target = source if name[-3:] == ".md" else article_rel(source)
        unusable = _unusable(plan, source, target)
        if unusable is not None:
            plan.problems.append(Problem(f".wiki/raw/{_shown(source)}", unusable))
            continue
        other = expected.get(target)
        if other is not None:  # raw/x.txt and raw/x.txt.md: the Markdown file keeps the name
            loser, source = (source, other) if other == target else (other, source)
            plan.problems.append(
                Problem(
                    f".wiki/raw/{loser}",
                    f"compiles to the same article as raw/{source}; rename one",
                )
            )
        expected[target] = source
    return expected


def _known_fresh(
    article: tuple[Stat, tuple[Any, ...]] | None,
    stat: Stat,
    raw: tuple[Stat, str] | None,
    raw_stat: Stat,
    limit: int,
) -> bool:
    """Tell from the cache alone that an article is fresh: its facts and its raw file's
    fingerprint were learned at the stats both files have now (settled before `limit`), and
    the article was compiled by this compiler from that fingerprint, not edited since."""
    if article is None or raw is None:
        return False
    article_stat, known = article
    raw_known_stat, raw_fingerprint = raw
    if article_stat != stat or raw_known_stat != raw_stat:
        return False
    if not (older_than(stat, limit) and older_than(raw_stat, limit)):
        return False
    facts = Facts._make(known)
    return (
        facts.source_fingerprint == raw_fingerprint
        and facts.compiler == COMPILER
        and (not facts.edited)
    )


def _unusable(plan: Plan, source: str, target: str) -> str | None:
    """Why a raw file cannot have an article, or None: a name that is not UTF-8 (it could
    not be written into index.json or printed), or an article that would need to be both a
    file and a folder (raw/x beside raw/x.md/y.md, or raw/x.md/deeper/y.md)."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8; rename it"
    if target != source and plan.has_raw_folder(target + "/"):
        return f"its article wiki/{target} would clash with the folder raw/{target}/; rename one"
    return None


def _shown(rel: str) -> str:
    """A path as it can be printed: bytes that are not UTF-8 as \\xNN."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _state_of(ws: Workspace, config: Config, plan: Plan, target: str, raw_rel: str | None) -> State:
    stat = plan.listing.article_stat(target)
    if stat is None:
        return State.NEW
    known = plan.cache.article_facts(target, stat)
    if known is None:
        facts = read_facts(ws.wiki / target, target)
        plan.cache.remember_article(target, stat, tuple(facts))
    else:
        facts = Facts._make(known)
    plan.facts[target] = facts
    if facts.edited:
        return State.EDITED
    if raw_rel is None:
        return State.ORPHAN
    stored = facts.source_fingerprint
    if facts.compiler != COMPILER or stored is None:
        return State.STALE
    raw_stat = plan.listing.raw_stat(raw_rel)
    current = plan.cache.raw_fingerprint(raw_rel, raw_stat)
    if current is None:
        current = fingerprint(read_bytes(ws.raw / raw_rel), config.fingerprint)
        plan.cache.remember_raw(raw_rel, raw_stat, current)
    if stored == current:
        return State.FRESH
    if algorithm_of(stored) not in (None, config.fingerprint):
        return State.FRESH if matches(read_bytes(ws.raw / raw_rel), stored) else State.STALE
    return State.STALE


def read_row(path: Path, target: str) -> Any:
    """Return the catalog row of an article as it is on disk."""
    from skillwiki.compiler import catalog

    try:
        data = read_bytes(path)
        meta = split(decode(data, path, len(data) + 1), path).meta
    except (OSError, InputError):
        meta = {}
    return catalog.row(target, meta)


def read_facts(path: Path, target: str) -> Facts:
    """Parse an article's frontmatter: its source fingerprint, compiler, and hand edits."""
    from skillwiki.compiler import catalog

    data = read_bytes(path)
    try:
        document = split(decode(data, path, len(data) + 1), path)
    except InputError:
        return Facts(None, None, True, None)
    meta = document.meta
    stored = meta.get("compiled_fingerprint")
    edited = not (isinstance(stored, str) and matches(document.body.encode(), stored))
    sources = meta.get("source_fingerprints")
    source = None
    if isinstance(sources, list) and sources and isinstance(sources[0], str):
        source = sources[0].rpartition("=")[2] or None
    compiler = meta.get("compiler") if isinstance(meta.get("compiler"), str) else None
    return Facts(source, compiler, edited, row_key(catalog.row(target, meta)))


def row_key(row: Any) -> str:
    """Fingerprint a catalog row (its index.json entry holds every field of it)."""
    return fingerprint(row[2].encode())


def read_bytes(path: Path) -> bytes:
    return read_with_stat(path)[0]


def read_with_stat(path: Path) -> tuple[bytes, Stat]:
    """A file's bytes, and its stat taken on the open file before they were read: the stat a
    cache may remember their fingerprint at (one taken later may be that of a change made
    since, which the fingerprint does not hold)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        stat = statcache.stat_of_open(fd)
        return os.read(fd, stat[0] + 1), stat
    finally:
        os.close(fd)
