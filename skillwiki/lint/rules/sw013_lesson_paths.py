"""SW013: a lesson about files that changed or vanished since it was recorded."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.fingerprint import matches
from skillwiki.lint.model import Finding, LintContext, Severity


def check(ctx: LintContext) -> Iterator[Finding]:
    for file in ctx.lessons():
        paths = file.meta.get("paths")
        if not isinstance(paths, list):
            continue
        for item in paths:
            rel, sep, stored = str(item).rpartition("=")
            if not sep:
                continue
            target = ctx.ws.root / rel
            ctx.outside.add(str(target))
            try:
                data = target.read_bytes()
            except OSError:
                message = f"{rel}, which this lesson is about, no longer exists; review the lesson"
            else:
                if matches(data, stored):
                    continue
                message = f"{rel} changed since this lesson was recorded; check that it still holds"
            yield Finding(file.path, file.key_line("paths"), 1, "SW013", Severity.WARNING, message)
