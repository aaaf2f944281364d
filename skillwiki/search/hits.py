"""A ranked hit and the signals that ranked it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class Signals:
    """What ranked a hit: the query's words it holds, how many of them it holds close together
    (near.py; None: not looked at, it could not rank among the best), its BM25, how many
    other articles refer to it and what that multiplied its BM25 by; with semantic search, its
    place in the text ranking and in the semantic one (None: not among that ranking's
    candidates) and the cosine similarity of its vector to the query's."""

    words: int
    bm25: float
    referred_by: int
    boost: float
    fused: bool = False
    text_rank: int | None = None
    semantic_rank: int | None = None
    similarity: float | None = None
    near: int | None = None


_SIGNALS = tuple(item.name for item in fields(Signals))


@dataclass(frozen=True)
class Hit:
    path: str  # relative to the workspace root
    title: str
    type: str
    score: float
    snippet: str
    signals: Signals | None = field(default=None, compare=False)  # kept out of plain output

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The hit as `query --json` prints it; with `explain`, what ranked it too. (Made field by
        field: `asdict` deep-copies each value.)"""
        shown: dict[str, Any] = {
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "score": self.score,
            "snippet": self.snippet,
        }
        if explain:
            signals = self.signals
            shown["signals"] = (
                None if signals is None else {name: getattr(signals, name) for name in _SIGNALS}
            )
        return shown

    def relevance(self, terms: int) -> float:
        """The score as a share (0 to 1) of the most a hit for a query of `terms` words can
        reach: every word held close together and BM25 near its top, or, fused with semantic
        search, first in both rankings."""
        if self.signals is not None and self.signals.fused:
            return min(1.0, self.score)
        return min(1.0, self.score / (terms + 1)) if terms else 0.0
