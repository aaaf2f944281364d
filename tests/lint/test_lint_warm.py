"""A lint whose saved report no longer answers (the config changed, a file changed) reads again
only what changed: the facts of every file, the raw files' links SW001 pairs its findings with
and the secrets SW011 compares all come from the cache."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillwiki import markdown, secrets, statcache
from skillwiki.lint import raw_links
from tests.support import Invoke, write


def _counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[str]:
    """Count the calls of `module.name` from now on; each call appends its first argument's
    start."""
    calls: list[str] = []
    real: Callable[..., Any] = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0])[:40])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _settle(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file an hour old, and the racy window made short and waited out, so that the
    caches trust what they saved."""
    old = time.time() - 3600
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))
    for module in (statcache, statcache.cache):
        monkeypatch.setattr(module, "RACY_NS", 50_000_000)
    time.sleep(0.1)


def _lint(invoke: Invoke, root: Path) -> list[tuple[str, int, str]]:
    result = invoke("lint", "-w", str(root), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return [(f["path"], f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]]


def test_a_warm_lint_reads_no_file_it_has_facts_for(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    for version in ("v1", "v2"):
        write(
            ws / "docs" / version / "deploy.md",
            "# Deploy\n\nSee [the runbook](runbook.md) and [setup](setup.md#missing).\n\n"
            "Connect with DB_PASSWORD=Xk9#mQ2v_Lp7z and go.\n",
        )
        write(ws / "docs" / version / "setup.md", "# Setup\n\n## Install\n\nText.\n")
    assert invoke("ingest", "-w", str(ws), str(ws / "docs")).exit_code == 0
    _settle(ws, monkeypatch)
    parsed = _counted(monkeypatch, markdown, "analyze")
    searched = _counted(monkeypatch, secrets, "find")
    cold = _lint(invoke, ws)
    assert [rule for _, _, rule in cold].count("SW001") == 4
    assert [rule for _, _, rule in cold].count("SW011") == 2
    assert parsed and searched  # the cold lint read every file, raw links included
    assert raw_links.MEMO.parsed >= 2
    parsed.clear()
    searched.clear()
    before = raw_links.MEMO.parsed
    # the report no longer answers (another config), but no file changed
    (ws / ".wiki" / "config.toml").write_text('[lint.rules]\nSW012 = "off"\n')
    assert _lint(invoke, ws) == [finding for finding in cold if finding[2] != "SW012"]
    assert parsed == [] and searched == []
    assert raw_links.MEMO.parsed == before
    # a process that starts anew takes up the raw links the last lint kept
    raw_links.MEMO.known.clear()
    (ws / ".wiki" / "config.toml").write_text('[lint.rules]\nSW012 = "warning"\n')
    assert _lint(invoke, ws) == cold
    assert parsed == [] and searched == [] and raw_links.MEMO.parsed == before
    # the log, which every compile lengthens, is searched for secrets but never parsed
    log = ws / ".wiki" / "log.md"
    log.write_text(log.read_text() + "- one more entry, [a link](nowhere.md)\n")
    time.sleep(0.1)  # out of the racy window made short
    assert _lint(invoke, ws) == cold
    assert parsed == [] and searched == [log.read_text()[:40]]
    # a changed raw file is read again, and only it
    raw = ws / ".wiki" / "raw" / "docs" / "v2" / "deploy.md"
    raw.write_text(raw.read_text().replace("runbook.md", "guide.md"))
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    _settle(ws, monkeypatch)
    _lint(invoke, ws)
    assert raw_links.MEMO.parsed == before + 1
