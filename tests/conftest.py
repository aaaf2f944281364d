"""Shared fixtures: real workspaces under tmp_path, a CliRunner, and a snapshot of the disk."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from skillwiki.cli.app import app

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
DEMO = REPO / "fixtures" / "demo"

Invoke = Callable[..., Result]

# Every test runs at this moment, whatever the wall clock says: lesson ids, `created:` dates,
# evidence ages and archive decisions do not drift as days pass (subprocesses inherit it).
NOW = "2026-11-30T12:00:00Z"
TODAY = NOW[:10]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLWIKI_NOW", NOW)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def invoke(runner: CliRunner) -> Invoke:
    """Run the CLI in-process: invoke("query", "x", input=...)."""

    def run(*args: str, input: str | bytes | None = None) -> Result:
        return runner.invoke(app, list(args), input=input)

    return run


@pytest.fixture
def ws(tmp_path: Path, invoke: Invoke) -> Path:
    """An initialised, empty workspace; returns its root."""
    root = tmp_path / "repo"
    root.mkdir()
    result = invoke("init", "-w", str(root))
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A private copy of the bundled demo workspace, without any cache."""
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target, ignore=shutil.ignore_patterns(".cache", ".lock"))
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root (but the disposable cache and lock) with its bytes."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if ".wiki/.cache" in rel or rel.endswith(".wiki/.lock") or not path.is_file():
            continue
        found[rel] = path.read_bytes()
    return found


def mtimes(root: Path) -> dict[str, int]:
    return {
        path.relative_to(root).as_posix(): path.stat().st_mtime_ns
        for path in root.rglob("*")
        if path.is_file() and ".cache" not in path.parts and path.name != ".lock"
    }


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def put_in_every_state(demo: Path) -> None:
    """Make the demo hold one new, one stale, one orphan and one edited article."""
    wiki = demo / ".wiki"
    write(wiki / "raw" / "docs" / "new.md", "# New\n")
    (wiki / "raw" / "docs" / "ci.md").write_text("# CI\n\nChanged.\n")
    (wiki / "raw" / "docs" / "deployment.md").unlink()
    edited = wiki / "wiki" / "docs" / "agents.md"
    edited.write_text(edited.read_text() + "\nmine\n")
