"""SW004: an article whose source is gone."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import State
from skillwiki.lint.model import Finding, LintContext, Severity
from skillwiki.lint.rules._freshness import findings


def check(ctx: LintContext) -> Iterator[Finding]:
    return findings(
        ctx,
        "SW004",
        State.ORPHAN,
        Severity.ERROR,
        lambda entry: (
            f".wiki/wiki/{entry.article}",
            "orphan article: its raw source no longer exists; run 'skillwiki compile' to remove it",
        ),
    )
