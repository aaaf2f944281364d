"""A ranked hit and the signals that ranked it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


def squashed(bm25: float) -> float:
    """BM25 into [0, 1): the part of a hit's relevance below its count of words."""
    positive = max(bm25, 0.0)
    return positive / (1.0 + positive)


class Signals(NamedTuple):
    """What ranked a hit: the query's words it holds, how many of them it holds close together
    (near.py; None: not looked at, it could not rank among the best), its BM25, how many
    other articles refer to it and what that multiplied its BM25 by, and its places in the two
    orders the text ranking fuses: by the words held close together and by BM25. With
    semantic search, its place in the text ranking and in each ranking by meaning, the word
    vectors' and the sentence encoder's (None: not among that ranking's candidates, or that
    ranking is not on), and the cosine similarity of its vectors to the query's in each; and
    whether the query names its whole title (cover.py)."""

    words: int
    bm25: float
    referred_by: int
    boost: float
    fused: bool = False
    text_rank: int | None = None
    semantic_rank: int | None = None
    similarity: float | None = None
    near: int | None = None
    proximity_rank: int | None = None
    bm25_rank: int | None = None
    sentence_rank: int | None = None
    sentence_similarity: float | None = None
    titled: bool = False


@dataclass(frozen=True)
class Hit:
    path: str  # relative to the workspace root
    title: str
    type: str
    score: float
    snippet: str
    signals: Signals | None = field(default=None, compare=False)  # kept out of plain output
    copies: tuple[str, ...] = ()  # the other copies of its page found (copies.py), best first

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The hit as `query --json` prints it, `copies` only where it has any; with `explain`,
        what ranked it too. (Made field by field: `asdict` deep-copies each value, and would
        give the signals, a named tuple, as a list.)"""
        shown: dict[str, Any] = {
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "score": self.score,
            "snippet": self.snippet,
        }
        if self.copies:
            shown["copies"] = list(self.copies)
        if explain:
            signals = self.signals
            shown["signals"] = None if signals is None else signals._asdict()
        return shown

    def relevance(self, terms: int) -> float:
        """How well the hit answers a query of `terms` words, 0 to 1: the words it holds close
        together plus its BM25 (times its boost) squashed, as a share of the most a hit can
        reach (every word held together, BM25 near its top); fused with semantic search, its
        score, a share of the most it can reach (first in every ranking). (The text ranking's
        score is a share of places, and says nothing of how well the first page matches.)"""
        signals = self.signals
        if signals is None or signals.fused:
            return min(1.0, self.score)
        if not terms:
            return 0.0
        together = signals.words if signals.near is None else signals.near
        return min(1.0, (together + squashed(signals.bm25 * signals.boost)) / (terms + 1))
