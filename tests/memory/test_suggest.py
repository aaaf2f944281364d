"""suggest: every trigger and threshold edge, derived counts, the proposed command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillwiki import api
from skillwiki.config import SuggestConfig
from skillwiki.memory.lessons import TEMPLATE_TEXT
from skillwiki.memory.suggest import read_run
from tests.support import DATA, Invoke, snapshot


def _fail(tool: str = "telegram_send", error: str = "permission denied") -> dict:
    return {"tool": tool, "success": False, "error": error}


OK = {"tool": "fetch", "success": True}


@pytest.mark.parametrize(
    ("feedback", "trigger"),
    [
        ({}, None),
        ({"replans": 0}, None),
        ({"replans": 1}, "replan"),
        ({"tool_calls": [_fail(), _fail("a"), OK]}, None),  # 2 in a row, different tools
        ({"tool_calls": [_fail("a"), _fail("b"), _fail("c")]}, "consecutive_tool_failures"),
        ({"max_consecutive_tool_failures": 3}, "consecutive_tool_failures"),
        (
            {
                "max_consecutive_tool_failures": 2,
                "tool_calls": [_fail("a"), _fail("b"), _fail("c")],
            },
            None,
        ),
        ({"tool_calls": [_fail(), OK, _fail(), OK, _fail()]}, "repeated_tool_failures"),
        ({"tool_calls": [_fail(), OK, _fail(), OK, _fail(error="permission denied!")]}, None),
        (
            {
                "tool_calls": [
                    _fail(error="x" * 80 + "A"),
                    OK,
                    _fail(error="x" * 80 + "B"),
                    OK,
                    _fail(error="x" * 80),
                ]
            },
            "repeated_tool_failures",
        ),
        ({"retries": 1}, None),
        ({"retries": 2}, "retries"),
        ({"cost_usd": 0.4, "max_cost_usd": 0.2}, None),  # exactly 2x is not over
        ({"cost_usd": 0.41, "max_cost_usd": 0.2}, "cost_overrun"),
        ({"confidence": 0.29}, None),
        ({"confidence": 0.3}, "low_confidence"),
        ({"confidence": 0.59}, "low_confidence"),
        ({"confidence": 0.6}, None),
        ({"rejected": True}, "rejected"),
        # A call that reports an error failed, unless it says it succeeded.
        ({"tool_calls": [{"tool": "a", "error": "boom"}] * 3}, "consecutive_tool_failures"),
        ({"tool_calls": [{"tool": "a", "error": "boom", "success": True}] * 3}, None),
        ({"tool_calls": [{"tool": "a", "error": ""}, {"tool": "b"}, {"tool": "c"}]}, None),
        ({"rejected": True, "retries": 2, "replans": 1}, "replan"),  # the first match names it
    ],
)
def test_triggers(feedback: dict, trigger: str | None) -> None:
    result = api.suggest(feedback, SuggestConfig()).to_json()
    assert result.get("trigger") == trigger
    assert result["suggest"] is (trigger is not None)


def test_thresholds_come_from_config(ws: Path, invoke: Invoke) -> None:
    (ws / ".wiki" / "config.toml").write_text("[suggest]\nretries = 5\n")
    result = invoke("suggest", "-w", str(ws), input=json.dumps({"retries": 4}))
    assert json.loads(result.stdout) == {"suggest": False}


def test_full_output_and_command(ws: Path, invoke: Invoke) -> None:
    feedback = {
        "task": "publish weekly digest",
        "agent": "channel-op",
        "tool_calls": [_fail(), _fail(), _fail(error="permission   denied\n(again) " + "y" * 200)],
        "cost_usd": 0.65,
        "max_cost_usd": 0.2,
    }
    before = snapshot(ws)
    result = invoke("suggest", "-w", str(ws), "-", input=json.dumps(feedback))
    assert result.exit_code == 0
    assert snapshot(ws) == before  # suggest never writes
    out = json.loads(result.stdout)
    assert list(out) == [
        "suggest",
        "trigger",
        "replan_count",
        "failed_tool_count",
        "failed_tools",
        "error_summaries",
        "proposed_title",
        "proposed_summary",
        "proposed_lesson",
        "proposed_prevention_rule",
        "to_fill_in",
        "command",
    ]
    assert out["trigger"] == "consecutive_tool_failures"
    assert out["failed_tool_count"] == 3 and out["failed_tools"] == ["telegram_send"]
    assert out["error_summaries"][0] == "telegram_send: permission denied"
    assert len(out["error_summaries"]) == 2
    assert len(out["error_summaries"][1]) == 180 and "  " not in out["error_summaries"][1]
    assert out["proposed_title"] == "consecutive_tool_failures: publish weekly digest"
    assert out["command"][:2] == ["skillwiki", "record-lesson"]
    command = out["command"]
    assert command[command.index("--agent") + 1] == "channel-op"
    assert command[command.index("--severity") + 1] == "HIGH"
    for heading in ("## What Happened", "## Root Cause", "## Optimization", "## Next Time"):
        assert heading in out["proposed_lesson"]
    # A draft rule from the failure (tool, kind of error, what to check), not the failure text.
    assert out["proposed_prevention_rule"] == "Before calling telegram_send, check its permissions."
    assert command[command.index("--prevention-rule") + 1] == out["proposed_prevention_rule"]
    # The card's sections by their flags: what is to write is a placeholder of its own.
    assert "--body" not in command
    happened = command[command.index("--what-happened") + 1]
    assert happened.startswith(out["proposed_summary"])
    assert "- telegram_send: permission denied" in happened
    assert command[command.index("--root-cause") + 1] == TEMPLATE_TEXT["Root Cause"]
    assert command[command.index("--optimization") + 1] == TEMPLATE_TEXT["Optimization"]
    assert [item.split(" ", 1)[0] for item in out["to_fill_in"]] == [
        "--root-cause",
        "--optimization",
        "--prevention-rule",
        "recorded",
    ]


def test_the_command_records_the_lesson(ws: Path, invoke: Invoke) -> None:
    feedback = {"task": "sync", "tool_calls": [_fail("fetch", "timeout")] * 3}
    command = json.loads(invoke("suggest", "-w", str(ws), input=json.dumps(feedback)).stdout)[
        "command"
    ]
    recorded = invoke(*command[1:], "-w", str(ws), "--json")
    assert recorded.exit_code == 0, recorded.output
    report = json.loads(recorded.stdout)
    assert report["created"] is True
    # Recorded unchanged, it is a candidate: recall does not rank an unfinished lesson first.
    assert report["status"] == "candidate"
    assert report["unfinished"] == ["Root Cause", "Optimization"]
    recalled = json.loads(invoke("recall", "-w", str(ws), "--task", "sync", "--json").stdout)
    assert recalled["block"] == "" and not any(item["included"] for item in recalled["lessons"])
    waiting = invoke("review", "-w", str(ws)).stdout
    assert "unfinished: Root Cause, Optimization" in waiting
    # The proposed lesson is the body the command records.
    proposal = json.loads(invoke("suggest", "-w", str(ws), input=json.dumps(feedback)).stdout)
    assert (ws / report["path"]).read_text().endswith("\n---\n" + proposal["proposed_lesson"])


def test_the_command_with_its_sections_filled_records_an_active_lesson(
    ws: Path, invoke: Invoke
) -> None:
    feedback = {"task": "sync", "agent": "syncer", "tool_calls": [_fail("fetch", "timeout")] * 3}
    command = json.loads(invoke("suggest", "-w", str(ws), input=json.dumps(feedback)).stdout)[
        "command"
    ]
    filled = {"--root-cause": "The mirror was down.", "--optimization": "A second mirror."}
    for flag, text in filled.items():
        command[command.index(flag) + 1] = text
    recorded = invoke(*command[1:], "-w", str(ws), "--json")
    assert recorded.exit_code == 0, recorded.output
    report = json.loads(recorded.stdout)
    assert report["status"] == "active" and report["unfinished"] == []
    raw = (ws / report["path"]).read_text()
    assert raw.count("## Root Cause") == 1 and "Not yet filled in" not in raw
    assert "## Root Cause\n\nThe mirror was down.\n\n## Optimization\n\nA second mirror." in raw
    recalled = json.loads(
        invoke("recall", "-w", str(ws), "--agent", "syncer", "--task", "sync", "--json").stdout
    )
    assert [item["id"] for item in recalled["lessons"] if item["included"]] == [report["id"]]


def test_secrets_in_errors_are_redacted(invoke: Invoke, ws: Path) -> None:
    token = "xoxb-" + "1234567890-abcdefghij"
    feedback = {"tool_calls": [_fail("slack", f"bad token {token}")] * 3}
    result = invoke("suggest", "-w", str(ws), input=json.dumps(feedback))
    assert token not in result.stdout
    assert "[REDACTED:slack_token]" in result.stdout


def test_suggest_works_outside_a_workspace(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    file = tmp_path / "run.json"
    file.write_text(json.dumps({"retries": 3}))
    result = invoke("suggest", str(file))
    assert json.loads(result.stdout)["trigger"] == "retries"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{not json",
            "stdin: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1)); pass the run's feedback object",
        ),
        ("[1, 2]", "stdin: the feedback must be a JSON object"),
        ('{"retries": "two"}', "stdin: 'retries' must be a whole number of 0 or more"),
        ('{"tool_calls": {}}', "stdin: 'tool_calls' must be a list"),
        ('{"tool_calls": [1]}', "stdin: tool_calls[0] must be an object with a string 'tool'"),
        ('{"confidence": "high"}', "stdin: 'confidence' must be a number"),
        (
            '{"tool_calls": [' + ",".join(['{"tool": "x"}'] * 10001) + "]}",
            "stdin: 'tool_calls' has 10001 entries; at most 10000",
        ),
    ],
)
def test_malformed_feedback_is_exit_2(ws: Path, invoke: Invoke, text: str, message: str) -> None:
    result = invoke("suggest", "-w", str(ws), input=text)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {message}\n"


CLIENTS = DATA / "clients" / "claude-code"


def _payload(name: str, transcript: Path | None) -> str:
    text = (CLIENTS / name).read_text(encoding="utf-8")
    return text.replace("TRANSCRIPT", str(transcript) if transcript else "/nonexistent.jsonl")


@pytest.mark.parametrize("event", ["post-tool-use-failure.json", "stop.json"])
def test_claude_code_payloads_are_read_with_their_transcript(
    ws: Path, invoke: Invoke, event: str
) -> None:
    """A recorded Claude Code hook payload: the session's transcript gives every tool call
    (three failures in a row here) and the user's first prompt as the task."""
    payload = _payload(event, CLIENTS / "transcript.jsonl")
    result = invoke("suggest", "-w", str(ws), input=payload)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["suggest"] is True and out["trigger"] == "consecutive_tool_failures"
    assert out["failed_tools"] == ["mcp__telegram__send"] and out["failed_tool_count"] == 3
    assert out["proposed_title"].endswith("Publish the weekly digest to the team channel")
    assert out["proposed_prevention_rule"] == (
        "Before calling mcp__telegram__send, check its permissions."
    )


def test_a_failure_payload_without_its_transcript_is_one_failed_call(
    ws: Path, invoke: Invoke
) -> None:
    payload = _payload("post-tool-use-failure.json", None)
    run = read_run(json.loads(payload), "stdin")
    assert [(call.tool, call.success) for call in run.tool_calls] == [
        ("mcp__telegram__send", False)
    ]
    result = invoke("suggest", "-w", str(ws), input=payload)
    assert json.loads(result.stdout) == {"suggest": False}  # one failure: below every threshold


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "a SessionStart hook payload carries no run to judge"),
        ('{"prompt": "x", "cwd": "/"}', "no feedback field in it (cwd, prompt)"),
    ],
)
def test_payloads_that_are_not_run_feedback_are_named(
    ws: Path, invoke: Invoke, text: str | None, message: str
) -> None:
    payload = text if text is not None else _payload("session-start.json", None)
    result = invoke("suggest", "-w", str(ws), input=payload)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: stdin: " + message)


def test_an_endless_input_is_refused_not_read_whole(invoke: Invoke, tmp_path: Path) -> None:
    """/dev/zero (or a whole log piped by mistake) was read into memory to its end: 24 GB
    before the kernel stopped it. At most 64 MiB is read, then one Error: line."""
    result = invoke("suggest", "/dev/zero")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: /dev/zero: is larger than 64 MiB: not a run's feedback or a hook payload\n",
    )
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (64 << 20) + b"{}")
    result = invoke("suggest", "-", input=big.read_bytes())
    assert result.stderr.startswith("Error: stdin: is larger than 64 MiB")
