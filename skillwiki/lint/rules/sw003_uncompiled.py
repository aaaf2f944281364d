"""SW003: a raw file that was never compiled, or that compile cannot compile."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import Entry, State, refusal
from skillwiki.lint.model import Finding, LintContext, Rule, Severity
from skillwiki.lint.rules._freshness import findings
from skillwiki.lint.rules.sw006_frontmatter import raw_problems


def check(ctx: LintContext) -> Iterator[Finding]:
    def describe(entry: Entry) -> tuple[str, str]:
        raw_rel = entry.raw or ""
        file = ctx.raw.get(raw_rel)
        # Compile is asked only of files whose frontmatter lint already finds wrong.
        refused = (
            file is not None
            and any(raw_problems(file))
            and refusal(ctx.ws, ctx.config, raw_rel) is not None
        )
        advice = "fix its frontmatter first (SW006)" if refused else "run 'skillwiki compile'"
        return (
            f".wiki/raw/{raw_rel}",
            f"never compiled: wiki/{entry.article} does not exist; {advice}",
        )

    yield from findings(ctx, RULE.id, State.NEW, Severity.ERROR, describe)
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
