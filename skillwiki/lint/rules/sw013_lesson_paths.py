"""SW013: a lesson about files that changed or vanished since it was recorded."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

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
            if not ctx.ws.holds(target):  # whether anything is there is not lint's to tell
                message = f"{rel} lies outside the workspace; a lesson is about its files"
            else:
                yield Read(str(target))
                data = _regular_file(target)
                if data is None:
                    message = (
                        f"{rel}, which this lesson is about, no longer exists; review the lesson"
                    )
                elif matches(data, stored):
                    continue
                else:
                    message = (
                        f"{rel} changed since this lesson was recorded; check that it still holds"
                    )
            yield Finding(file.path, file.key_line("paths"), 1, RULE.id, Severity.WARNING, message)


def _regular_file(path: Path) -> bytes | None:
    """The bytes of a regular file (a FIFO or a device is none), opened without waiting."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        return None
    with os.fdopen(descriptor, "rb") as handle:
        try:
            return handle.read()
        except OSError:
            return None


RULE = Rule(
    "SW013",
    "lesson-paths-changed",
    "Lesson about files that changed or vanished",
    "Check that the lesson still holds, then record it again with --path.",
    Severity.WARNING,
    check,
)
