"""Check a workspace: every rule, configured severities, findings in a stable order."""

from __future__ import annotations

import marshal
import time
from dataclasses import dataclass, replace
from pathlib import Path

from skillwiki import __version__, fsio, statcache
from skillwiki.compiler import Plan, make_plan
from skillwiki.config import Config
from skillwiki.lint import raw_links
from skillwiki.lint.facts import FORMAT
from skillwiki.lint.model import Finding, Read, Severity, links_path, load_context
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
    """Run every rule that is not switched off; writes only its caches in .cache/.

    When no file of the wiki, no file it links to outside it, and not the config changed since
    the last run, the last run's findings are the answer.
    """
    from skillwiki.lint.rules import RULES

    plan = make_plan(ws, config)
    key = _state_key(ws, plan)
    cached = _cached_findings(ws, key)
    if cached is not None:
        return LintReport(cached)
    ctx = load_context(ws, config, plan)
    found: list[Finding] = []
    outside: set[str] = set()
    for rule in RULES:
        setting = config.lint.rules.get(rule.id)
        if setting == "off":
            continue
        for item in rule.check(ctx):
            if isinstance(item, Read):
                outside.add(item.path)
            else:
                found.append(replace(item, severity=Severity(setting)) if setting else item)
    found.sort(key=lambda f: (f.path, f.line, f.column, f.rule, f.message))
    raw_links.MEMO.save(links_path(ws), FORMAT)
    _save_findings(ws, key, outside, found)
    return LintReport(found)


def _report_path(ws: Workspace) -> Path:
    return ws.cache / "lint-report.marshal"


def _state_key(ws: Workspace, plan: Plan) -> tuple[str, int]:
    """Fingerprint every stat the rules depend on, and the config; with the newest mtime."""
    from skillwiki.fingerprint import fingerprint

    others: list[tuple[str, statcache.Stat | None, bytes]] = []
    for path in (ws.index_md, ws.index_json, ws.log_md, ws.config_file):
        try:
            others.append(
                (
                    path.name,
                    statcache.stat_of(path),
                    path.read_bytes() if path == ws.config_file else b"",
                )
            )
        except OSError:
            others.append((path.name, None, b""))
    # skillwiki's version: a release whose rules judge otherwise does not read an older report
    raw, wiki = sorted(plan.raw_stats.items()), sorted(plan.wiki_stats.items())
    state = (FORMAT, __version__, raw, wiki, others)
    newest = statcache.newest([*plan.raw_stats.values(), *plan.wiki_stats.values()])
    return fingerprint(marshal.dumps(state)), newest


def _stat_or_none(path: str) -> statcache.Stat | None:
    try:
        return statcache.stat_of(Path(path))
    except OSError:
        return None


def _cached_findings(ws: Workspace, key: tuple[str, int]) -> list[Finding] | None:
    """The findings the last lint saved, if it saw the same state (`key`) settled and no file
    outside .wiki/ it read changed since; None otherwise, or when the cache is unreadable."""
    try:
        data = marshal.loads(_report_path(ws).read_bytes())
        if data["key"] != key[0] or key[1] >= data["saved_ns"] - statcache.RACY_NS:
            return None
        if any(_stat_or_none(path) != stat for path, stat in data["outside"].items()):
            return None
        return [
            Finding(p, line, col, rule, Severity(sev), msg, tuple(src) if src else None, target)
            for p, line, col, rule, sev, msg, src, target in data["findings"]
        ]
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None


def _save_findings(
    ws: Workspace, key: tuple[str, int], outside: set[str], found: list[Finding]
) -> None:
    """Save this lint's findings for the next run in the same state (a cache: a checkout that
    cannot be written is no error)."""
    data = {
        "key": key[0],
        "saved_ns": time.time_ns(),
        "outside": {path: _stat_or_none(path) for path in sorted(outside)},
        "findings": [
            (f.path, f.line, f.column, f.rule, f.severity.value, f.message, f.source, f.target)
            for f in found
        ],
    }
    try:
        fsio.atomic_write(_report_path(ws), marshal.dumps(data))
    except OSError:
        pass  # a cache: lint still works in a read-only checkout
