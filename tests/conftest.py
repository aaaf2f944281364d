"""Shared fixtures: real workspaces under tmp_path, a CliRunner, a clock set to tests.support.NOW.

Helpers and constants live in the tests.support package."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest
from hypothesis import settings
from typer.testing import CliRunner, Result

from skillwiki.cli.app import app
from skillwiki.cli.coerce import built_once
from tests.support import DEMO, NOW, Invoke, corpora

# No property test has a time limit per example: speed is measured in bench/, and a busy
# machine would fail an example that takes 200 ms once (Hypothesis's default deadline).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test marked `corpus` runs with coverage paused (when it is measured at all)."""
    measuring = coverage.Coverage.current() if item.get_closest_marker("corpus") else None
    if measuring is not None:
        measuring.stop()
    try:
        return (yield)
    finally:
        if measuring is not None:
            measuring.start()


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLWIKI_NOW", NOW)


@pytest.fixture(autouse=True)
def text_search_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Search as without the semantic extra, whose fused ranking would change the orders and
    scores the tests expect; tests/search/test_semantic.py turns it on where it is tested."""
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "0")


@pytest.fixture(scope="session", autouse=True)
def command_built_once() -> Iterator[None]:
    """The tests invoke one app, turned into its command once here (skillwiki.cli.coerce).
    (The CLI itself builds only the command it runs, once a process.)"""
    with built_once(app):
        yield


@pytest.fixture
def corpora_dir() -> Path:
    """The real corpora beside the checkout: a test that takes them is skipped without them."""
    return corpora()


@pytest.fixture(params=[False, True], ids=["bundled", "corpora"])
def with_corpora(request: pytest.FixtureRequest) -> bool:
    """Run a test over the Markdown bundled here, then again with the real corpora too: that
    run is skipped, saying why, where they are not beside the checkout (tests.support.corpora)."""
    if request.param:
        corpora()
    return bool(request.param)


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
