"""Words stemmed together (`terms.stems_of`) get the stems each gets alone from the index's
tokenizer, on words of real pages: the batch is a fast path held equal to the one-word read."""

from __future__ import annotations

import sqlite3

import pytest

from skillwiki.search import terms
from skillwiki.search.schema import TOKENIZER
from skillwiki.search.text import words
from tests.support import corpora

MADE_UP = ["middlewares", "Running", "happy", "substitutions", "naïve", "x86_64", "重试", ""]


def _alone(word: str) -> tuple[str, ...]:
    """The stems of one word, read as the index's own vocabulary of a one-row table."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize = '{TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'row')")
    db.execute("INSERT INTO words(rowid, word) VALUES (1, ?)", (word,))
    return tuple(term for (term,) in db.execute("SELECT term FROM stems"))


def test_words_stemmed_together_are_stemmed_as_alone() -> None:
    together = terms.stems_of([*MADE_UP, "happy"])
    assert list(together) == MADE_UP
    assert together == {word: _alone(word) for word in MADE_UP}
    assert together["middlewares"] == ("middlewar",)
    assert all(terms.word_stems(word) == _alone(word) for word in MADE_UP)


@pytest.mark.corpus
def test_titles_of_real_pages_are_stemmed_as_alone() -> None:
    pages = sorted((corpora() / "docs" / "fastapi").rglob("*.md"))[:400]
    found = list(dict.fromkeys(w for page in pages for w in words(page.read_text()[:2000])))
    together = terms.stems_of(found)
    assert len(found) > 2000
    assert together == {word: _alone(word) for word in found}
