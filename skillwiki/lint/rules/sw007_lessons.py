"""SW007: a lesson with a missing section, unfilled template text, or an unknown enum value."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki import kinds
from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity
from skillwiki.memory.lessons import SECTIONS, TEMPLATE_TEXT

_ENUMS = (
    ("severity", kinds.values(kinds.Severity)),
    ("scope", kinds.values(kinds.Scope)),
    ("status", kinds.values(kinds.Status)),
    ("trigger", kinds.values(kinds.Trigger)),
)


def check(ctx: LintContext) -> Iterator[Finding]:
    for file in ctx.lessons():
        if file.facts.error is None:
            yield from _check(file)


def _check(file: File) -> Iterator[Finding]:
    for key, allowed in _ENUMS:
        value = file.meta.get(key)
        if value is not None and value not in allowed:
            yield Finding(
                file.path,
                file.key_line(key),
                1,
                RULE.id,
                Severity.ERROR,
                f"unknown {key} {value!r}; use one of {', '.join(allowed)}",
            )
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


def is_template(text: str) -> bool:
    """Tell whether a section still holds record-lesson's guidance text."""
    return any(template.lstrip("- ") in text for template in TEMPLATE_TEXT.values())


RULE = Rule(
    "SW007",
    "incomplete-lesson",
    "Lesson section missing, unfilled, or unknown value",
    "Give the lesson all four sections and known severity, scope, status and trigger.",
    Severity.ERROR,
    check,
)
