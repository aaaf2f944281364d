"""SW007: a lesson with a missing section or unfilled template text, a rule without its
condition or action, or an unknown kind or enum value.

A file of raw/lessons/ is a lesson (no `kind:`, or `kind: lesson`), held to the four sections
record-lesson writes, or a rule (`kind: rule`), held to its one-line `when` and `then`; each
kind has its own statuses.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki import kinds
from skillwiki.kinds import LESSON_STATUSES, RULE_STATUSES, Kind
from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity
from skillwiki.memory.lessons import SECTIONS, TEMPLATE_TEXT

_ENUMS = (
    ("severity", kinds.values(kinds.Severity)),
    ("scope", kinds.values(kinds.Scope)),
    ("trigger", kinds.values(kinds.Trigger)),
)
_KINDS = kinds.values(Kind)
# The statuses of each kind; a file of an unknown kind may have any.
_STATUSES: dict[Kind, tuple[str, ...]] = {
    Kind.LESSON: tuple(status.value for status in LESSON_STATUSES),
    Kind.RULE: tuple(status.value for status in RULE_STATUSES),
}
_ANY_STATUS = kinds.values(kinds.Status)
# A rule's condition and action, one line each.
_RULE_LINES = ("when", "then")


def check(ctx: LintContext) -> Iterator[Finding]:
    for file in ctx.lessons():
        if file.facts.error is None:
            yield from _check(file)


def _check(file: File) -> Iterator[Finding]:
    written = file.meta.get("kind")
    kind = Kind.LESSON if written is None else next((k for k in Kind if k == written), None)
    if kind is None:
        yield _error(file, "kind", f"unknown kind {written!r}; use one of {', '.join(_KINDS)}")
    yield from _enums(file, kind)
    if kind == Kind.LESSON:
        yield from _sections(file)
    elif kind == Kind.RULE:
        yield from _rule_lines(file)


def _enums(file: File, kind: Kind | None) -> Iterator[Finding]:
    """Unknown values of the enum keys; the status as one of its kind's (any, for a file of
    an unknown kind)."""
    for key, allowed in _ENUMS:
        value = file.meta.get(key)
        if value is not None and value not in allowed:
            yield _error(file, key, f"unknown {key} {value!r}; use one of {', '.join(allowed)}")
    status = file.meta.get("status")
    allowed = _ANY_STATUS if kind is None else _STATUSES[kind]
    if status is not None and status not in allowed:
        what = "status" if kind is None else f"{kind} status"
        yield _error(file, "status", f"unknown {what} {status!r}; use one of {', '.join(allowed)}")


def _rule_lines(file: File) -> Iterator[Finding]:
    for key in _RULE_LINES:
        value = file.meta.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            yield _error(
                file,
                key,
                f"rule key '{key}' is missing or empty; a rule has a condition (when) and an "
                "action (then), one line each",
            )
        elif not isinstance(value, str) or len(value.strip().splitlines()) > 1:
            yield _error(file, key, f"rule key '{key}' must be one line of text")


def _sections(file: File) -> Iterator[Finding]:
    found: dict[str, tuple[int, str]] = {}
    for name, line, text in file.facts.sections:
        found.setdefault(name, (line, text))
    for name in SECTIONS:
        if name not in found:
            yield Finding(
                file.path,
                file.facts.body_offset + 1,
                1,
                RULE.id,
                Severity.ERROR,
                f"lesson section '## {name}' is missing; lessons have {', '.join(SECTIONS)}",
            )
        elif is_template(found[name][1]):
            yield Finding(
                file.path,
                found[name][0],
                1,
                RULE.id,
                Severity.WARNING,
                f"lesson section '## {name}' still holds the template text; fill it in",
            )


def _error(file: File, key: str, message: str) -> Finding:
    """An error at the line of a frontmatter key (1 when the key is absent)."""
    return Finding(file.path, file.key_line(key), 1, RULE.id, Severity.ERROR, message)


def is_template(text: str) -> bool:
    """Tell whether a section still holds record-lesson's guidance text."""
    return any(template.lstrip("- ") in text for template in TEMPLATE_TEXT.values())


RULE = Rule(
    "SW007",
    "incomplete-lesson",
    "Lesson section missing or unfilled, rule without when or then, or unknown value",
    "Give a lesson all four sections, a rule a one-line when and then, and each a known kind, "
    "severity, scope, status (of its kind) and trigger.",
    Severity.ERROR,
    check,
)
