"""Baselines: findings accepted as known debt, recognised again after lines move."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from skillwiki.errors import InputError
from skillwiki.fingerprint import fingerprint
from skillwiki.lint.model import Finding
from skillwiki.workspace import Workspace

VERSION = 1


def line_fingerprints(ws: Workspace, findings: Sequence[Finding]) -> list[str]:
    """Fingerprint each finding by rule, path and the text of its line (not its number)."""
    from skillwiki.secrets import redact

    lines: dict[str, list[str]] = {}
    found = []
    for finding in findings:
        if finding.path not in lines:
            try:
                text = (ws.root / finding.path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            lines[finding.path] = text.splitlines()
        content = lines[finding.path]
        line = content[finding.line - 1] if 0 < finding.line <= len(content) else ""
        # A committed baseline must not let anyone test guesses against a secret on the
        # line (a weak password falls to a dictionary): secrets are hashed as their kind.
        line = redact(line)[0]
        key = "\0".join((finding.rule, finding.path, " ".join(line.split())))
        found.append(fingerprint(key.encode()))
    return found


def write(path: Path, ws: Workspace, findings: Sequence[Finding]) -> None:
    """Record the findings as the accepted baseline (deterministic bytes)."""
    from skillwiki import fsio

    entries = sorted(
        {"rule": f.rule, "path": f.path, "fingerprint": fp}.items()
        for f, fp in zip(findings, line_fingerprints(ws, findings), strict=True)
    )
    data = {"version": VERSION, "findings": [dict(items) for items in entries]}
    fsio.atomic_write(path, (json.dumps(data, indent=2) + "\n").encode())


def apply(path: Path, ws: Workspace, findings: Sequence[Finding]) -> tuple[list[Finding], int]:
    """Return the findings the baseline does not cover, and how many it hid."""
    accepted = Counter(_read(path))
    kept = []
    hidden = 0
    for finding, fp in zip(findings, line_fingerprints(ws, findings), strict=True):
        key = (finding.rule, finding.path, fp)
        if accepted[key] > 0:
            accepted[key] -= 1
            hidden += 1
        else:
            kept.append(finding)
    return kept, hidden


def _read(path: Path) -> list[tuple[str, str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "no such baseline file; create it with --write-baseline") from None
    except (OSError, ValueError) as exc:
        raise InputError(path, f"not a readable baseline ({exc}); write it again") from None
    entries = data.get("findings") if isinstance(data, dict) else None
    if data.get("version") != VERSION or not isinstance(entries, list):
        raise InputError(path, f"not a skillwiki baseline (version {VERSION}); write it again")
    try:
        return [(str(e["rule"]), str(e["path"]), str(e["fingerprint"])) for e in entries]
    except (KeyError, TypeError):
        raise InputError(path, "a baseline entry lacks rule, path or fingerprint") from None
