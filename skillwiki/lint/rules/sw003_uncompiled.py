"""SW003: a raw file that was never compiled."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import State
from skillwiki.lint.model import Finding, LintContext, Severity
from skillwiki.lint.rules._freshness import findings


def check(ctx: LintContext) -> Iterator[Finding]:
    return findings(
        ctx,
        "SW003",
        State.NEW,
        Severity.ERROR,
        lambda entry: (
            f".wiki/raw/{entry.raw}",
            f"never compiled: wiki/{entry.article} does not exist; run 'skillwiki compile'",
        ),
    )
