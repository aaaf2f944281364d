"""SW011: a credential in any file of the wiki (reported by place and kind, never shown)."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.lint.model import Finding, LintContext, Rule, Severity


def check(ctx: LintContext) -> Iterator[Finding]:
    for file in ctx.every_file():
        for kind, line, column in file.facts.secrets:
            yield Finding(
                file.path,
                line,
                column,
                RULE.id,
                Severity.ERROR,
                f"possible secret ({kind}); remove it from the raw file, recompile, "
                "and rotate the credential",
            )


RULE = Rule(
    "SW011",
    "secret",
    "Credential in a wiki file",
    "Remove it from the raw file, recompile, and rotate the credential.",
    Severity.ERROR,
    check,
)
