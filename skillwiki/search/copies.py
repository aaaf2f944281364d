"""Copies of one page among a query's hits, shown as one hit that names the others.

A versioned or translated tree holds each page once per version or language (`v23.1/install.md`,
`v23.2/install.md`; tldr's `pages/common/tar.md`, `pages.de/common/tar.md`), and a query finds
all of them, one after another. Two hits are copies of one page when the folders `[lint] copies`
names are all that tells their paths apart (`page_of`; SW008 reads the same setting, so one
setting says which folders hold copies), or, with no setting needed, when they have one title
and near the same words (a tree copied whole under another folder).

Of a page's copies the hit shows one (`lead`): the one that holds the most of the query's words
(a query in German finds the German copy), then the one in the first folder `[search] prefer`
names (the current version), then the best ranked. The group keeps the place of its best copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from typing import NamedTuple, Protocol, TypeVar

from skillwiki.search.text import words

_SOURCES = "\n## Sources\n"  # the back-link to the raw files that the compiler adds
_COPY = "\x00"  # stands for the copies folder in a page's path: no folder is named so

# The share of their distinct words two pages of one title have in common at least, to be
# copies of one page with no folder named: a version that adds a section stays a copy, and two
# pages that only share a title ("Overview", "Introduction") are not.
NEAR_COPY = 0.8


def page_of(rel: str, copies: Sequence[str]) -> str:
    """The page a path below wiki/ is a copy of: the path with each folder whose name matches
    one of the `copies` patterns put as one mark (`docs/v23.1/a.md` and `docs/v23.2/a.md`
    are one page for `v[0-9]*`). Without patterns, every path is its own page."""
    if not copies:
        return rel
    *folders, name = rel.split("/")
    marked = [_COPY if any(fnmatchcase(f, p) for p in copies) else f for f in folders]
    return "/".join([*marked, name])


def preference(rel: str, prefer: Sequence[str]) -> int:
    """How far down `prefer` (folder-name patterns) the first pattern one of the path's folders
    matches stands (len(prefer): none does)."""
    folders = rel.split("/")[:-1]
    for place, pattern in enumerate(prefer):
        if any(fnmatchcase(folder, pattern) for folder in folders):
            return place
    return len(prefer)


class Copies(NamedTuple):
    """Which folders hold copies of one tree (`[lint] copies`) and whose copies a hit shows
    first (`[search] prefer`), as folder-name globs."""

    folders: tuple[str, ...] = ()
    prefer: tuple[str, ...] = ()


NO_COPIES = Copies()  # no folders named: copies are found by their titles and words alone


class Page(Protocol):
    """What grouping reads of a ranked page: its path below wiki/ and its title."""

    @property
    def path(self) -> str: ...
    @property
    def title(self) -> str: ...


P = TypeVar("P", bound=Page)


def grouped(
    pages: Sequence[P], copies: Copies, words_of: Callable[[P], frozenset[str] | None]
) -> list[list[P]]:
    """The ranked `pages` in groups of copies of one page, each group at the place of its best
    and in rank order within. `words_of` gives a page's distinct words (None: unreadable), and
    is asked only of pages whose title another one has."""
    groups: list[list[P]] = []
    by_page: dict[str, list[P]] = {}
    by_title: dict[str, list[list[P]]] = {}
    seen: dict[int, frozenset[str] | None] = {}

    def read(page: P) -> frozenset[str] | None:
        if id(page) not in seen:
            seen[id(page)] = words_of(page)
        return seen[id(page)]

    for page in pages:
        key = page_of(page.path, copies.folders)
        title = " ".join(page.title.split()).lower()
        group = by_page.get(key) if copies.folders else None
        if group is None:
            group = next(
                (g for g in by_title.get(title, ()) if _near(read(g[0]), read(page))), None
            )
        if group is None:
            group = []
            groups.append(group)
            by_title.setdefault(title, []).append(group)
        group.append(page)
        by_page.setdefault(key, group)
    return groups


def _near(one: frozenset[str] | None, other: frozenset[str] | None) -> bool:
    """Whether two pages' distinct words are near the same (NEAR_COPY)."""
    if one is None or other is None or not (one or other):
        return False
    return len(one & other) >= NEAR_COPY * len(one | other)


def lead(group: Sequence[P], prefer: Sequence[str], held: Callable[[P], int]) -> P:
    """The copy a group's hit shows: the most of the query's words held (`held`), then the
    first folder of `prefer`, then the best ranked (the first of `group`)."""
    ranked = {id(page): place for place, page in enumerate(group)}
    return min(
        group, key=lambda page: (-held(page), preference(page.path, prefer), ranked[id(page)])
    )


def distinct_words(text: str) -> frozenset[str]:
    """A page's distinct words as the index cuts them, to compare it with another, without the
    back-link to its raw file that the compiler adds (its path differs between copies)."""
    return frozenset(words(text.partition(_SOURCES)[0]))
