"""SW013: a lesson about files that changed or vanished since it was recorded."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.fingerprint import matches
from skillwiki.lint.model import Finding, LintContext, Read, Rule, Severity


def check(ctx: LintContext) -> Iterator[Finding | Read]:
    for file in ctx.lessons():
        paths = file.meta.get("paths")
        if not isinstance(paths, list):
            continue
        for item in paths:
            rel, sep, stored = str(item).rpartition("=")
            if not sep:
                continue
            target = ctx.ws.root / rel
            yield Read(str(target))
            try:
                data = target.read_bytes()
            except OSError:
                message = f"{rel}, which this lesson is about, no longer exists; review the lesson"
            else:
                if matches(data, stored):
                    continue
                message = f"{rel} changed since this lesson was recorded; check that it still holds"
            yield Finding(file.path, file.key_line("paths"), 1, RULE.id, Severity.WARNING, message)


RULE = Rule(
    "SW013",
    "lesson-paths-changed",
    "Lesson about files that changed or vanished",
    "Check that the lesson still holds, then record it again with --path.",
    Severity.WARNING,
    check,
)
