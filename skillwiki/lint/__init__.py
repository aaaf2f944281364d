"""Check a workspace: every rule, configured severities, findings in a stable order."""

from __future__ import annotations

from dataclasses import dataclass, replace

from skillwiki.compiler import make_plan
from skillwiki.config import Config
from skillwiki.lint.model import Finding, Severity, load_context
from skillwiki.workspace import Workspace

__all__ = ["Finding", "LintReport", "Severity", "run_lint"]


@dataclass(frozen=True)
class LintReport:
    findings: list[Finding]

    @property
    def errors(self) -> int:
        return sum(1 for finding in self.findings if finding.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for finding in self.findings if finding.severity is Severity.WARNING)


def run_lint(ws: Workspace, config: Config) -> LintReport:
    """Run every rule that is not switched off; never writes."""
    from skillwiki.lint.rules import RULES

    ctx = load_context(ws, config, make_plan(ws, config))
    found: list[Finding] = []
    for rule_id, rule in RULES:
        setting = config.lint.rules.get(rule_id)
        if setting == "off":
            continue
        for finding in rule(ctx):
            found.append(replace(finding, severity=Severity(setting)) if setting else finding)
    found.sort(key=lambda f: (f.path, f.line, f.column, f.rule, f.message))
    return LintReport(found)
