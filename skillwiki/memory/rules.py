"""Rules: a condition and an action consolidated from several lessons (their `evidence:`),
recalled in their place. Recording one, its confidence pooled from real outcomes, and the
review a rule goes to when new evidence contradicts it.

Confidence. A rule's evidence is every outcome line of the rule and of its lessons, each
weighted 0.5^(age / recall.half_life_days); h is the weighted `helped`, n the weighted total.
Then, with d = min(1, ln(1 + n) / ln(1 + rules.full_support)):

    confidence = d × h / n + (1 − d) × 0.5

the share of outcomes that helped, times how far the support vouches for it (the log of the
support, so 3 of 3 is worth less than 32 of 38), the rest left at the 0.5 of a lesson without
evidence. `support` is the number of outcome lines. A rule with `rules.min_support` lines and
a confidence below `rules.min_confidence` is not recalled; one with `rules.global_support`
lines and `rules.global_confidence` is recalled for every task (the global layer).

Review: see skillwiki.memory.review.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from skillwiki import clock, fsio
from skillwiki.config import Config
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import MAX_SUMMARY, MAX_TAGS, MAX_TITLE, join
from skillwiki.kinds import Kind, Scope, Severity, Status, values
from skillwiki.memory.confidence import RuleConfidence, confidence_of, pooled, rule_confidence
from skillwiki.memory.consolidate import (
    MAX_LINE,
    RuleInput,
    draft,
    title_for,
)
from skillwiki.memory.lessons import (
    Redacting,
    check_compiles,
    free_id,
    refuse_blank,
    taken_ids,
)
from skillwiki.memory.store import EVIDENCE_HEADING, LESSONS_DIR, Lesson, load_lessons, when_then
from skillwiki.names import slugify
from skillwiki.workspace import Workspace

MIN_EVIDENCE = 2  # lessons a rule needs: one lesson is a lesson


@dataclass(frozen=True)
class RecordedRule:
    id: str
    path: str  # relative to the workspace root
    status: str
    created: bool
    superseded: list[str] = field(default_factory=list)  # lessons it now stands for
    confidence: float = 0.5
    support: int = 0
    redacted: list[str] = field(default_factory=list)


def validate(rule: RuleInput) -> None:
    """Refuse an empty or overlong condition or action, too few lessons, unknown values."""
    for option, text in (("--when", rule.when), ("--then", rule.then)):
        if not text.strip():
            raise InputError(None, f"{option} must not be empty")
        if "\n" in text.strip() or "\r" in text.strip():
            raise InputError(None, f"{option} must be one line")
        if len(" ".join(text.split())) > MAX_LINE:
            raise InputError(None, f"{option} is over {MAX_LINE} characters; one line")
    twice = [lesson_id for lesson_id, count in Counter(rule.evidence).items() if count > 1]
    if twice:
        raise InputError(None, f"--evidence {twice[0]!r} is given twice; name each lesson once")
    if len(rule.evidence) < MIN_EVIDENCE:
        raise InputError(
            None, f"a rule needs at least {MIN_EVIDENCE} lessons: give --evidence ID for each"
        )
    for option, value, allowed in (
        ("--severity", rule.severity, values(Severity)),
        ("--scope", rule.scope, values(Scope)),
    ):
        if value is not None and value not in allowed:
            raise InputError(None, f"{option} {value!r} is not one of {', '.join(allowed)}")
    _validate_texts(rule)


def _validate_texts(rule: RuleInput) -> None:
    for option, given, limit in (
        ("--title", rule.title, MAX_TITLE),
        ("--summary", rule.summary, MAX_SUMMARY),
    ):
        if given is not None and not given.strip():
            raise InputError(None, f"{option} must not be empty")
        if given is not None and len(given) > limit:
            raise InputError(None, f"{option} is {len(given)} characters; at most {limit}")
    if rule.tags is not None and len(rule.tags) > MAX_TAGS:
        raise InputError(None, f"{len(rule.tags)} --tag options; at most {MAX_TAGS}")
    refuse_blank(("--tag", rule.tags), ("--agent", rule.agents))


def record_rule(
    ws: Workspace, config: Config, rule: RuleInput, today: date | None = None
) -> RecordedRule:
    """Write the rule into raw/lessons/ and, unless it waits for review, make each of its
    lessons `superseded` by it, in one write under the workspace lock (the caller compiles).
    Fields not given are taken from the lessons. The same condition, action and lessons
    recorded again create nothing new."""
    validate(rule)
    rule, redacted = _redacted(rule)
    on = today or clock.today()
    with fsio.workspace_lock(ws, config.lock_timeout):
        existing = load_lessons(ws, config)
        lessons = _evidence(rule.evidence, existing)
        same = _recorded_already(rule, existing)
        if same is not None:
            measured = confidence_of(same, existing, on, config)
            return RecordedRule(
                same.id,
                ws.rel(same.path),
                same.status,
                False,
                [],
                measured.confidence,
                measured.support,
                redacted,
            )
        filled = _filled(rule, lessons)
        folder = ws.raw / LESSONS_DIR
        title = filled.title or filled.then
        rule_id = free_id(
            existing.keys() | taken_ids(folder), f"{on.isoformat()}-rule-{slugify(title)}"
        )
        waits = config.lessons.require_review
        status = Status.CANDIDATE if waits else Status.ACTIVE
        meta = _meta(filled, rule_id, status, on, lessons)
        body = rule_body(meta["when"], meta["then"], lessons)
        draft_rule = Lesson(rule_id, folder / f"{rule_id}.md", meta, body)
        measured = rule_confidence(pooled(draft_rule, existing), on, config)
        meta |= numbers(measured, on)
        items = [(folder / f"{rule_id}.md", join(meta, body).encode())]
        superseded = [] if waits else [lesson.id for lesson in lessons]
        items += [] if waits else superseding(rule_id, lessons)
        write_rules(ws, config, items, "record-rule")
    return RecordedRule(
        rule_id,
        ws.rel(folder / f"{rule_id}.md"),
        status.value,
        True,
        superseded,
        measured.confidence,
        measured.support,
        redacted,
    )


def _evidence(ids: Sequence[str], existing: Mapping[str, Lesson]) -> list[Lesson]:
    """The lessons a rule names, each one that can become part of a rule."""
    found = []
    for lesson_id in ids:
        lesson = existing.get(lesson_id)
        if lesson is None:
            raise InputError(
                None, f"--evidence {lesson_id!r} names no lesson in .wiki/raw/{LESSONS_DIR}/"
            )
        if lesson.is_rule:
            raise InputError(
                None, f"--evidence {lesson_id!r} is a rule; a rule's evidence is lessons"
            )
        if lesson.status != Status.ACTIVE:
            raise InputError(None, f"--evidence {lesson_id!r} {_not_live(lesson, existing)}")
        found.append(lesson)
    return found


def _not_live(lesson: Lesson, existing: Mapping[str, Lesson]) -> str:
    """Why a lesson that is not active cannot be a rule's evidence, and what to do."""
    by = lesson.text("superseded_by")
    if lesson.status == Status.SUPERSEDED and by in existing and existing[by].is_rule:
        return f"is in rule {by} already"
    if lesson.status == Status.SUPERSEDED:
        return f"is superseded by {by or 'another lesson'}; name that one"
    if lesson.status == Status.CANDIDATE:
        return f"is a candidate; accept it first: skillwiki review {lesson.id} --accept"
    return f"is {lesson.status}; only active lessons make a rule"


def _recorded_already(rule: RuleInput, existing: Mapping[str, Lesson]) -> Lesson | None:
    wanted = (" ".join(rule.when.split()), " ".join(rule.then.split()), sorted(set(rule.evidence)))
    for known in existing.values():
        if (
            known.is_rule
            and (known.text("when"), known.text("then"), sorted(set(known.evidence_ids))) == wanted
        ):
            return known
    return None


def _filled(rule: RuleInput, lessons: Sequence[Lesson]) -> RuleInput:
    """The rule with each field not given taken from the lessons' draft (the title from its
    own action)."""
    drafted = replace(draft(lessons), title=title_for(rule.then))
    given = {
        name: getattr(rule, name)
        for name in ("title", "summary", "severity", "scope", "agents", "tags", "category")
    }
    return replace(
        rule,
        **{
            name: getattr(drafted, name) if value is None else value
            for name, value in given.items()
        },
    )


def _meta(
    rule: RuleInput, rule_id: str, status: Status, on: date, lessons: Sequence[Lesson]
) -> dict[str, Any]:
    agents = list(dict.fromkeys(rule.agents or ()))
    meta: dict[str, Any] = {
        "type": "lesson",
        "kind": Kind.RULE.value,
        "id": rule_id,
        "title": " ".join((rule.title or rule.then).split()),
        "summary": " ".join((rule.summary or rule.when).split()),
        "when": " ".join(rule.when.split()),
        "then": " ".join(rule.then.split()),
        "evidence": [lesson.id for lesson in lessons],
        "severity": rule.severity or Severity.MEDIUM.value,
        "scope": rule.scope or (Scope.TARGETED if agents else Scope.GLOBAL).value,
        "agents": agents,
        "tags": list(dict.fromkeys(rule.tags or ())),
    }
    if rule.category:
        meta["category"] = rule.category
    paths = list(dict.fromkeys(entry for lesson in lessons for entry in lesson.strings("paths")))
    if paths:
        meta["paths"] = paths
    meta["status"] = status.value
    meta["created"] = on.isoformat()
    return meta


def numbers(measured: RuleConfidence, on: date) -> dict[str, Any]:
    """The confidence and support a rule's file shows, as of `on`."""
    return {
        "confidence": measured.confidence,
        "support": measured.support,
        "confidence_on": on.isoformat(),
    }


def rule_body(when: str, then: str, lessons: Sequence[Lesson]) -> str:
    """A rule's body: the rule as recall shows it, and the lessons it comes from."""
    listed = "\n".join(f"- {lesson.id}: {' '.join(lesson.title.split())}" for lesson in lessons)
    return f"## Rule\n\n{when_then(when, then)}\n\n## From Lessons\n\n{listed}\n"


def with_lessons(body: str, when: str, then: str, lessons: Sequence[Lesson]) -> str:
    """A rule's body with its rule and lessons written anew, the rest (its evidence) kept."""
    at = body.find(f"\n{EVIDENCE_HEADING}\n")
    rest = body[at + 1 :] if at >= 0 else ""
    return rule_body(when, then, lessons) + ("\n" + rest if rest else "")


def superseding(rule_id: str, lessons: Sequence[Lesson]) -> list[tuple[Any, bytes]]:
    """Each lesson's file rewritten as superseded by the rule."""
    items = []
    for lesson in lessons:
        meta = dict(lesson.meta)
        meta["status"] = Status.SUPERSEDED.value
        meta["superseded_by"] = rule_id
        items.append((lesson.path, join(meta, lesson.body).encode()))
    return items


def restoring(rule_id: str, lessons: Mapping[str, Lesson]) -> list[tuple[Any, bytes]]:
    """Each lesson superseded by the rule rewritten as active again."""
    items = []
    for lesson in lessons.values():
        if lesson.status == Status.SUPERSEDED and lesson.text("superseded_by") == rule_id:
            meta = dict(lesson.meta)
            meta["status"] = Status.ACTIVE.value
            meta.pop("superseded_by", None)
            items.append((lesson.path, join(meta, lesson.body).encode()))
    return items


def write_rules(
    ws: Workspace, config: Config, items: list[tuple[Any, bytes]], operation: str
) -> None:
    """Write the files at once (the caller holds the lock), each checked as compile would,
    each with its log line before it is in place."""
    for path, data in items:
        check_compiles(config, f"{LESSONS_DIR}/{path.name}", data)
    lines = [f"{path.stem} -> raw/{LESSONS_DIR}/{path.name}" for path, _ in items]
    fsio.write_many(
        items, only_changed=False, before_rename=lambda _: fsio.append_log(ws, operation, *lines)
    )


def _redacted(rule: RuleInput) -> tuple[RuleInput, list[str]]:
    clean = Redacting()

    def clean_all(items: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if items is None else tuple(clean(item) or "" for item in items)

    result = replace(
        rule,
        when=clean(rule.when) or "",
        then=clean(rule.then) or "",
        title=clean(rule.title),
        summary=clean(rule.summary),
        agents=clean_all(rule.agents),
        tags=clean_all(rule.tags),
        category=clean(rule.category),
    )
    return result, clean.kinds
