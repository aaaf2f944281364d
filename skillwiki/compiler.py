"""Bring wiki/ and the indexes up to date: plan (fresh/new/stale/orphan/edited), then apply."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

from skillwiki import COMPILER, clock, fsio, headcache, parallel, statcache
from skillwiki.config import Config
from skillwiki.documents import body_of, decode, split
from skillwiki.errors import InputError
from skillwiki.fingerprint import algorithm_of, fingerprint, matches
from skillwiki.statcache import Folder, Key, Record, Stat, StatCache
from skillwiki.workspace import Workspace, article_rel

Progress = Callable[[int, int], None]


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
    raw_folders: dict[str, Folder]  # folder -> file name -> stat
    wiki_folders: dict[str, Folder]  # the same; a stat is None where only names were listed
    cache: StatCache
    wiki_root: Path  # where articles listed by name only can be stat'ed
    folder_stats: dict[str, Stat]  # of wiki/'s folders, as scanned (or after this run's writes)
    facts: dict[str, Facts] = field(default_factory=dict)  # of the articles looked at
    problems: list[Problem] = field(default_factory=list)
    temps: list[str] = field(default_factory=list)  # left by killed writers, relative to .wiki/
    others: list[Entry] = field(default_factory=list)  # every article not known fresh, sorted
    looked: set[Key] = field(default_factory=set)  # folders (or buckets) planned file by file
    answered: dict[Key, Record] = field(default_factory=dict)  # those their records answered
    written: set[str] = field(default_factory=set)  # wiki/ folders this run wrote into
    looked_articles: set[str] = field(default_factory=set)  # the articles of looked keys
    # (folder, buckets) -> its raw files and articles spread over its keys, where computed
    splits: dict[tuple[str, int], tuple[dict[Key, Folder], dict[Key, Folder]]] = field(
        default_factory=dict
    )
    found_fresh: list[tuple[str, str]] = field(default_factory=list)  # in looked folders
    _raw_stats: dict[str, Stat] | None = None
    _wiki_stats: dict[str, Stat] | None = None

    @property
    def raw_stats(self) -> dict[str, Stat]:
        """Every raw file's stat, by path."""
        if self._raw_stats is None:
            self._raw_stats = _flat(self.raw_folders)
        return self._raw_stats

    @property
    def wiki_stats(self) -> dict[str, Stat]:
        """Every article's stat, by path: as recorded where only names were listed."""
        if self._wiki_stats is None:
            found = {}
            for folder, files in self.wiki_folders.items():
                for name in files:
                    stat = self.article_stat(folder + name)
                    if stat is not None:
                        found[folder + name] = stat
            self._wiki_stats = found
        return self._wiki_stats

    def article_stat(self, rel: str) -> Stat | None:
        """An article's stat; None when it does not exist."""
        folder = statcache.folder_of(rel)
        files = self.wiki_folders.get(folder)
        name = rel[len(folder) :]
        if files is None or name not in files:
            return None
        stat: Stat | None = files[name]
        if stat is None:  # listed by name only: its recorded stat, or a look at it now
            stat = self.cache.article_stat(rel)
            if stat is None:
                try:
                    stat = statcache.stat_of(self.wiki_root / rel)
                except OSError:
                    return None
            files[name] = stat
        return stat

    def raw_stat(self, rel: str) -> Stat:
        folder = statcache.folder_of(rel)
        stat: Stat = self.raw_folders[folder][rel[len(folder) :]]
        return stat

    def set_article(self, rel: str, stat: Stat | None) -> None:
        """Record that an article was written (its new stat) or removed (None)."""
        folder = statcache.folder_of(rel)
        name = rel[len(folder) :]
        self.written.add(folder)
        places = [self.wiki_folders.setdefault(folder, {})]
        split = self.splits.get((folder, self.cache.buckets.get(folder, 1)))
        if split is not None:  # keep the spread in step too
            places.append(split[1].setdefault(self.cache.key_of(rel), {}))
        for files in places:
            if stat is None:
                files.pop(name, None)
            else:
                files[name] = stat
        if self._wiki_stats is not None:
            if stat is None:
                self._wiki_stats.pop(rel, None)
            else:
                self._wiki_stats[rel] = stat

    @property
    def fresh(self) -> list[tuple[str, str]]:
        """Every (article, raw) pair known fresh, unordered."""
        found = list(self.found_fresh)
        for key, record in self.answered.items():
            folder, count, bucket = key
            taken = {article for article, _, _ in record.others}
            losers = {path.removeprefix(".wiki/raw/") for path, _ in record.problems}
            for name in self.raw_folders.get(folder, {}):
                if count > 1 and statcache.bucket_of(name, count) != bucket:
                    continue
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
            record.fresh for record in self.answered.values()
        )
        for entry in self.others:
            counts[entry.state] += 1
        return counts

    def rows(self, ws: Workspace, made: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return every article's catalog row, reading an article only when its row is unknown.

        `made`: rows of the articles this process just wrote, known without a look (their stat
        is too recent for the cache to vouch for).
        """
        from skillwiki.catalog import Row

        made = made or {}
        return {
            target: Row._make(made[target]) if target in made else self.row(ws, target)
            for target in sorted(self.wiki_stats)
        }

    def row(self, ws: Workspace, target: str) -> Any:
        from skillwiki.catalog import Row

        stat = self.article_stat(target)
        assert stat is not None
        known = self.cache.rows.get(target, stat)
        if known is None:
            known = tuple(read_row(ws.wiki / target, target))
            self.cache.rows.put(target, stat, known)
        return Row._make(known)

    def entry_json(self, ws: Workspace, target: str) -> str | None:
        """Return the index.json entry of an article (for the search index), if it exists."""
        return self.row(ws, target).json if self.article_stat(target) is not None else None

    def edited(self) -> list[str]:
        return [entry.article for entry in self.others if entry.state is State.EDITED]

    def pending(self, force: bool) -> list[Entry]:
        todo = _todo(force)
        return [entry for entry in self.others if entry.state in todo]

    def files_of(self, key: Key) -> tuple[Folder, Folder]:
        """The raw files and articles a key covers now (none if its folder is split otherwise)."""
        folder, count, _ = key
        if self.cache.buckets.get(folder, 1) != count:
            return {}, {}
        if (folder, count) not in self.splits:
            self.splits[folder, count] = (
                statcache.split(folder, self.raw_folders.get(folder, {}), count),
                statcache.split(folder, self.wiki_folders.get(folder, {}), count),
            )
        raws, wikis = self.splits[folder, count]
        return raws.get(key, {}), wikis.get(key, {})

    def renew_records(self, force: bool, now: int) -> None:
        """Give each key looked at a record of how its files are now (after any compile).

        In a folder this run wrote into (under the lock), every key's record takes the
        folder's stat as the writes left it, so that the run's own writes are not taken
        next time for someone else's.
        """
        others: dict[Key, list[Entry]] = {}
        for entry in self.others:
            others.setdefault(self.cache.key_of(entry.article), []).append(entry)
        problems: dict[Key, list[Problem]] = {}
        for problem in self.problems:
            key = self.cache.key_of(problem.path.removeprefix(".wiki/raw/"))
            problems.setdefault(key, []).append(problem)
        todo = _todo(force)
        for folder in self.written:
            try:
                self.folder_stats[folder] = statcache.stat_of(self.wiki_root / folder)
            except OSError:
                self.folder_stats.pop(folder, None)
        keys = self.looked | {key for key in self.answered if key[0] in self.written}
        for key in sorted(keys):
            folder = key[0]
            raw, wiki = self.files_of(key)
            if not raw and not wiki:
                self.cache.renew(key, None)
                continue
            answered = self.answered.get(key)
            if answered is not None:  # only the folder's stat changed, by this run's writes
                stat = self.folder_stats.get(folder)
                self.cache.renew(key, answered._replace(names=statcache.names_digest(wiki, stat)))
                continue
            mine = others.get(key, [])
            record = statcache.record_of(
                self.cache,
                key,
                raw,
                wiki,
                self.folder_stats.get(folder),
                tuple((entry.article, entry.raw, entry.state.value) for entry in mine),
                tuple((problem.path, problem.message) for problem in problems.get(key, [])),
                pending=any(entry.state in todo for entry in mine) or bool(self.temps),
                now=now,
                own_folder_stat=folder in self.written,
            )
            self.cache.renew(key, record)
        self._summarize({key[0] for key in keys} | {folder for folder, _ in self.splits})

    def _summarize(self, folders: set[str]) -> None:
        """Renew the summaries of the big folders among these."""
        for folder in folders:
            if self.cache.buckets.get(folder, 1) == 1:
                continue
            raw = self.raw_folders.get(folder, {})
            stat = self.folder_stats.get(folder)
            if not self.cache.all_quiet(folder):
                self.cache.summarize(folder, raw, None, stat)
                continue
            wiki = self.wiki_folders.get(folder, {})
            for name in [name for name, known in wiki.items() if known is None]:
                self.article_stat(folder + name)  # listed by name: its recorded stat
            known = {name: known for name, known in wiki.items() if known is not None}
            self.cache.summarize(folder, raw, known, stat)


def _todo(force: bool) -> set[State]:
    """The states a compile acts on."""
    return {State.NEW, State.STALE, State.ORPHAN} | ({State.EDITED} if force else set())


def _flat(folders: dict[str, Folder]) -> dict[str, Stat]:
    return {
        folder + name: stat for folder, files in folders.items() for name, stat in files.items()
    }


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
    # every article's stat, computed on demand (the search index rarely needs them all)
    articles: Callable[[], dict[str, Stat]] = dict
    # article -> its index.json entry (JSON); computed on demand, for the few that need it
    entry_of: Callable[[str], str | None] = lambda _: None
    new_rows: dict[str, tuple[str, ...]] = field(default_factory=dict)  # of articles written
    headings: dict[str, headcache.Known] = field(default_factory=dict)  # of articles written
    rows_changed: bool = False  # a written article's catalog row differs from before
    # Names this exact state of wiki/ as recorded in the saved stat cache; None when unsaved.
    token: str | None = None
    # The state the cache was loaded at, and every article (rel -> stat) of the folders that
    # were looked into: all that may differ from that state. None when nothing was loaded.
    since: str | None = None
    looked: dict[str, dict[str, Stat]] = field(default_factory=dict)  # folder -> articles
    covers: Callable[[str], bool] = lambda _: True  # whether an article's bucket was looked into

    @property
    def refreshed(self) -> int:
        return len(self.written) + len(self.removed)


def cache_path(ws: Workspace) -> Path:
    return ws.cache / "state.marshal"


def make_plan(ws: Workspace, config: Config, *, trust_articles: bool = False) -> Plan:
    """Work out the state of every raw file and article, hashing only files whose stat changed.

    A folder whose listing matches its record is answered by the record; the others are
    planned file by file. With `trust_articles` the articles of wiki/ are listed by name
    only, not stat'ed: an article edited by hand in place goes unseen until a full look
    (compile, status, lint), but never lost, for an article is looked at before it is rewritten.
    """
    cache = statcache.load(cache_path(ws), config.fingerprint)
    temps: list[str] = []
    raw_folders = statcache.scan_folders(ws.raw, temps)
    temps = [f"raw/{rel}" for rel in temps]
    wiki_temps: list[str] = []
    folder_stats: dict[str, Stat] = {}
    wiki_folders = statcache.scan_folders(
        ws.wiki, wiki_temps, stats=not trust_articles, folder_stats=folder_stats
    )
    temps += [f"wiki/{rel}" for rel in wiki_temps]
    temps += [name for name in os.listdir(ws.dot) if name.endswith(fsio.TEMP_SUFFIX)]
    plan = Plan(raw_folders, wiki_folders, cache, ws.wiki, folder_stats, temps=temps)
    seen: set[Key] = set()
    for folder in sorted(raw_folders.keys() | wiki_folders.keys()):
        raw_files = raw_folders.get(folder, {})
        wiki_files = wiki_folders.get(folder, {})
        count = statcache.buckets_for(max(len(raw_files), len(wiki_files)))
        cache.buckets[folder] = count
        if count > 1 and _whole_folder_answered(plan, folder, trust_articles):
            seen.update(plan.answered.keys() & cache.keys_of(folder))
            continue
        raws = statcache.split(folder, raw_files, count)
        wikis = statcache.split(folder, wiki_files, count)
        plan.splits[folder, count] = (raws, wikis)
        for key in sorted(raws.keys() | wikis.keys()):
            seen.add(key)
            raw = raws.get(key, {})
            wiki = wikis.get(key, {})
            record = cache.records.get(key)
            if (
                record is not None
                and record.quiet
                and _listing_matches(
                    record[1:4], raw, wiki, folder_stats.get(folder), trust_articles
                )
            ):
                _answer(plan, key, record)
                continue
            if trust_articles and wiki:
                listed, wiki = wiki, statcache.stat_files(ws.wiki, folder, wiki)
                wikis[key] = wiki
                for name in listed.keys() - wiki.keys():  # gone since they were listed
                    del wiki_files[name]
                wiki_files.update(wiki)
            _plan_folder(ws, config, plan, key, raw, wiki)
    plan.looked |= cache.records.keys() - seen  # records of files that are gone
    plan.others.sort()
    plan.problems.sort()
    return plan


def _whole_folder_answered(plan: Plan, folder: str, trust_articles: bool) -> bool:
    """Answer every bucket of a big folder at once, when the folder matches its summary."""
    summary = plan.cache.folders.get(folder)
    if summary is None:
        return False
    if summary[0] != plan.cache.buckets[folder] or not _listing_matches(
        summary[1:],
        plan.raw_folders.get(folder, {}),
        plan.wiki_folders.get(folder, {}),
        plan.folder_stats.get(folder),
        trust_articles,
    ):
        return False
    records = [(key, plan.cache.records[key]) for key in plan.cache.keys_of(folder)]
    if not records or not all(record.quiet for _, record in records):
        return False
    for key, record in records:
        _answer(plan, key, record)
    return True


def _listing_matches(
    digests: tuple[bytes, ...], raw: Folder, wiki: Folder, wiki_stat: Stat | None, trust: bool
) -> bool:
    """Tell whether (raw, names, articles) digests name these files as they are listed now
    (the articles' stats not compared when they were listed by name only)."""
    raw_digest, names_digest, articles_digest = digests
    return (
        raw_digest == statcache.digest(raw)
        and names_digest == statcache.names_digest(wiki, wiki_stat)
        and (trust or articles_digest == statcache.digest(wiki))
    )


def _answer(plan: Plan, key: Key, record: Record) -> None:
    plan.answered[key] = record
    plan.others += [Entry(a, source, State(state)) for a, source, state in record.others]
    plan.problems += [Problem(path, message) for path, message in record.problems]


def _plan_folder(
    ws: Workspace, config: Config, plan: Plan, key: Key, raw: Folder, wiki: Folder
) -> None:
    plan.looked.add(key)
    folder = key[0]
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
    # One turn per article of the folder: the common case (both files known to the cache,
    # fingerprints equal) is decided here; anything else goes to _state_of.
    fresh = plan.found_fresh
    raw_known, wiki_known = plan.cache.open_folder(key)
    limit = plan.cache.limit(key)
    skip = len(folder)
    for target, source in expected.items():
        stat = wiki.get(target[skip:])
        article = wiki_known.get(target)
        if stat is not None and article is not None and article[0] == stat and stat[1] < limit:
            known = raw_known.get(source)
            raw_stat = raw[source[skip:]]
            facts = article[1]  # (source fingerprint, compiler, edited)
            if (
                known is not None
                and known[0] == raw_stat
                and raw_stat[1] < limit
                and facts[0] == known[1]
                and facts[1] == COMPILER
                and not facts[2]
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


def _unusable(plan: Plan, source: str, target: str) -> str | None:
    """Why a raw file cannot have an article, or None: a name that is not UTF-8 (it could
    not be written into index.json or printed), or an article that would need to be both a
    file and a folder (raw/x beside raw/x.md/y.md)."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8; rename it"
    if target + "/" in plan.raw_folders:
        return f"its article wiki/{target} would clash with the folder raw/{target}/; rename one"
    return None


def _shown(rel: str) -> str:
    """A path as it can be printed: bytes that are not UTF-8 as \\xNN."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _state_of(ws: Workspace, config: Config, plan: Plan, target: str, raw_rel: str | None) -> State:
    stat = plan.article_stat(target)
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
    raw_stat = plan.raw_stat(raw_rel)
    current = plan.cache.raw_fingerprint(raw_rel, raw_stat)
    if current is None:
        current = fingerprint(_read(ws.raw / raw_rel), config.fingerprint)
        plan.cache.remember_raw(raw_rel, raw_stat, current)
    if stored == current:
        return State.FRESH
    if algorithm_of(stored) not in (None, config.fingerprint):
        return State.FRESH if matches(_read(ws.raw / raw_rel), stored) else State.STALE
    return State.STALE


def read_row(path: Path, target: str) -> Any:
    """Return the catalog row of an article as it is on disk."""
    from skillwiki import catalog

    try:
        data = _read(path)
        meta = split(decode(data, path, len(data) + 1), path).meta
    except (OSError, InputError):
        meta = {}
    return catalog.row(target, meta)


def read_facts(path: Path, target: str) -> Facts:
    """Parse an article's frontmatter: its source fingerprint, compiler, and hand edits."""
    from skillwiki import catalog

    data = _read(path)
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


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, os.fstat(fd).st_size + 1)
    finally:
        os.close(fd)


def compile_workspace(
    ws: Workspace,
    config: Config,
    *,
    force: bool = False,
    progress: Progress | None = None,
    trust_articles: bool = False,
) -> CompileResult:
    """Compile what is new or stale, drop orphans, refresh index.md/index.json and the log.

    `trust_articles` (for the read commands) lists wiki/ by name only: see make_plan.
    """
    trust_articles = trust_articles and not force
    generation = _generation(ws)
    plan = make_plan(ws, config, trust_articles=trust_articles)
    if not plan.pending(force) and not plan.temps and _indexes_current(ws, plan):
        result = CompileResult(
            plan.count(),
            kept_edited=plan.edited(),
            problems=plan.problems,
            articles=lambda: plan.wiki_stats,
            entry_of=partial(plan.entry_json, ws),
        )
    else:
        with fsio.workspace_lock(ws, config.lock_timeout):
            if _generation(ws) != generation:  # another writer finished meanwhile: look again
                plan = make_plan(ws, config, trust_articles=trust_articles)
            result = _apply(ws, config, plan, force, progress)
    since = plan.cache.saved_ns
    now = time.time_ns()
    plan.renew_records(force, now)
    statcache.save(cache_path(ws), plan.cache, config.fingerprint, now)
    if not plan.cache.dirty:
        result.token = str(plan.cache.saved_ns)
    if since:
        result.since = str(since)
        for key in plan.looked:
            files = result.looked.setdefault(key[0], {})
            for name, stat in plan.files_of(key)[1].items():
                files[key[0] + name] = stat
                plan.looked_articles.add(key[0] + name)
        result.covers = partial(_covers, plan)
    return result


def _covers(plan: Plan, rel: str) -> bool:
    """Tell whether an article's folder or bucket was looked into (whatever its buckets were)."""
    folder = statcache.folder_of(rel)
    count = plan.cache.buckets.get(folder)
    if count is None:  # the folder is gone
        return any(key[0] == folder for key in plan.looked)
    if count == 1:
        return (folder, 1, 0) in plan.looked
    name = rel[len(folder) :]
    if name in plan.wiki_folders.get(folder, {}):  # there now: in a looked bucket, or not
        return rel in plan.looked_articles
    return (folder, count, statcache.bucket_of(name, count)) in plan.looked


def _generation(ws: Workspace) -> tuple[int, int, int] | None:
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
    from skillwiki import catalog

    expected_md, expected_json = catalog.render(plan.rows(ws))
    current = _same_bytes(ws.index_md, expected_md) and _same_bytes(ws.index_json, expected_json)
    if current:
        plan.cache.remember_indexes(stats)
    return current


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


BATCH = 500  # articles rendered, then written to disk together


def _apply(
    ws: Workspace, config: Config, plan: Plan, force: bool, progress: Progress | None
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
            plan.set_article(entry.article, None)
            plan.cache.forget_article(entry.article)
            plan.facts.pop(entry.article, None)
            result.removed.append(entry.article)
    _compile_all(ws, config, plan, [entry for entry in pending if entry.raw], result, progress)
    result.kept_edited = ([] if force else plan.edited()) + result.changed_meanwhile
    if result.removed or result.rows_changed or not indexes_known:
        _write_indexes(ws, plan, result)
    # else: only bodies changed, every catalog row is the same: index.md/index.json stand.
    result.articles = lambda: plan.wiki_stats
    new_rows = result.new_rows
    result.entry_of = lambda target: (
        new_rows[target][2] if target in new_rows else plan.entry_json(ws, target)
    )
    if result.refreshed or result.indexes_written:
        fsio.append_log(ws, "compile", _log_details(result))
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
    jobs = [
        (raw, entry.article, str(ws.raw / raw), config.fingerprint, config.max_file_bytes)
        for entry in todo
        if (raw := entry.raw) is not None
    ]
    compiled = parallel.imap(_compile_one, jobs)
    for start in range(0, len(todo), BATCH):
        batch = todo[start : start + BATCH]
        _write_batch(ws, plan, list(zip(batch, islice(compiled, len(batch)), strict=True)), result)
        if progress is not None:
            progress(min(start + BATCH, len(todo)), len(todo))
    if len(result.headings) >= headcache.MIN_ARTICLES:
        names = {folder + name for folder, files in plan.wiki_folders.items() for name in files}
        headcache.save(ws, result.headings, names)


def _write_indexes(ws: Workspace, plan: Plan, result: CompileResult) -> None:
    from skillwiki import catalog

    for target, row in result.new_rows.items():
        stat = plan.article_stat(target)
        assert stat is not None
        plan.cache.rows.put(target, stat, row)
    index_md, index_json = catalog.render(plan.rows(ws, result.new_rows))
    written = fsio.write_many([(ws.index_md, index_md), (ws.index_json, index_json)])
    result.indexes_written = any(written)
    plan.cache.remember_indexes((statcache.stat_of(ws.index_md), statcache.stat_of(ws.index_json)))


# raw fingerprint, article, catalog row, (body fingerprint, headings) for the search index
Compiled = tuple[str, bytes, Any, tuple[str, tuple[str, ...]]] | Problem


def _compile_one(job: tuple[str, str, str, str, int]) -> Compiled:
    """Compile one raw file into its article's bytes and catalog row (in a worker, if many)."""
    from skillwiki import catalog
    from skillwiki.article import render

    raw_rel, target, path, algorithm, max_bytes = job
    where = f".wiki/raw/{raw_rel}"
    try:
        data = _read(Path(path))
        raw_fp = fingerprint(data, algorithm)
        rendered = render(raw_rel, split(decode(data, where, max_bytes), where), raw_fp, algorithm)
    except InputError as exc:
        return Problem(exc.path or where, exc.detail)
    headings = rendered.headings
    if headings is None:  # compile cannot tell them from the raw file: parse the article
        from skillwiki import markdown

        outline = markdown.analyze(body_of(rendered.text))
        headings = tuple(heading.text for heading in outline.headings if heading.level > 1)
    told = (str(rendered.meta["compiled_fingerprint"]), headings)
    return raw_fp, rendered.text.encode(), tuple(catalog.row(target, rendered.meta)), told


def _changed_since_planned(ws: Workspace, plan: Plan, article: str) -> bool:
    """Tell whether an article was created, changed or removed since the plan looked at it
    (a hand edit made while compile ran): its stat then differs from the planned one."""
    try:
        now: Stat | None = statcache.stat_of(ws.wiki / article)
    except OSError:
        now = None
    return now != plan.article_stat(article)


def _write_batch(
    ws: Workspace, plan: Plan, batch: list[tuple[Entry, Compiled]], result: CompileResult
) -> None:
    """Write a batch of compiled articles together and record what they are."""
    done: list[tuple[Entry, bytes, str, Facts, tuple[str, ...]]] = []
    for entry, compiled in batch:
        if isinstance(compiled, Problem):
            result.problems.append(compiled)
            continue
        raw_fp, text, row, told = compiled
        if _changed_since_planned(ws, plan, entry.article):
            result.changed_meanwhile.append(entry.article)  # someone's edit: left alone
            continue
        result.headings[entry.article] = told
        facts = Facts(raw_fp, COMPILER, False, row_key(row))
        old = plan.facts.get(entry.article)
        result.rows_changed = result.rows_changed or old is None or old.row_key != facts.row_key
        done.append((entry, text, raw_fp, facts, row))
    written = fsio.write_many([(ws.wiki / entry.article, text) for entry, text, *_ in done])
    for (entry, _, raw_fp, facts, row), was_written in zip(done, written, strict=True):
        assert entry.raw is not None
        if was_written:
            result.written.append(entry.article)
        stat = statcache.stat_of(ws.wiki / entry.article)
        plan.set_article(entry.article, stat)
        plan.facts[entry.article] = facts
        plan.cache.remember_article(entry.article, stat, tuple(facts))
        result.new_rows[entry.article] = row
        plan.cache.remember_raw(entry.raw, statcache.stat_of(ws.raw / entry.raw), raw_fp)


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
