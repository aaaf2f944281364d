"""lint: check the wiki (links, freshness, frontmatter, lessons, secrets) for people and CI."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.cli import render
from skillwiki.cli.common import WorkspaceOption, open_workspace

if TYPE_CHECKING:
    from skillwiki.config import Config
    from skillwiki.lint.model import Finding
    from skillwiki.lint.rules.sw001_links import Explanation
    from skillwiki.workspace import Workspace


class Format(StrEnum):
    text = "text"
    json = "json"
    github = "github"
    sarif = "sarif"


class FailOn(StrEnum):
    error = "error"
    warning = "warning"


def register(app: typer.Typer) -> None:
    app.command("lint")(lint)


def lint(
    ctx: typer.Context,
    output: Annotated[
        Format, typer.Option("--format", help="text, json, github (workflow commands) or sarif.")
    ] = Format.text,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too.")] = False,
    fail_on: Annotated[
        FailOn | None,
        typer.Option("--fail-on", help="Lowest severity that fails: error or warning."),
    ] = None,
    exit_zero: Annotated[
        bool, typer.Option("--exit-zero", help="Exit 0 even when findings fail.")
    ] = False,
    baseline: Annotated[
        Path | None, typer.Option(help="Hide the findings recorded in this file.")
    ] = None,
    write_baseline: Annotated[
        Path | None, typer.Option(help="Record the current findings in this file, then apply it.")
    ] = None,
    explain_links: Annotated[
        bool,
        typer.Option(
            "--explain-links",
            help="After the report, how each SW001 target was looked for under [lint.links].",
        ),
    ] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Check the wiki with rules SW001-SW014; exit 1 when a finding fails. Never writes.

    Examples:
      skillwiki lint
      skillwiki lint --format sarif > skillwiki.sarif
      skillwiki lint --format github --strict
      skillwiki lint --write-baseline .wiki-baseline.json
      skillwiki lint --baseline .wiki-baseline.json
      skillwiki lint --explain-links
    """
    from skillwiki.config import LinksConfig
    from skillwiki.lint import baseline as baselines
    from skillwiki.lint import run_lint
    from skillwiki.lint.model import Severity

    ws, config = open_workspace(ctx, workspace)
    findings = run_lint(ws, config).findings
    if write_baseline is not None:
        baselines.write(write_baseline, ws, findings)
    hidden = 0
    accepted = baseline or write_baseline
    if accepted is not None:
        findings, hidden = baselines.apply(accepted, ws, findings)
    _print_report(output, findings, hidden, repository_prefix(ws.root))
    if explain_links:
        _print_explanations(ws, config, findings, output)
    unset = output is Format.text and config.lint.links == LinksConfig()
    site_links = sum(map(_written_for_a_site, findings)) if unset else 0
    if site_links:
        render.warn_free(
            f"hint: {site_links} of the broken links are written as a site generator serves pages "
            "(/guide/x/, x.html, x without .md); say how yours resolves links in [lint.links] of "
            ".wiki/config.toml"
        )
    threshold = FailOn.warning if strict else (fail_on or FailOn.error)
    failing = [f for f in findings if f.severity is Severity.ERROR or threshold is FailOn.warning]
    if failing and not exit_zero:
        raise typer.Exit(1)


def _print_report(output: Format, findings: list[Finding], hidden: int, prefix: str) -> None:
    from skillwiki.lint import report
    from skillwiki.lint.rules import RULES

    match output:
        case Format.json:
            typer.echo(report.to_json(findings, hidden))
        case Format.github:
            typer.echo(report.to_github(findings, prefix), nl=False)
            summary = os.environ.get("GITHUB_STEP_SUMMARY")
            if summary:  # GitHub's job summary: the one file lint appends to
                with open(summary, "a", encoding="utf-8") as handle:
                    handle.write(report.step_summary(findings, prefix))
        case Format.sarif:
            typer.echo(report.to_sarif(findings, RULES, prefix))
        case Format.text:
            for line, style in report.to_text(findings):
                render.echo(line, style=style)
            errors = sum(f.severity.value == "error" for f in findings)
            extra = f", {hidden} hidden by the baseline" if hidden else ""
            render.echo(f"{errors} error(s), {len(findings) - errors} warning(s){extra}")


def _print_explanations(
    ws: Workspace, config: Config, findings: list[Finding], output: Format
) -> None:
    """How each SW001 target was looked for: after a text report, else on stderr (stdout
    keeps the report a program reads)."""
    from skillwiki.lint.rules.sw001_links import explain

    for line in _explained(explain(ws, config, findings)):
        typer.echo(line, err=output is not Format.text)


def _explained(explanations: list[Explanation]) -> list[str]:
    """Each finding's looks as lines: where it is written and its target, then each look,
    what it tried (the first name and how many more) and what it found."""
    lines: list[str] = []
    for finding, steps in explanations:
        where = finding.source or (finding.path, finding.line)
        lines += ["", f"{where[0]}:{where[1]}: {finding.target or ''}"]
        for step in steps:
            if step.setting == "included by":  # the looks that follow are from that page
                lines.append(f"  included by {step.tried[0]}:")
                continue
            if step.setting in ("root", "static", "folder", "relative_from_root", "mount"):
                start = "root" if step.setting == "relative_from_root" else step.setting
                off = "" if step.used else f"; {step.setting} = true would look here"
                lines.append(f"  from {start} '{step.tried[0] or '.'}': {step.found}{off}")
                continue
            more = f" (and {len(step.tried) - 1} more)" if len(step.tried) > 1 else ""
            found = f"found {step.found}" if step.found else "nothing"
            line = f"    {step.setting}: {step.tried[0]}{more}: {found}"
            if not step.used and step.setting != "fallback":
                line += f"; {step.setting} = true would use it" if step.found else " (off)"
            lines.append(line)
    return lines


def _written_for_a_site(finding: Finding) -> bool:
    """A broken link (not a wikilink or an anchor) to a page as a site serves it: from the
    site's root, to a folder, to `.html`, or without a suffix."""
    if finding.target is None or not finding.message.startswith("broken link to "):
        return False
    path = finding.target.partition("#")[0].partition("?")[0]
    suffix = PurePosixPath(path).suffix.lower()
    return path.startswith("/") or path.endswith("/") or suffix in ("", ".html", ".htm")


def repository_prefix(root: Path) -> str:
    """Return the workspace root relative to its git repository ('' at the top or outside one)."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            relative = root.relative_to(folder).as_posix()
            return "" if relative == "." else relative + "/"
    return ""
