"""The one question a plan asks the stat cache: of every listed folder (or bucket of a big
one), is it answered by a record the cache still trusts, or must its files be looked into?

The walk keeps the listing's bookkeeping (the buckets of each folder, the records that
answered, the keys seen) so that the records can be renewed after the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, NamedTuple

from skillwiki.statcache.listing import Listing
from skillwiki.statcache.records import Key, Record, Summary, buckets_for, digest, names_digest
from skillwiki.statcache.scan import Folder, Stat

if TYPE_CHECKING:  # what a watcher tells: the command line never has it, nor loads it
    from skillwiki.statcache.changes import Changes


class Answer(NamedTuple):
    """One key of a folder: the trusted record that answers for its files (its `others` and
    `problems` hold for them; `raw` and `wiki` are then left empty), or None and its files as
    listed now, to be looked into file by file (`wiki` then holds each article's stat, even
    where only names were listed)."""

    key: Key
    raw: Folder
    wiki: Folder
    record: Record | None


def answers(
    listing: Listing,
    changes: Changes | None,
    *,
    trust_articles: bool,
    look_apart: Collection[str] = (),
) -> Iterator[Answer]:
    """Answer every folder of the listing, in the order of their names, key by key.

    `changes`: what changed since the run that left the cache, when that cache was taken over
    (see open_cache); then the records of what nothing changed in answer without digests.
    With `trust_articles` the articles were listed by name only and their stats are not
    compared. The folders of `look_apart` are looked into whatever their records say. Once
    the walk is done, the records of the keys no answer named are to be renewed too (their
    files are gone): the listing is in step with the cache only when the walk is consumed
    whole.
    """
    walk = _Walk(listing, changes, trust_articles, look_apart)
    for folder in sorted(listing.raw_folders.keys() | listing.wiki_folders.keys()):
        yield from walk.folder(folder)
    listing.forget_unseen(walk.seen)


def matches(
    known: Record | Summary, raw: Folder, wiki: Folder, wiki_stat: Stat | None, trust: bool
) -> bool:
    """Tell whether a record's (or summary's) digests name these files as they are listed now
    (the articles' stats not compared when they were listed by name only)."""
    return (
        known.raw == digest(raw)
        and known.names == names_digest(wiki, wiki_stat)
        and (trust or known.articles == digest(wiki))
    )


class _Walk:
    """One walk over the folders, sorting out which of them (or of their buckets) their
    records answer for and which are looked into file by file."""

    def __init__(
        self,
        listing: Listing,
        changes: Changes | None,
        trust_articles: bool,
        look_apart: Collection[str],
    ) -> None:
        self.listing = listing
        self.changes = changes
        self.trust_articles = trust_articles
        self.look_apart = look_apart
        self.seen: set[Key] = set()
        self.untouched = changes.untouched_records(listing.cache) if changes is not None else {}

    def folder(self, folder: str) -> Iterator[Answer]:
        """Answer a folder by what is known of it, or each of its keys the same way; the
        others are to be looked into."""
        listing = self.listing
        raw_files = listing.raw_folders.get(folder, {})
        wiki_files = listing.wiki_folders.get(folder, {})
        count = buckets_for(max(len(raw_files), len(wiki_files)))
        alike = self._keys_alike(folder, count)
        listing.cache.buckets[folder] = count
        if folder not in self.look_apart:
            whole = self._whole_folder(folder, count)
            if whole is not None:
                for key, record in whole:
                    yield self._answered(key, record)
                return
        raws, wikis = listing.spread(folder, count)
        for key in sorted(raws.keys() | wikis.keys()):
            self.seen.add(key)
            raw = raws.get(key, {})
            wiki = wikis.get(key, {})
            if folder not in self.look_apart:
                trusted = self._by_record(key, alike, raw, wiki)
                if trusted is not None:
                    yield self._answered(key, trusted)
                    continue
            if self.trust_articles and wiki:
                wiki = listing.stat_listed(key, wiki)
            yield Answer(key, raw, wiki, None)

    def _answered(self, key: Key, record: Record) -> Answer:
        """A key answered by its record, kept as the listing's."""
        self.listing.trusted_records[key] = record
        return Answer(key, {}, {}, record)

    def _keys_alike(self, folder: str, count: int) -> Callable[[Key], bool]:
        """The keys of a folder whose trusted records answer without digests (see
        Changes.keys_alike); without the cache taken over, none."""
        if self.changes is None:
            return _no_key
        return self.changes.keys_alike(self.listing, folder, count)

    def _by_record(
        self, key: Key, alike: Callable[[Key], bool], raw: Folder, wiki: Folder
    ) -> Record | None:
        """A key's record, if it is trusted and still names its files."""
        record = self.listing.cache.trusted_record(key)
        if record is None:
            return None
        wiki_stat = self.listing.folder_stats.get(key[0])
        if not (alike(key) or matches(record, raw, wiki, wiki_stat, self.trust_articles)):
            return None
        return record

    def _whole_folder(self, folder: str, count: int) -> list[tuple[Key, Record]] | None:
        """The records that answer a whole folder, if it can be answered whole: the last run's
        records when nothing in it changed since, or, for a big folder, its summary's."""
        answers = self.untouched.get(folder)
        if answers is not None and answers[0][0][1] == count:
            self.seen.update(key for key, _ in answers)
            return answers
        if count > 1:
            known = self._by_summary(folder)
            if known is not None:  # the records of every key the folder now has
                self.seen.update(key for key, _ in known)
                return known
        return None

    def _by_summary(self, folder: str) -> list[tuple[Key, Record]] | None:
        """Every bucket's record of a big folder, when the folder matches its summary."""
        listing = self.listing
        known = listing.cache.folder_summary(folder)
        if known is None or not matches(
            known[0],
            listing.raw_folders.get(folder, {}),
            listing.wiki_folders.get(folder, {}),
            listing.folder_stats.get(folder),
            self.trust_articles,
        ):
            return None
        return known[1]


def _no_key(key: Key) -> bool:
    """No key: the answer where no key is known alike (changes.no_key, without loading it)."""
    return False
