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
    CANDIDATE = "candidate"
    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"


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


# Lessons that search, recall and near-duplicate checks leave out: retired by maintain.
RETIRED = (Status.ARCHIVED, Status.SUPERSEDED)


def values(kind: type[StrEnum]) -> tuple[str, ...]:
    """The allowed strings of a vocabulary, in order."""
    return tuple(member.value for member in kind)
