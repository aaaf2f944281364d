"""The hook's plain form, read without Typer (cli/hook_run.py): every call it reads is the call
Typer parses from the same arguments, and a hook answers the same bytes either way."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from skillwiki.cli import hook_cmd, hook_run
from skillwiki.cli.hook_run import HookCall, plain_form
from tests.support import Invoke

PLAIN = [
    (["hook", "claude-code", "user-prompt"], HookCall("claude-code", "user-prompt")),
    (["hook", "codex", "pre-tool", "--agent", "coder"], HookCall("codex", "pre-tool", "coder")),
    (["hook", "cursor", "stop", "--agent=a b"], HookCall("cursor", "stop", "a b")),
    (
        ["-w", "some/dir", "hook", "codex", "stop"],
        HookCall("codex", "stop", None, Path("some/dir")),
    ),
    (
        ["--workspace", "/x", "hook", "claude-code", "stop", "--agent", "ü"],
        HookCall("claude-code", "stop", "ü", Path("/x")),
    ),
    (["hook", "nope", "no-event"], HookCall("nope", "no-event")),  # run() warns, as Typer's does
]
NOT_PLAIN = [
    ["hook"],
    ["hook", "claude-code"],
    ["hook", "--help"],
    ["hook", "claude-code", "stop", "--agent"],
    ["hook", "claude-code", "stop", "--agent", ""],
    ["hook", "claude-code", "stop", "--agent", "-x"],
    ["hook", "claude-code", "stop", "--agent="],
    ["hook", "claude-code", "stop", "-w", "x"],
    ["hook", "claude-code", "stop", "extra"],
    ["hook", "claude-code", "--", "stop"],
    ["-w", "-x", "hook", "claude-code", "stop"],
    ["-wdir", "hook", "claude-code", "stop"],
    ["--workspace=dir", "hook", "claude-code", "stop"],
    ["query", "claude-code", "stop"],
]


def _typer_call(invoke: Invoke, args: list[str], monkeypatch: pytest.MonkeyPatch) -> object:
    """The call Typer's command makes of the arguments (None: it made none)."""
    made: list[HookCall] = []
    monkeypatch.setattr(hook_cmd, "run", made.append)
    invoke(*args)
    return made[0] if made else None


@pytest.mark.parametrize(("args", "call"), PLAIN, ids=[" ".join(a) for a, _ in PLAIN])
def test_the_plain_form_is_read_as_typer_reads_it(
    args: list[str], call: HookCall, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILLWIKI_WORKSPACE", raising=False)
    assert plain_form(args, {}) == call
    assert _typer_call(invoke, args, monkeypatch) == call


@pytest.mark.parametrize("args", NOT_PLAIN, ids=[" ".join(a) for a in NOT_PLAIN])
def test_every_other_form_is_left_to_typer(args: list[str]) -> None:
    assert plain_form(args, {}) is None


def test_a_workspace_named_by_the_environment_is_left_to_typer() -> None:
    args = ["hook", "claude-code", "stop"]
    assert plain_form(args, {"SKILLWIKI_WORKSPACE": "/x"}) is None
    assert plain_form(args, {"SKILLWIKI_WORKSPACE": ""}) is None


TOKENS = ["hook", "claude-code", "codex", "stop", "pre-tool", "--agent", "-w", "--workspace"]


@examples(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS) | st.text(min_size=0, max_size=3), max_size=7))
def test_any_call_the_plain_form_reads_is_typer_s_call(args: list[str]) -> None:
    """Over arbitrary arguments: where the plain form reads a call, Typer makes that call."""
    from typer.testing import CliRunner

    from skillwiki.cli.app import app

    call = plain_form(args, {})
    if call is None:
        return
    made: list[HookCall] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hook_cmd, "run", made.append)
        patch.delenv("SKILLWIKI_WORKSPACE", raising=False)
        CliRunner().invoke(app, args)
    assert made == [call]


def test_a_plain_hook_loads_no_typer_and_answers_as_typer_does(demo: Path) -> None:
    """The same hook, in its plain form (no Typer) and with an option only Typer reads
    (`-w` after the command), prints the same bytes; the plain one never imports Typer."""
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "fix the deploy job"})
    env = {**os.environ, "SKILLWIKI_NO_SERVER": "1", "SKILLWIKI_HOOK_SECONDS": "60"}
    env.pop("SKILLWIKI_WORKSPACE", None)
    code = (
        "import os, sys\n"
        "real_exit = os._exit\n"
        "def leave(status):\n"
        "    sys.stdout.flush()\n"
        "    sys.stderr.write(f'typer loaded: {\"typer\" in sys.modules}\\n')\n"
        "    real_exit(status)\n"
        "os._exit = leave\n"
        "from skillwiki.cli import main\n"
        "main()\n"
    )
    plain = [sys.executable, "-c", code, "-w", str(demo), "hook", "claude-code", "user-prompt"]
    typer = [sys.executable, "-c", code, "hook", "claude-code", "user-prompt", "-w", str(demo)]
    subprocess.run(plain, input=payload, capture_output=True, text=True, env=env, check=True)
    time.sleep(2.1)  # the files the first run wrote out of the racy window
    answers = {}
    for name, argv in (("plain", plain), ("typer", typer)):
        # a session of its own each: a session is shown a lesson once
        each = payload.replace("{", f'{{"session_id": "{name}", ', 1)
        done = subprocess.run(argv, input=each, capture_output=True, text=True, env=env)
        answers[name] = (done.returncode, done.stdout, done.stderr)
    assert answers["plain"][1] and "Stop a run at twice its cost budget" in answers["plain"][1]
    assert answers["plain"][:2] == answers["typer"][:2]
    assert answers["plain"][2] == "typer loaded: False\n"
    assert answers["typer"][2] == "typer loaded: True\n"


def test_run_answers_nothing_outside_a_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    payload = b'{"hook_event_name": "UserPromptSubmit", "prompt": "fix the deploy job"}'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload)))
    hook_run.run(HookCall("claude-code", "user-prompt"))
    assert capsys.readouterr() == ("", "")
