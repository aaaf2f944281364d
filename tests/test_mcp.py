"""`skillwiki mcp` driven as a client would: a real server subprocess and the MCP SDK's own
stdio client. Tools, schemas and annotations, each tool's answer equal to the CLI's --json,
read-only mode (hidden and refused), errors with the CLI's text, a file changed between calls."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support import Invoke, write

Session = Callable[[ClientSession], Awaitable[Any]]


def _serve(workspace: Path, work: Session, *args: str) -> Any:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillwiki", "mcp", "-w", str(workspace), *args]
    )

    async def main() -> Any:
        async with stdio_client(params) as (read, send), ClientSession(read, send) as session:
            await session.initialize()
            return await work(session)

    return anyio.run(main)


async def _call(session: ClientSession, name: str, **arguments: Any) -> tuple[bool, Any]:
    result = await session.call_tool(name, arguments)
    text = "".join(getattr(item, "text", "") for item in result.content)
    if result.is_error:
        return True, text
    return False, json.loads(text)


def test_tools_schemas_and_annotations(demo: Path) -> None:
    async def work(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in _serve(demo, work)}
    assert set(tools) == {
        "query",
        "show",
        "recall",
        "status",
        "suggest",
        "record_lesson",
        "feedback",
    }
    for name in ("query", "show", "recall", "status", "suggest"):
        assert tools[name].annotations.read_only_hint is True
        assert tools[name].annotations.open_world_hint is False
    for name in ("record_lesson", "feedback"):
        assert tools[name].annotations.destructive_hint is False
    assert "ONLY after the user agreed" in tools["record_lesson"].description
    assert tools["query"].input_schema["required"] == ["text"]
    assert "\n        " not in tools["query"].description  # dedented for the model


def test_each_tool_answers_like_the_cli(demo: Path, invoke: Invoke) -> None:
    feedback = {"task": "sync", "tool_calls": [{"tool": "fetch", "success": False}] * 3}

    async def work(session: ClientSession) -> dict[str, Any]:
        return {
            "query": await _call(session, "query", text="tool failure retry"),
            "show": await _call(session, "show", key="docs/ci.md", max_chars=50),
            "recall": await _call(session, "recall", agent="channel-op"),
            "status": await _call(session, "status"),
            "suggest": await _call(session, "suggest", feedback=feedback),
        }

    answers = _serve(demo, work)
    assert all(not failed for failed, _ in answers.values()), answers
    cli_query = json.loads(invoke("query", "-w", str(demo), "tool failure retry", "--json").stdout)
    assert answers["query"][1]["results"] == cli_query["results"]
    shown = answers["show"][1]
    assert shown["path"] == ".wiki/wiki/docs/ci.md" and shown["truncated"] is True
    assert len(shown["body"]) == 50
    assert answers["recall"][1]["block"].startswith("## Lessons learned")
    cli_status = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert answers["status"][1] == cli_status
    assert answers["suggest"][1]["trigger"] == "consecutive_tool_failures"


def test_writing_tools_and_errors(demo: Path) -> None:
    lesson = "2026-11-30-stop-a-run-at-twice-its-cost-budget"

    async def work(session: ClientSession) -> dict[str, Any]:
        return {
            "feedback": await _call(session, "feedback", lesson_id=lesson, outcome="helped"),
            "record": await _call(
                session,
                "record_lesson",
                title="Check the tag before pushing",
                summary="A push went out untagged.",
                prevention_rule="Run git describe before pushing a release.",
            ),
            "missing": await _call(session, "show", key="no/such.md"),
            "bad outcome": await _call(session, "feedback", lesson_id=lesson, outcome="maybe"),
        }

    answers = _serve(demo, work)
    assert answers["feedback"][1]["evidence"] == 1
    assert answers["record"][1]["created"] is True
    assert answers["record"][1]["status"] == "candidate"  # two sections still to write
    assert (demo / answers["record"][1]["path"]).is_file()
    failed, text = answers["missing"]
    assert failed and text.startswith("Error: no article or lesson 'no/such.md'")
    failed, text = answers["bad outcome"]
    assert (
        failed and text == "Error: --outcome 'maybe' is not one of helped, not-helped, failed-again"
    )


def test_read_only_hides_and_refuses_the_writing_tools(demo: Path) -> None:
    async def work(session: ClientSession) -> Any:
        names = {tool.name for tool in (await session.list_tools()).tools}
        refused = await _call(session, "record_lesson", title="x", summary="y")
        return names, refused

    names, (failed, text) = _serve(demo, work, "--read-only")
    assert names == {"query", "show", "recall", "status", "suggest"}
    assert failed and "record_lesson" in text
    assert not any((demo / ".wiki" / "raw" / "lessons").glob("*-x.md"))


def test_a_file_changed_between_calls_is_seen(demo: Path) -> None:
    async def work(session: ClientSession) -> Any:
        before = await _call(session, "query", text="zanzibar")
        write(demo / ".wiki" / "raw" / "docs" / "zanzibar.md", "# Zanzibar\n\nA new note.\n")
        after = await _call(session, "query", text="zanzibar")
        return before, after

    (_, before), (_, after) = _serve(demo, work)
    assert before["results"] == []
    assert [hit["path"] for hit in after["results"]] == [".wiki/wiki/docs/zanzibar.md"]


def test_without_a_workspace_each_tool_says_to_run_init(tmp_path: Path) -> None:
    async def work(session: ClientSession) -> Any:
        return await _call(session, "status")

    failed, text = _serve(tmp_path, work)
    assert failed and "skillwiki init" in text


def test_without_the_extra_it_says_what_to_install(tmp_path: Path, demo: Path) -> None:
    import os
    import subprocess

    fake = tmp_path / "site"
    fake.mkdir()
    (fake / "mcp.py").write_text("raise ImportError('no mcp here', name='mcp')\n")
    result = subprocess.run(
        [sys.executable, "-m", "skillwiki", "mcp", "-w", str(demo)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(fake)},
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "Error: the MCP server needs the mcp package: pip install 'skillwiki[mcp]'\n"
    )
