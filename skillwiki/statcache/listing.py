"""One run's listing of raw/ and wiki/, and the bookkeeping that keeps the cache's records in
step with it: which folders were answered by their records, which were looked into file by
file, which this run wrote into, and each article's stat as the run's writes left it."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from skillwiki.statcache.cache import StatCache, record_of
from skillwiki.statcache.records import Key, Record, bucket_of, names_digest, split
from skillwiki.statcache.scan import Folder, Stat, folder_of, stat_files, stat_of

# What a key's record says beside its files: (article, raw, state) of the articles not fresh,
# and (path, message) of the raw files that could not be compiled.
Others = tuple[tuple[str, str | None, str], ...]
Problems = tuple[tuple[str, str], ...]


@dataclass
class Listing:
    """The files of raw/ and wiki/ as one run listed them, and which of the cache's records
    answered for them; kept in step with the run's own writes."""

    raw_folders: dict[str, Folder]  # folder -> file name -> stat
    wiki_folders: dict[str, Folder]  # the same; a stat is None where only names were listed
    cache: StatCache
    wiki_root: Path  # where articles listed by name only can be stat'ed
    folder_stats: dict[str, Stat]  # of wiki/'s folders, as scanned (or after this run's writes)
    looked: set[Key] = field(default_factory=set)  # folders (or buckets) planned file by file
    trusted_records: dict[Key, Record] = field(default_factory=dict)  # those their records answered
    written: set[str] = field(default_factory=set)  # wiki/ folders this run wrote into
    grown: set[str] = field(default_factory=set)  # those it wrote a new article into
    # (folder, buckets) -> its raw files and articles spread over its keys, where computed
    splits: dict[tuple[str, int], tuple[dict[Key, Folder], dict[Key, Folder]]] = field(
        default_factory=dict
    )
    _raw_stats: dict[str, Stat] | None = None
    _wiki_stats: dict[str, Stat] | None = None
    _looked_articles: set[str] = field(default_factory=set)
    # The listing this one was made from (relist_folders), whose spreads it may take over
    # until `forget_unseen`, and the names changed since, by folder (raw/ and wiki/ alike).
    previous: Listing | None = None
    changed_names: Mapping[str, Collection[str]] = field(default_factory=dict)

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
                unknown = [name for name, stat in files.items() if stat is None]
                recorded = self.cache.article_stats(folder, unknown) if unknown else {}
                for name, stat in files.items():
                    if stat is None:
                        stat = files[name] = recorded.get(name) or self.article_stat(folder + name)
                        if stat is None:  # gone
                            continue
                    found[folder + name] = stat
            self._wiki_stats = found
        return self._wiki_stats

    def article_stat(self, rel: str) -> Stat | None:
        """An article's stat; None when it does not exist."""
        folder = folder_of(rel)
        files = self.wiki_folders.get(folder)
        name = rel[len(folder) :]
        if files is None or name not in files:
            return None
        stat: Stat | None = files[name]
        if stat is None:  # listed by name only: its recorded stat, or a look at it now
            stat = self.cache.article_stat(rel)
            if stat is None:
                try:
                    stat = stat_of(self.wiki_root / rel)
                except OSError:
                    return None
            files[name] = stat
        return stat

    def raw_stat(self, rel: str) -> Stat:
        folder = folder_of(rel)
        stat: Stat = self.raw_folders[folder][rel[len(folder) :]]
        return stat

    def set_article(self, rel: str, stat: Stat | None) -> None:
        """Record that an article was written (its new stat) or removed (None)."""
        folder = folder_of(rel)
        name = rel[len(folder) :]
        self.written.add(folder)
        places = [self.wiki_folders.setdefault(folder, {})]
        count = self.cache.buckets.get(folder, 1)
        spread = self.splits.get((folder, count))
        if spread is not None:  # keep the spread in step too
            key = self.cache.key_of(rel)
            files = spread[1].setdefault(key, {})
            if count > 1:  # on a copy of the key's dict, which the previous listing may hold
                files = spread[1][key] = dict(files)
            places.append(files)
        if stat is not None and name not in places[0]:
            self.grown.add(folder)
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

    def spread(self, folder: str, count: int) -> tuple[dict[Key, Folder], dict[Key, Folder]]:
        """A folder's raw files and articles spread over its `count` keys (computed once)."""
        found = self.splits.get((folder, count))
        if found is None:
            raw = self.raw_folders.get(folder, {})
            wiki = self.wiki_folders.get(folder, {})
            found = self.splits[folder, count] = self._spread_as_before(
                folder, count, raw, wiki
            ) or (split(folder, raw, count), split(folder, wiki, count))
        return found

    def _spread_as_before(
        self, folder: str, count: int, raw: Folder, wiki: Folder
    ) -> tuple[dict[Key, Folder], dict[Key, Folder]] | None:
        """The previous listing's spread of a folder, with this listing's stats (`raw`, `wiki`),
        when the folder holds the same names in the same order (then `split` would spread
        them the same way): a change to a file of a big folder need not hash every name
        again. The files of a key that holds no name changed since are those it held (stats
        included: but for the names changed, the folder's listing is the previous one's, see
        relist_folders): the previous dicts are taken as they are, for no one changes a
        spread's dict (set_article puts a copy in its place), so a look after one change does
        not rebuild them."""
        if self.previous is None or count == 1:  # one key: the folder itself, nothing to hash
            return None
        before = self.previous.splits.get((folder, count))
        then = (
            self.previous.raw_folders.get(folder, {}),
            self.previous.wiki_folders.get(folder, {}),
        )
        if before is None or list(raw) != list(then[0]) or list(wiki) != list(then[1]):
            return None
        changed = self.changed_buckets(folder, count)
        raws, wikis = (
            {
                key: {name: now[name] for name in files} if key[2] in changed else files
                for key, files in spread.items()
            }
            for spread, now in zip(before, (raw, wiki), strict=True)
        )
        return raws, wikis

    def stat_listed(self, key: Key, listed: Folder) -> Folder:
        """Stat the articles of a key that were listed by name only, keeping the folder and its
        spread in step (an article gone since it was listed drops out)."""
        folder, count, _ = key
        wiki = stat_files(self.wiki_root, folder, listed)
        wiki_files = self.wiki_folders.get(folder, {})
        for name in listed.keys() - wiki.keys():
            del wiki_files[name]
        wiki_files.update(wiki)
        self.spread(folder, count)[1][key] = wiki
        return wiki

    def forget_unseen(self, seen: set[Key]) -> None:
        """Once every folder was sorted out: the records of the keys not seen (their files
        are gone) are to be renewed too, and the previous listing, whose spreads were taken
        over where they could be, is let go."""
        self.looked |= self.cache.records.keys() - seen
        self.previous = None

    def changed_buckets(self, folder: str, count: int) -> set[int]:
        """The buckets of a folder (spread over `count`) that hold a name changed since the
        previous listing."""
        return {bucket_of(name, count) for name in self.changed_names.get(folder, ())}

    def files_of(self, key: Key) -> tuple[Folder, Folder]:
        """The raw files and articles a key covers now (none if its folder is split otherwise)."""
        folder, count, _ = key
        if self.cache.buckets.get(folder, 1) != count:
            return {}, {}
        raws, wikis = self.spread(folder, count)
        return raws.get(key, {}), wikis.get(key, {})

    def stat_written(self) -> None:
        """Take the stat of each wiki/ folder this run wrote into, as its writes left it: under
        the workspace lock, before another writer may write there too (a stat taken after
        would vouch for that write as this run's own)."""
        for folder in self.written:
            try:
                self.folder_stats[folder] = stat_of(self.wiki_root / folder)
            except OSError:
                self.folder_stats.pop(folder, None)

    def renew(
        self,
        now: int,
        others: Mapping[Key, Others],
        problems: Mapping[Key, Problems],
        pending: Callable[[Key], bool],
    ) -> None:
        """Give each key looked at a record of how its files are now (after any compile), with
        what the plan found in it; `pending` tells the keys that have work left.

        In a folder this run wrote into (under the lock), every key's record takes the
        folder's stat as the writes left it (stat_written), so that the run's own writes are
        not taken next time for someone else's.
        """
        keys = self.looked | {key for key in self.trusted_records if key[0] in self.written}
        orders: dict[str, dict[str, int]] = {}
        for key in sorted(keys):
            self.cache.renew(key, self._record(key, now, others, problems, pending(key), orders))
        self._summarize({key[0] for key in keys} | {folder for folder, _ in self.splits}, orders)

    def _as_listed(self, folder: str, files: Folder, orders: dict[str, dict[str, int]]) -> Folder:
        """A wiki/ folder's articles (or a key's share of them) in the order a listing of the
        folder gives, which the records' digests depend on: the articles this run added went
        last in this listing, and a record renewed with them there would not answer the next
        look. Where the folder does not hold them all (someone's change meanwhile), as they
        are: the record then does not match, and the next look goes through its files."""
        if folder not in self.grown:
            return files
        if folder not in orders:
            try:
                with os.scandir(self.wiki_root / folder) as entries:
                    orders[folder] = {entry.name: place for place, entry in enumerate(entries)}
            except OSError:
                orders[folder] = {}
        places = orders[folder]
        if any(name not in places for name in files):
            return files
        return {name: files[name] for name in sorted(files, key=places.__getitem__)}

    def _record(
        self,
        key: Key,
        now: int,
        others: Mapping[Key, Others],
        problems: Mapping[Key, Problems],
        pending: bool,
        orders: dict[str, dict[str, int]],
    ) -> Record | None:
        folder = key[0]
        raw, wiki = self.files_of(key)
        wiki = self._as_listed(folder, wiki, orders)
        if not raw and not wiki:
            return None
        answered = self.trusted_records.get(key)
        if answered is not None:  # only the folder's stat changed, by this run's writes
            return answered._replace(names=names_digest(wiki, self.folder_stats.get(folder)))
        return record_of(
            self.cache,
            key,
            raw,
            wiki,
            self.folder_stats.get(folder),
            others.get(key, ()),
            problems.get(key, ()),
            pending=pending,
            now=now,
            own_folder_stat=folder in self.written,
        )

    def _summarize(self, folders: set[str], orders: dict[str, dict[str, int]]) -> None:
        """Renew the summaries of the big folders among these."""
        for folder in folders:
            if self.cache.buckets.get(folder, 1) == 1:
                continue
            raw = self.raw_folders.get(folder, {})
            stat = self.folder_stats.get(folder)
            if not self.cache.all_trusted(folder):
                self.cache.summarize(folder, raw, None, stat)
                continue
            wiki = self.wiki_folders.get(folder, {})
            for name in [name for name, known in wiki.items() if known is None]:
                self.article_stat(folder + name)  # listed by name: its recorded stat
            known = {name: known for name, known in wiki.items() if known is not None}
            self.cache.summarize(folder, raw, self._as_listed(folder, known, orders), stat)

    def looked_articles(self) -> dict[str, dict[str, Stat]]:
        """Every article of the keys looked into, by folder, with its stat."""
        found: dict[str, dict[str, Stat]] = {}
        for key in self.looked:
            files = found.setdefault(key[0], {})
            for name, stat in self.files_of(key)[1].items():
                files[key[0] + name] = stat
                self._looked_articles.add(key[0] + name)
        return found

    def covers(self, rel: str) -> bool:
        """Tell whether an article's folder or bucket was looked into (whatever its buckets
        were); asked after looked_articles."""
        folder = folder_of(rel)
        count = self.cache.buckets.get(folder)
        if count is None:  # the folder is gone
            return any(key[0] == folder for key in self.looked)
        if count == 1:
            return (folder, 1, 0) in self.looked
        name = rel[len(folder) :]
        if name in self.wiki_folders.get(folder, {}):  # there now: in a looked bucket, or not
            return rel in self._looked_articles
        return (folder, count, bucket_of(name, count)) in self.looked


def _flat(folders: dict[str, Folder]) -> dict[str, Stat]:
    return {
        folder + name: stat for folder, files in folders.items() for name, stat in files.items()
    }
