"""The candidates whose whole title the query names: "add middleware" names the page titled
Middleware, which a page that says "add" often and "middleware" once must not pass."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from skillwiki.search.terms import stems_of, word_stems
from skillwiki.search.text import STOP_WORDS, words

# What a title the query covers adds to a page's count of the query's words held together:
# one word more, so that it passes the pages holding as many words as it does, and BM25 still
# orders the pages that hold one word more than it.
COVER = 1.0


class Titled(Protocol):
    """A candidate: its id in the index and its title."""

    @property
    def id(self) -> int: ...
    @property
    def title(self) -> str: ...


def covered(rows: Iterable[Titled], kept: Sequence[str]) -> dict[int, float]:
    """COVER for each candidate whose title's every word (stop words aside) is one of the
    query's words `kept`, in any form the index's stemmer joins ("Middlewares" for
    "middleware"), and names at least half of them: a one-word title that the query names in
    passing ("sort" for "remove duplicate lines from sorted input") is no page the query is
    about. A title of stop words alone, or of none, is covered by no query."""
    rows = list(rows)
    stems_of([*kept, *(word for row in rows for word in words(row.title))])
    query = [_forms(word) for word in kept]
    return {row.id: COVER for row in rows if _covers(query, row.title)}


@functools.lru_cache(maxsize=1 << 14)  # a server meets the same words and titles again
def _forms(word: str) -> frozenset[str]:
    """A word and its stems as the index makes them."""
    return frozenset((word, *word_stems(word)))


def _covers(query: Sequence[frozenset[str]], title: str) -> bool:
    """Whether each word of `title` but its stop words is one of the `query`'s words (each as
    its forms), and the title names at least half of them."""
    found = _title_forms(title)
    if not found or not all(any(forms & each for each in query) for forms in found):
        return False
    named = sum(1 for each in query if any(forms & each for forms in found))
    return 2 * named >= len(query)


@functools.lru_cache(maxsize=1 << 14)
def _title_forms(title: str) -> tuple[frozenset[str], ...]:
    """The forms of each word of a title but its stop words."""
    return tuple(_forms(word) for word in words(title) if word not in STOP_WORDS)


def with_cover(part: Mapping[int, float], cover: Mapping[int, float]) -> dict[int, float]:
    """Each candidate's `part` of its key in the order by words held together, plus what its
    title's cover adds."""
    return {rowid: value + cover.get(rowid, 0.0) for rowid, value in part.items()}
