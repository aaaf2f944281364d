"""SW004: an article whose source is gone."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import State
from skillwiki.lint.model import Finding, LintContext, Rule, Severity
from skillwiki.lint.rules._freshness import findings


def check(ctx: LintContext) -> Iterator[Finding]:
    return findings(
        ctx,
        RULE.id,
        State.ORPHAN,
        Severity.ERROR,
        lambda entry: (
            f".wiki/wiki/{entry.article}",
            "orphan article: its raw source no longer exists; run 'skillwiki compile' to remove it",
        ),
    )


RULE = Rule(
    "SW004",
    "orphan-article",
    "Article whose source is gone",
    "Run `skillwiki compile` to remove it, or restore its raw file.",
    Severity.ERROR,
    check,
)
