"""SW014: a rule whose evidence is missing, names no lesson or a rule, or only retired lessons.

A rule (`kind: rule` in raw/lessons/) stands on the lessons its `evidence:` names, each by the
name of its file there. Recall trusts a rule because of them: a rule with none, or with ids
that name no lesson, vouches for nothing. Once every one of its lessons is retired (archived,
or superseded by something other than this rule), nothing live stands behind it any more. A
lesson of a recalled rule left active (a hand edit) is shown nowhere on its own: recall puts
the rule in its place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from skillwiki.kinds import RECALLED, Kind, Status
from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity
from skillwiki.memory.store import LESSONS_DIR


def check(ctx: LintContext) -> Iterator[Finding]:
    for file in ctx.lessons():
        if file.facts.error is None and file.meta.get("kind") == Kind.RULE:
            yield from _check(ctx, file)


def _check(ctx: LintContext, rule: File) -> Iterator[Finding]:
    def finding(severity: Severity, message: str) -> Finding:
        return Finding(rule.path, rule.key_line("evidence"), 1, RULE.id, severity, message)

    evidence = rule.meta.get("evidence")
    if not evidence:
        yield finding(
            Severity.ERROR,
            "rule without evidence; list in `evidence:` the ids of the lessons it was "
            "consolidated from",
        )
        return
    if not isinstance(evidence, list) or not all(_is_id(item) for item in evidence):
        yield finding(Severity.ERROR, "`evidence:` must be a list of lesson ids")
        return
    lessons: list[File] = []
    for lesson_id in evidence:
        lesson = _lesson_file(ctx, lesson_id)
        if lesson is None:
            yield finding(
                Severity.ERROR,
                f"evidence {lesson_id!r} names no lesson in raw/{LESSONS_DIR}/",
            )
        elif lesson.meta.get("kind") == Kind.RULE:
            yield finding(
                Severity.ERROR,
                f"evidence {lesson_id!r} is a rule, not a lesson; a rule's evidence is the "
                "lessons it was consolidated from",
            )
        else:
            lessons.append(lesson)
    live = rule.meta.get("status") != Status.RETIRED
    if live and len(lessons) == len(evidence) and all(_retired(one, rule) for one in lessons):
        yield finding(
            Severity.WARNING,
            "its lessons are all retired; retire the rule or give it live evidence",
        )
    yield from _still_active(rule, lessons, finding)


def _still_active(
    rule: File, lessons: list[File], finding: Callable[[Severity, str], Finding]
) -> Iterator[Finding]:
    """Each lesson of a recalled rule left active: recall shows the rule in its place."""
    if rule.meta.get("status") not in RECALLED:
        return
    for lesson in lessons:
        if lesson.meta.get("status") == Status.ACTIVE:
            yield finding(
                Severity.WARNING,
                f"evidence {PurePosixPath(lesson.path).stem!r} is still active: recall "
                "shows the rule in its place; mark it superseded by the rule",
            )


def _is_id(item: object) -> bool:
    return isinstance(item, str) and bool(item.strip())


def _lesson_file(ctx: LintContext, lesson_id: str) -> File | None:
    """The file raw/lessons/<id>.md when it is a lesson or a rule (no `type:`, or `lesson`);
    an id is a file's name there, never a path into another folder."""
    if "/" in lesson_id or "\\" in lesson_id:
        return None
    file = ctx.raw.get(f"{LESSONS_DIR}/{lesson_id}.md")
    if file is None or file.meta.get("type") not in (None, "lesson"):
        return None
    return file


def _retired(lesson: File, rule: File) -> bool:
    """Whether a lesson no longer vouches for the rule: archived, or superseded by something
    other than this rule (known by its file's name or its `id:`)."""
    status = lesson.meta.get("status")
    if status == Status.ARCHIVED:
        return True
    rule_ids = (PurePosixPath(rule.path).stem, rule.meta.get("id"))
    return status == Status.SUPERSEDED and lesson.meta.get("superseded_by") not in rule_ids


RULE = Rule(
    "SW014",
    "rule-evidence",
    "Rule without evidence, with evidence that names no lesson, or only retired lessons",
    "List in `evidence:` the live lessons the rule was consolidated from, or retire the rule.",
    Severity.ERROR,
    check,
)
