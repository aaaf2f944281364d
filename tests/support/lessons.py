"""Lessons written straight into raw/lessons/, as a user or an agent would leave them."""

from __future__ import annotations

from pathlib import Path

from tests.support import write

LESSON = """---
type: lesson
id: {id}
title: {title}
summary: {summary}
trigger: manual
severity: {severity}
scope: {scope}
agents: [{agents}]
tags: [{tags}]
prevention_rule: {rule}
paths: [{paths}]
status: {status}
created: 2026-11-01
---
## What Happened

X

## Root Cause

Y

## Optimization

Z

## Next Time

- W
{evidence}"""


def lesson(
    root: Path,
    id: str,
    *,
    severity: str = "MEDIUM",
    scope: str = "global",
    agents: str = "",
    tags: str = "",
    rule: str = "Do the right thing.",
    paths: str = "",
    status: str = "active",
    evidence: str = "",
    title: str | None = None,
) -> None:
    text = LESSON.format(
        id=id,
        title=title or id.replace("-", " ").title(),
        summary="S.",
        severity=severity,
        scope=scope,
        agents=agents,
        tags=tags,
        rule=rule,
        paths=paths,
        status=status,
        evidence=evidence,
    )
    write(root / ".wiki" / "raw" / "lessons" / f"{id}.md", text)
