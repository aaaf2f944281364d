"""The freshness of an article: its states (fresh, new, stale, orphan, edited), what its
frontmatter says about them, and the file-by-file look at a folder (or bucket) whose record
could not answer for it, hashing only the files whose stat changed since the cache learned
them."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skillwiki import COMPILER
from skillwiki.config import Config
from skillwiki.errors import InputError
from skillwiki.fingerprint import algorithm_of, fingerprint, matches, xxh3
from skillwiki.frontmatter.documents import decode, split
from skillwiki.statcache import Folder, Key, Stat, older_than, read_with_stat
from skillwiki.workspace import Workspace, article_rel

if TYPE_CHECKING:
    from skillwiki.compiler.plan import Plan


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


class Problem(NamedTuple):
    """A raw file that could not be compiled, and why."""

    path: str
    message: str


class Facts(NamedTuple):
    """What an article's frontmatter says, as far as freshness and the catalog need it."""

    source_fingerprint: str | None
    compiler: str | None
    edited: bool
    row_key: str | None  # fingerprint of its catalog row: unchanged rows need no new index
    # xxh3 of the article's bytes these facts were learned from: where its stat is too recent
    # for the cache to vouch for them (as right after a compile wrote it), its bytes do
    digest: int


def todo(force: bool) -> set[State]:
    """The states a compile acts on."""
    return {State.NEW, State.STALE, State.ORPHAN} | ({State.EDITED} if force else set())


def plan_key(
    ws: Workspace, config: Config, plan: Plan, key: Key, raw: Folder, wiki: Folder
) -> None:
    """Plan one key file by file: the common case (both files known to the cache, the
    fingerprints equal) is decided from the cache's tables; anything else by state_of."""
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
        state = state_of(ws, config, plan, target, source)
        if state is State.FRESH:
            fresh.append((target, source))
        else:
            plan.others.append(Entry(target, source, state))
    for name in list(wiki):  # state_of drops an article that went since it was listed
        if folder + name not in expected:
            target = folder + name
            plan.others.append(Entry(target, None, state_of(ws, config, plan, target, None)))
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


def state_of(ws: Workspace, config: Config, plan: Plan, target: str, raw_rel: str | None) -> State:
    """The state of an article (and of its raw file, None for none), its facts read from the
    cache where their stat still holds and from the article otherwise."""
    stat = plan.listing.article_stat(target)
    if stat is None:
        return State.NEW
    known = plan.cache.article_facts(target, stat)
    if known is not None:
        facts = Facts._make(known)
    else:
        try:
            facts = _learned(ws, plan, target, stat)
        except FileNotFoundError:  # removed since it was listed (by another writer, a person)
            plan.listing.set_article(target, None)
            return State.NEW if raw_rel is not None else State.ORPHAN
    plan.facts[target] = facts
    if facts.edited:
        return State.EDITED
    if raw_rel is None:
        return State.ORPHAN
    stored = facts.source_fingerprint
    if facts.compiler != COMPILER or stored is None:
        return State.STALE
    return _source_state(ws, config, plan, raw_rel, stored)


def _learned(ws: Workspace, plan: Plan, target: str, stat: Stat) -> Facts:
    """An article's facts, where the cache cannot vouch for them by its stat alone: those it
    holds at this very stat if the article's bytes still have the digest they were learned
    from (git's answer to a racily clean file: look at the content), else read from the
    article and remembered. After a compile every article it wrote is too recent to be
    vouched for by its stat; hashing one costs a fraction of parsing its frontmatter."""
    path = ws.wiki / target
    data = read_bytes(path)
    recent = plan.cache.article_facts(target, stat, recent=True)
    if recent is not None and (facts := Facts._make(recent)).digest == xxh3(data):
        return facts
    facts = facts_of(data, path, target)
    plan.cache.remember_article(target, stat, tuple(facts))
    return facts


def _source_state(ws: Workspace, config: Config, plan: Plan, raw_rel: str, stored: str) -> State:
    """Fresh when the raw file's fingerprint is the one the article was compiled from (by
    another fingerprint algorithm too, checked against the file), stale otherwise."""
    raw_stat = plan.listing.raw_stat(raw_rel)
    current = plan.cache.raw_fingerprint(raw_rel, raw_stat)
    try:
        if current is None:
            current = fingerprint(read_bytes(ws.raw / raw_rel), config.fingerprint)
            plan.cache.remember_raw(raw_rel, raw_stat, current)
        if stored == current:
            return State.FRESH
        if algorithm_of(stored) not in (None, config.fingerprint):
            return State.FRESH if matches(read_bytes(ws.raw / raw_rel), stored) else State.STALE
    except FileNotFoundError:  # removed since it was listed: the compile finds it gone
        pass
    return State.STALE


def read_row(path: Path, target: str) -> Any:
    """Return the catalog row of an article as it is on disk (that of no frontmatter when it
    cannot be read)."""
    from skillwiki.compiler import catalog

    try:
        data = read_bytes(path)
        meta = split(decode(data, path, len(data) + 1), path).meta
    except (OSError, InputError):
        meta = {}
    return catalog.row(target, meta)


def facts_of(data: bytes, path: Path, target: str) -> Facts:
    """Parse an article's frontmatter (its bytes `data`, read from `path`): its source
    fingerprint, compiler, and hand edits."""
    from skillwiki.compiler import catalog

    try:
        document = split(decode(data, path, len(data) + 1), path)
    except InputError:
        return Facts(None, None, True, None, xxh3(data))
    meta = document.meta
    stored = meta.get("compiled_fingerprint")
    edited = not (isinstance(stored, str) and matches(document.body.encode(), stored))
    sources = meta.get("source_fingerprints")
    source = None
    if isinstance(sources, list) and sources and isinstance(sources[0], str):
        source = sources[0].rpartition("=")[2] or None
    compiler = meta.get("compiler") if isinstance(meta.get("compiler"), str) else None
    return Facts(source, compiler, edited, row_key(catalog.row(target, meta)), xxh3(data))


def row_key(row: Any) -> str:
    """Fingerprint a catalog row (its index.json entry holds every field of it)."""
    return fingerprint(row[2].encode())


def read_bytes(path: Path) -> bytes:
    """A file's bytes, read as read_with_stat reads them."""
    return read_with_stat(path)[0]
