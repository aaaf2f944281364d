"""Lint reports in the formats CI systems read: JSON, GitHub workflow commands, SARIF 2.1.0."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import groupby

from skillwiki import __version__
from skillwiki.lint.model import Finding, Rule, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://pypi.org/project/skillwiki/"


def to_text(findings: Sequence[Finding]) -> list[tuple[str, str | None]]:
    """Return (line, style) pairs: findings grouped by file, then a count."""
    lines: list[tuple[str, str | None]] = []
    for path, group in groupby(findings, key=lambda finding: finding.path):
        lines.append((path, "bold underline"))
        for finding in group:
            style = "red" if finding.severity is Severity.ERROR else "yellow"
            text = (
                f"  {finding.line}:{finding.column} {finding.severity.value} {finding.rule} "
                f"{finding.message}"
            )
            lines.append((text, style))
    return lines


def to_json(findings: Sequence[Finding], hidden: int = 0) -> str:
    """Return the documented JSON shape of a report."""
    errors = sum(f.severity is Severity.ERROR for f in findings)
    return json.dumps(
        {
            "findings": [
                {
                    "rule": f.rule,
                    "severity": f.severity.value,
                    "path": f.path,
                    "line": f.line,
                    "column": f.column,
                    "message": f.message,
                    **_link_fields(f),
                }
                for f in findings
            ],
            "summary": {"errors": errors, "warnings": len(findings) - errors, "baselined": hidden},
        },
        ensure_ascii=False,
        indent=2,
    )


def _link_fields(finding: Finding) -> dict[str, object]:
    """`source` and `target` of a broken link: as written in the raw file."""
    if finding.rule != "SW001":
        return {}
    source = finding.source
    return {
        "source": None if source is None else {"path": source[0], "line": source[1]},
        "target": finding.target,
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(findings: Sequence[Finding], prefix: str = "") -> str:
    """Return one `::error`/`::warning` workflow command per finding, escaped as GitHub wants."""
    return "".join(
        f"::{f.severity.value} file={_escape_property(prefix + f.path)},line={f.line},"
        f"col={f.column},title={_escape_property(f.rule)}::{_escape_data(f.message)}\n"
        for f in findings
    )


def step_summary(findings: Sequence[Finding], prefix: str = "") -> str:
    """Return a Markdown summary for $GITHUB_STEP_SUMMARY."""
    errors = sum(f.severity is Severity.ERROR for f in findings)
    lines = [
        "## skillwiki lint",
        "",
        f"{errors} error(s), {len(findings) - errors} warning(s)",
        "",
    ]
    if findings:
        lines += ["| rule | severity | file | line | message |", "|---|---|---|---|---|"]
        for f in findings:
            cells = [f.rule, f.severity.value, f"`{prefix}{f.path}`", str(f.line), f.message]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n\n"


def to_sarif(findings: Sequence[Finding], rules: Sequence[Rule], prefix: str = "") -> str:
    """Return a SARIF 2.1.0 log naming every rule, with the findings as its results."""
    index = {rule.id: number for number, rule in enumerate(rules)}
    driver = {
        "name": "skillwiki",
        "version": __version__,
        "informationUri": INFO_URI,
        "rules": [
            {
                "id": rule.id,
                "name": rule.name,
                "shortDescription": {"text": rule.description},
                "fullDescription": {"text": rule.description},
                "help": {"text": rule.help, "markdown": rule.help},
            }
            for rule in rules
        ],
    }
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": f.severity.value,
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": prefix + f.path},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
        }
        for f in findings
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(log, ensure_ascii=False, indent=2)
