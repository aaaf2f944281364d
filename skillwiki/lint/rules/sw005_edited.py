"""SW005: a compiled article edited by hand."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import State
from skillwiki.lint.model import Finding, LintContext, Rule, Severity
from skillwiki.lint.rules._freshness import findings


def check(ctx: LintContext) -> Iterator[Finding]:
    return findings(
        ctx,
        RULE.id,
        State.EDITED,
        Severity.WARNING,
        lambda entry: (
            f".wiki/wiki/{entry.article}",
            "edited by hand: move the change into "
            + (f"raw/{entry.raw}" if entry.raw else "a raw file")
            + ", then run 'skillwiki compile --force'",
        ),
    )


RULE = Rule(
    "SW005",
    "hand-edited-article",
    "Compiled article edited by hand",
    "Move the change into the raw file, then `skillwiki compile --force`.",
    Severity.WARNING,
    check,
)
