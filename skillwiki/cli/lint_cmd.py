"""lint: check the wiki for broken links, stale articles, bad frontmatter and more."""

from __future__ import annotations

import json
from enum import StrEnum
from itertools import groupby
from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.cli import render
from skillwiki.cli.common import WorkspaceOption, open_workspace

if TYPE_CHECKING:
    from skillwiki.lint import LintReport


class Format(StrEnum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    app.command("lint")(lint)


def lint(
    ctx: typer.Context,
    output: Annotated[Format, typer.Option("--format", help="text or json.")] = Format.text,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too.")] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Check the wiki (rules SW001-SW008, SW010); exit 1 on any error. Never writes.

    Examples:
      skillwiki lint
      skillwiki lint --format json
      skillwiki lint --strict
    """
    from skillwiki.lint import run_lint

    ws, config = open_workspace(ctx, workspace)
    report = run_lint(ws, config)
    if output is Format.json:
        typer.echo(to_json(report))
    else:
        _print_text(report)
    if report.errors or (strict and report.warnings):
        raise typer.Exit(1)


def to_json(report: LintReport) -> str:
    """Return the documented JSON shape of a lint report."""
    findings = [
        {
            "rule": finding.rule,
            "severity": finding.severity.value,
            "path": finding.path,
            "line": finding.line,
            "column": finding.column,
            "message": finding.message,
        }
        for finding in report.findings
    ]
    summary = {"errors": report.errors, "warnings": report.warnings}
    return json.dumps({"findings": findings, "summary": summary}, ensure_ascii=False, indent=2)


def _print_text(report: LintReport) -> None:
    from skillwiki.lint import Severity

    for path, group in groupby(report.findings, key=lambda finding: finding.path):
        render.echo(path, style="bold underline")
        for finding in group:
            style = "red" if finding.severity is Severity.ERROR else "yellow"
            render.echo(
                f"  {finding.line}:{finding.column} {finding.severity.value} {finding.rule} "
                f"{finding.message}",
                style=style,
            )
    render.echo(f"{report.errors} error(s), {report.warnings} warning(s)")
