from __future__ import annotations

import sys

import pytest

from skillwiki.cli import render


@pytest.mark.parametrize(
    ("tty", "env", "expected"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),
        (True, {"TERM": "dumb"}, False),
    ],
)
def test_colour_only_on_a_terminal_without_no_color(
    monkeypatch: pytest.MonkeyPatch, tty: bool, env: dict[str, str], expected: bool
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert render.fancy() is expected


def test_no_progress_callback_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    with render.progress("Compiling") as callback:
        assert callback is None


def test_each_step_has_its_own_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    with render.phases("Compiling", "Indexing") as piped:
        assert piped == (None, None)
    monkeypatch.setattr(render, "fancy", lambda: True)
    with render.phases("Compiling", "Indexing") as bars:
        assert len(bars) == 2 and all(callable(bar) for bar in bars)
        for bar in bars:
            assert bar is not None
            bar(10, 100)
            bar(100, 100)
