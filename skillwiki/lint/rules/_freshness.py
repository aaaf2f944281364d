"""Findings from the compiler's plan: one rule per freshness state."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from skillwiki.compiler import Entry, State
from skillwiki.lint.model import Finding, LintContext, Severity


def findings(
    ctx: LintContext,
    rule: str,
    state: State,
    severity: Severity,
    describe: Callable[[Entry], tuple[str, str]],
) -> Iterator[Finding]:
    """Yield a finding for each plan entry in `state`; `describe` gives its path and message."""
    for entry in ctx.plan.others:  # fresh articles have nothing to report
        if entry.state is state:
            path, message = describe(entry)
            yield Finding(path, 1, 1, rule, severity, message)
