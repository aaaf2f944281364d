"""A rule's confidence, pooled from the outcomes of the rule and of its lessons and
discounted for small support (the formula: skillwiki.memory.rules). Apart from the rest of the
rules' code, so that a status reads it without what writes rules."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from skillwiki.config import Config
from skillwiki.kinds import Outcome
from skillwiki.memory.store import Evidence, Lesson


@dataclass(frozen=True)
class RuleConfidence:
    confidence: float
    support: int  # outcome lines of the rule and its lessons


def pooled(rule: Lesson, lessons: Mapping[str, Lesson]) -> tuple[Evidence, ...]:
    """The outcome lines of the rule and of each of its lessons."""
    pieces = list(rule.evidence)
    for lesson_id in rule.evidence_ids:
        lesson = lessons.get(lesson_id)
        if lesson is not None and not lesson.is_rule:
            pieces.extend(lesson.evidence)
    return tuple(pieces)


def dated(evidence: Sequence[Evidence], on: date) -> tuple[Evidence, ...]:
    """The pieces dated up to `on`. A piece dated later is damage, not evidence: it would
    weigh in full for ever (9999-12-31 failed-again, four times, mutes a lesson for good)."""
    return tuple(piece for piece in evidence if piece.day <= on)


def weighted(evidence: Sequence[Evidence], on: date, half_life_days: float) -> tuple[float, float]:
    """The pieces that helped and all pieces, dated up to `on`, each weighted
    0.5^(age / half-life): what a lesson's and a rule's confidence are made of."""
    helped = total = 0.0
    for piece in dated(evidence, on):
        weight = 0.5 ** ((on - piece.day).days / half_life_days)
        total += weight
        helped += weight if piece.outcome == Outcome.HELPED else 0.0
    return helped, total


def rule_confidence(pieces: Sequence[Evidence], on: date, config: Config) -> RuleConfidence:
    """The confidence of the module's docstring, from the pieces dated up to `on`."""
    helped, total = weighted(pieces, on, config.recall.half_life_days)
    vouched = min(1.0, math.log1p(total) / math.log1p(config.rules.full_support))
    share = helped / total if total else 0.5
    return RuleConfidence(round(vouched * share + (1 - vouched) * 0.5, 4), len(dated(pieces, on)))


def confidence_of(
    rule: Lesson, lessons: Mapping[str, Lesson], on: date, config: Config
) -> RuleConfidence:
    return rule_confidence(pooled(rule, lessons), on, config)


def rule_mute_reason(measured: RuleConfidence, config: Config) -> str | None:
    """Why a rule is not recalled (low confidence with enough support), or None."""
    settings = config.rules
    if measured.support >= settings.min_support and measured.confidence < settings.min_confidence:
        return (
            f"low confidence {measured.confidence:.2f} from {measured.support} outcomes "
            f"(rules.min_confidence {settings.min_confidence})"
        )
    return None


def is_global(measured: RuleConfidence, config: Config) -> bool:
    """Whether a rule is recalled for every task: confident, with wide support."""
    settings = config.rules
    return (
        measured.confidence >= settings.global_confidence
        and measured.support >= settings.global_support
    )
