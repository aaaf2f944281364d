"""SW002: an article whose source changed since it was compiled."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import State
from skillwiki.lint.model import Finding, LintContext, Rule, Severity
from skillwiki.lint.rules._freshness import findings


def check(ctx: LintContext) -> Iterator[Finding]:
    return findings(
        ctx,
        RULE.id,
        State.STALE,
        Severity.ERROR,
        lambda entry: (
            f".wiki/wiki/{entry.article}",
            f"stale article: raw/{entry.raw} changed since it was compiled; "
            "run 'skillwiki compile'",
        ),
    )


RULE = Rule(
    "SW002",
    "stale-article",
    "Article older than its source",
    "Run `skillwiki compile` (or any query) to recompile it.",
    Severity.ERROR,
    check,
)
