"""The closed vocabularies of a lesson's frontmatter and of feedback: one enum each.

Each is a StrEnum, so a member is the very string written in frontmatter and JSON; the order
of the members is the order shown in messages.
"""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"
    CRITICAL = "CRITICAL"


class Scope(StrEnum):
    GLOBAL = "global"
    TARGETED = "targeted"


class Status(StrEnum):
    """A lesson's or a rule's place in its life. A lesson is a candidate, active, archived
    (retired by maintain or review) or superseded (by a newer lesson or by a rule made from
    it); a rule is a candidate, active, reviewing (in conflict with new evidence, still
    recalled) or retired."""

    CANDIDATE = "candidate"
    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"
    REVIEWING = "reviewing"
    RETIRED = "retired"


class Kind(StrEnum):
    """What a file of raw/lessons/ is (its `kind:` key; a lesson when absent): a lesson, one
    event and what it taught, or a rule, a condition and an action consolidated from several
    lessons (its `evidence:`)."""

    LESSON = "lesson"
    RULE = "rule"


class Layer(StrEnum):
    """The layers recall fills its block in, first to last: rules confident with wide support
    (for every task), what fits the task (its words, tags or paths), what is for the agent,
    and the rest."""

    GLOBAL = "global"
    TASK = "task"
    AGENT = "agent"
    OTHER = "other"


# The statuses each kind may have, in order.
LESSON_STATUSES = (Status.CANDIDATE, Status.ACTIVE, Status.ARCHIVED, Status.SUPERSEDED)
RULE_STATUSES = (Status.CANDIDATE, Status.ACTIVE, Status.REVIEWING, Status.RETIRED)
# The statuses recall shows: a rule in review stays in the prompt, marked as in conflict.
RECALLED = (Status.ACTIVE, Status.REVIEWING)


class Trigger(StrEnum):
    REPLAN = "replan"
    CONSECUTIVE_TOOL_FAILURES = "consecutive_tool_failures"
    REPEATED_TOOL_FAILURES = "repeated_tool_failures"
    RETRIES = "retries"
    COST_OVERRUN = "cost_overrun"
    LOW_CONFIDENCE = "low_confidence"
    REJECTED = "rejected"
    MANUAL = "manual"


class Outcome(StrEnum):
    HELPED = "helped"
    NOT_HELPED = "not-helped"
    FAILED_AGAIN = "failed-again"


# Lessons and rules that search, recall and near-duplicate checks leave out: retired by
# maintain, review, or a rule made from them.
RETIRED = (Status.ARCHIVED, Status.SUPERSEDED, Status.RETIRED)


def values(kind: type[StrEnum]) -> tuple[str, ...]:
    """The allowed strings of a vocabulary, in order."""
    return tuple(member.value for member in kind)
