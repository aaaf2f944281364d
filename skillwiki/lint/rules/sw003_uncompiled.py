"""SW003: a raw file that was never compiled, or that compile cannot compile."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import State
from skillwiki.lint.model import Finding, LintContext, Rule, Severity
from skillwiki.lint.rules._freshness import findings


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from findings(
        ctx,
        RULE.id,
        State.NEW,
        Severity.ERROR,
        lambda entry: (
            f".wiki/raw/{entry.raw}",
            f"never compiled: wiki/{entry.article} does not exist; run 'skillwiki compile'",
        ),
    )
    # What the plan itself refuses (two raw files for one article, a name that is not UTF-8,
    # an article that would be both file and folder): no compile will ever make its article.
    for problem in ctx.plan.problems:
        yield Finding(
            problem.path, 1, 1, RULE.id, Severity.ERROR, f"cannot be compiled: {problem.message}"
        )


RULE = Rule(
    "SW003",
    "uncompiled-source",
    "Raw file never compiled",
    "Run `skillwiki compile`.",
    Severity.ERROR,
    check,
)
