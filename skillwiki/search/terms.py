"""A query's words that count, and the FTS5 terms and phrases made of them; each word's
root and stems as the index makes them."""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence

from skillwiki.search import near
from skillwiki.search.schema import TOKENIZER
from skillwiki.search.text import (
    CJK,
    STOP_WORDS,
    words,
)

# The query's words that count: its first this many distinct words (stop words left out). Each
# word is a term FTS5 looks up, a pass over the candidates' postings and a word to look for
# in their pages: a pasted log made thousands of them. A question holds a few; a long prompt's
# first 64 words tell what it is about.
MAX_QUERY_WORDS = 64


def query_terms(text: str) -> tuple[list[str], list[str]]:
    """Turn free text into FTS5 terms, and phrases that reward the words standing together.

    Terms are the quoted words (stop words dropped); the last also matches as a prefix, for
    queries typed as they are thought. Boosts are each pair of neighbouring words as a phrase
    (but for two character pairs of one CJK run: _one_run) and all the words within ten
    tokens of each other: they only add to the score.
    """
    return terms_of(_kept(text))


def terms_of(kept: list[str]) -> tuple[list[str], list[str]]:
    """`query_terms` of the query's words that count."""
    terms = [f'"{word}"' for word in kept]
    if prefixed(kept):
        terms[-1] = f"({terms[-1]} OR {terms[-1]}*)"
    boosts = [
        f'"{left} {right}"'
        for left, right in zip(kept, kept[1:], strict=False)
        if not _one_run(left, right)
    ]
    if len(kept) > 2:
        boosts.append("NEAR(" + " ".join(f'"{word}"' for word in kept) + f", {near.NEAR_WORDS})")
    return terms, boosts


def _one_run(left: str, right: str) -> bool:
    """Whether two neighbouring words are overlapping character pairs of one CJK run (`同步`
    and `步两` of `同步两个目录`). As a phrase they would be three of the query's characters
    as written: a reward for a page worded as the query, which a question asked in other
    words does not get, while each pair, and the pairs held close together, count already."""
    return bool(CJK.fullmatch(left) and CJK.fullmatch(right)) and left[-1] == right[0]


def prefixed(kept: Sequence[str]) -> str | None:
    """The query's word that the index also matches by its start alone: the last, unless CJK
    or shorter than three letters."""
    if kept and not CJK.search(kept[-1]) and len(kept[-1]) >= 3:
        return kept[-1]
    return None


def _kept(text: str) -> list[str]:
    """The query's words that count: each once, stop words dropped unless all are."""
    return kept_of(words(text))


def kept_of(found: Sequence[str]) -> list[str]:
    """`_kept` of words already found. Each once even when all are stop words: a query that
    repeats one ("a a a …", a pasted log) made a term and a phrase of each repeat, and its time
    grew with their square. The first MAX_QUERY_WORDS only."""
    return distinct_words(found)[:MAX_QUERY_WORDS]


def distinct_words(found: Sequence[str]) -> list[str]:
    """The distinct words of `found` in order, stop words left out unless all are."""
    return list(dict.fromkeys(word for word in found if word not in STOP_WORDS)) or list(
        dict.fromkeys(found)
    )


def words_left_out(text: str) -> int:
    """How many distinct words of a query beyond its first MAX_QUERY_WORDS it is not searched
    for (0 for most queries)."""
    return max(0, len(distinct_words(words(text))) - MAX_QUERY_WORDS)


def word_root(term: str) -> str:
    """What a snippet marks of a query word, at a word's start: what the word shares with its
    stem as the index makes it (`substitut` of "substitutions", which finds "substituted"),
    and at least its first four letters (`happ` of "happy", whose stem is `happi`)."""
    if CJK.match(term) or len(term) <= 4:
        return term
    shared = max((len(os.path.commonprefix([stem, term])) for stem in word_stems(term)), default=0)
    return term[: max(4, shared)]


_STEMMER_LOCK = threading.Lock()


# Each word's stems as far as met: a server meets the same words again. Past this many, the
# words met are forgotten and met anew.
_STEMS: dict[str, tuple[str, ...]] = {}
MOST_STEMS = 1 << 15


def word_stems(word: str) -> tuple[str, ...]:
    """The index's own stems of a word: its tokenizer (SQLite's porter) run on it alone."""
    found = _STEMS.get(word)
    return stems_of([word])[word] if found is None else found


def stems_of(given: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each word's stems as `word_stems` gives them, the words not met before stemmed together
    in one pass of the tokenizer (a word a row), not one pass each."""
    wanted = list(dict.fromkeys(given))
    known = {word: stems for word in wanted if (stems := _STEMS.get(word)) is not None}
    new = [word for word in wanted if word not in known]
    if new:
        made: dict[str, set[str]] = {word: set() for word in new}
        with _STEMMER_LOCK:
            db = _stemmer()
            db.executemany("INSERT INTO words(rowid, word) VALUES (?, ?)", enumerate(new, 1))
            try:
                for term, row in db.execute("SELECT term, doc FROM stems"):
                    made[new[row - 1]].add(term)
            finally:
                db.execute("DELETE FROM words")
        if len(_STEMS) + len(new) > MOST_STEMS:
            _STEMS.clear()
        for word, terms in made.items():
            known[word] = _STEMS[word] = tuple(sorted(terms))
    return {word: known[word] for word in wanted}


@functools.cache
def _stemmer() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=False)  # used under _STEMMER_LOCK
    db.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize = '{TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'instance')")
    return db
