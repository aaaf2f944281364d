"""SW007: a lesson with a missing section, unfilled template text, or an unknown enum value."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.lessons import (
    SCOPES,
    SECTIONS,
    SEVERITIES,
    STATUSES,
    TEMPLATE_TEXT,
    TRIGGERS,
    sections,
)
from skillwiki.lint.model import Finding, LintContext, ParsedFile, Severity

_ENUMS = (
    ("severity", SEVERITIES),
    ("scope", SCOPES),
    ("status", STATUSES),
    ("trigger", TRIGGERS),
)


def check(ctx: LintContext) -> Iterator[Finding]:
    for parsed in ctx.lessons():
        if parsed.document is not None:
            yield from _check(parsed)


def _check(parsed: ParsedFile) -> Iterator[Finding]:
    assert parsed.document is not None
    meta = parsed.document.meta
    for key, allowed in _ENUMS:
        value = meta.get(key)
        if value is not None and value not in allowed:
            yield Finding(
                parsed.path,
                parsed.key_line(key),
                1,
                "SW007",
                Severity.ERROR,
                f"unknown {key} {value!r}; use one of {', '.join(allowed)}",
            )
    found = sections(parsed.document.body)
    for name in SECTIONS:
        if name not in found:
            yield Finding(
                parsed.path,
                parsed.body_offset + 1,
                1,
                "SW007",
                Severity.ERROR,
                f"lesson section '## {name}' is missing; lessons have {', '.join(SECTIONS)}",
            )
        elif _is_template(found[name]):
            line = parsed.body_offset + _line_of(parsed.document.body, f"## {name}")
            yield Finding(
                parsed.path,
                line,
                1,
                "SW007",
                Severity.WARNING,
                f"lesson section '## {name}' still holds the template text; fill it in",
            )


def _is_template(text: str) -> bool:
    return any(template.lstrip("- ") in text for template in TEMPLATE_TEXT.values())


def _line_of(body: str, heading: str) -> int:
    for number, line in enumerate(body.splitlines(), start=1):
        if line.strip() == heading:
            return number
    return 1
