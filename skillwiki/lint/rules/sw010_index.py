"""SW010: index.md or index.json does not match the articles."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.compiler import catalog
from skillwiki.lint.model import Finding, LintContext, Rule, Severity


def check(ctx: LintContext) -> Iterator[Finding]:
    expected_md, expected_json = catalog.render(ctx.plan.rows(ctx.ws))
    for path, expected in ((ctx.ws.index_md, expected_md), (ctx.ws.index_json, expected_json)):
        try:
            current = path.read_bytes()
        except OSError:
            current = None
        if current != expected:
            state = "missing" if current is None else "out of date"
            yield Finding(
                ctx.ws.rel(path),
                1,
                1,
                RULE.id,
                Severity.ERROR,
                f"{path.name} is {state}; run 'skillwiki compile'",
            )


RULE = Rule(
    "SW010",
    "stale-index",
    "index.md or index.json out of date",
    "Run `skillwiki compile`.",
    Severity.ERROR,
    check,
)
