"""SW003: a raw file that was never compiled, or that compile cannot compile."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import Entry, State
from skillwiki.lint.model import Finding, LintContext, Rule, Severity
from skillwiki.lint.rules._freshness import findings
from skillwiki.lint.rules.sw006_frontmatter import raw_problems


def check(ctx: LintContext) -> Iterator[Finding]:
    def describe(entry: Entry) -> tuple[str, str]:
        missing = f"never compiled: wiki/{entry.article} does not exist"
        raw = ctx.raw.get(entry.raw or "")
        if raw is not None and any(raw_problems(raw)) and _refused(ctx, entry.raw or ""):
            return f".wiki/raw/{entry.raw}", f"{missing}; fix its frontmatter first (SW006)"
        return f".wiki/raw/{entry.raw}", f"{missing}; run 'skillwiki compile'"

    yield from findings(ctx, RULE.id, State.NEW, Severity.ERROR, describe)
    # What the plan itself refuses (two raw files for one article, a name that is not UTF-8,
    # an article that would be both file and folder): no compile will ever make its article.
    for problem in ctx.plan.problems:
        yield Finding(
            problem.path, 1, 1, RULE.id, Severity.ERROR, f"cannot be compiled: {problem.message}"
        )


def _refused(ctx: LintContext, raw_rel: str) -> bool:
    """Tell whether compile refuses this raw file as it is (asked of compile itself)."""
    from skillwiki.article import render
    from skillwiki.documents import decode, split
    from skillwiki.errors import InputError

    where = f".wiki/raw/{raw_rel}"
    try:
        data = (ctx.ws.raw / raw_rel).read_bytes()
        render(raw_rel, split(decode(data, where, ctx.config.max_file_bytes), where), "", "xxh3")
    except InputError:
        return True
    except OSError:
        return False
    return False


RULE = Rule(
    "SW003",
    "uncompiled-source",
    "Raw file never compiled",
    "Run `skillwiki compile`.",
    Severity.ERROR,
    check,
)
