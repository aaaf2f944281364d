"""What changed since a run's listing, as a watcher of the files tells it, and what of the
stat cache still holds because of that: the records of folders nothing changed in, and the
buckets of a big folder that hold no changed name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from skillwiki.statcache.cache import StatCache
from skillwiki.statcache.listing import Listing
from skillwiki.statcache.records import Key, Record
from skillwiki.statcache.scan import folder_of


@dataclass(frozen=True)
class Changes:
    """A run's listing to start the next one from, and the paths below .wiki/ that changed
    since, as the kernel told them (files only: a folder that came is named by the files in
    it, and in `came`, to be listed whole; one that went or moved needs a whole listing)."""

    listing: Listing
    changed: frozenset[str]
    came: frozenset[str] = frozenset()  # the folders that came (with their files in changed)

    def below(self, top: str) -> set[str]:
        """The files changed below `top` ("raw/" or "wiki/"), relative to it."""
        return {path[len(top) :] for path in self.changed if path.startswith(top)}

    def came_below(self, top: str) -> set[str]:
        """The folders that came below `top`, relative to it."""
        return {path[len(top) :] for path in self.came if path.startswith(top)}

    def names_by_folder(self) -> dict[str, set[str]]:
        """The names of the files changed below raw/ and wiki/ alike, by folder (relative to
        raw/ and wiki/)."""
        named: dict[str, set[str]] = {}
        for rel in self.below("raw/") | self.below("wiki/"):
            folder = folder_of(rel)
            named.setdefault(folder, set()).add(rel[len(folder) :])
        return named

    def untouched_records(self, cache: StatCache) -> dict[str, list[tuple[Key, Record]]]:
        """The folders the last run answered wholly by their records, with those records, when
        nothing in them changed since (no file of theirs changed) and their records are the
        very ones it answered with (`cache` is the one it left, taken over, and none renewed
        since): the same records match the same files again, so they answer without their
        digests."""
        before = self.listing
        touched = {folder_of(path.partition("/")[2]) for path in self.changed}
        touched |= {key[0] for key in before.looked}
        mine: dict[str, list[tuple[Key, Record]]] = {}
        for key, record in before.trusted_records.items():
            if key[0] not in touched:
                mine.setdefault(key[0], []).append((key, record))
        held: dict[str, int] = {}
        for key in cache.records:
            held[key[0]] = held.get(key[0], 0) + 1
        return {
            folder: sorted(answers)
            for folder, answers in mine.items()
            if held.get(folder) == len(answers)
            and all(cache.records.get(key) is record and record.trusted for key, record in answers)
        }

    def keys_alike(self, listing: Listing, folder: str, count: int) -> Callable[[Key], bool]:
        """Of a folder with the same stat as the last run left it (no file created, removed or
        renamed in it since), the keys that hold no name changed since: their files are as the
        last run left them, and that run left each trusted record of the cache it hands over
        true of the files as it left them (it answered by it, or made it then; a record of a
        key it did not see, the folder spread over other buckets, it dropped), so such a record
        answers without digests. (Of a folder nothing changed in, untouched_records gives the
        records whole.) Asked only of the cache the last run left, taken over."""
        if count == 1 or listing.folder_stats.get(folder) != self.listing.folder_stats.get(folder):
            return no_key
        changed = listing.changed_buckets(folder, count)
        return lambda key: key[2] not in changed


def no_key(key: Key) -> bool:
    """No key: the answer where no key is known alike."""
    return False
