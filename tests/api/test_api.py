"""The library API the faces share: for each use-case, the CLI's `--json`, the MCP tool's
answer and the API value's `to_json()` are one object. Each face is called as it is used (the
CLI in-process through Typer, the MCP tool through the server's own call_tool), each on its
own copy of the demo workspace where the use-case writes, so that each row compares three
answers made independently."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from skillwiki import api
from skillwiki.config import Config, load_config
from skillwiki.workspace import Workspace, find_workspace
from tests.support import Invoke

LESSON = "2026-11-30-stop-a-run-at-twice-its-cost-budget"
FAILURES: dict[str, Any] = {"task": "sync", "tool_calls": [{"tool": "fetch", "success": False}] * 3}
RECORDED: dict[str, Any] = {
    "title": "Pin the runner image",
    "summary": "The runner image moved under a build.",
    "root_cause": "The image was named by tag.",
    "optimization": "The image is pinned by digest.",
    "prevention_rule": "Pin images by digest.",
    "severity": "HIGH",
    "tag": ["ci", "docker"],
}


def _opened(root: Path) -> tuple[Workspace, Config]:
    ws = find_workspace(root, root)
    return ws, load_config(ws.config_file, shown=ws.rel(ws.config_file))


def _copy(demo: Path, name: str) -> Path:
    target = demo.parent / name
    shutil.copytree(demo, target)
    return target


def _cli(invoke: Invoke, *args: str, input: str | None = None) -> Any:
    result = invoke(*args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _tool(root: Path, name: str, arguments: dict[str, Any]) -> Any:
    """The MCP tool's answer, called in-process on a server kept open on `root`."""
    pytest.importorskip("mcp")
    from skillwiki import server
    from skillwiki.server.live import WorkspaceLookup

    wiki = server.build(WorkspaceLookup(root), read_only=False)
    try:
        result = anyio.run(wiki.call_tool, name, arguments)
    finally:
        wiki.workspace.close()
    assert not result.is_error, result.content
    return result.structured_content


def _read(root: Path, use: Callable[[api.Wiki], Any]) -> Any:
    ws, config = _opened(root)
    with api.open_wiki(ws, config) as wiki:
        return use(wiki).to_json()


def _flags(fields: dict[str, Any]) -> list[str]:
    """record-lesson's fields as its command line: a list's flag once for each item."""
    args: list[str] = []
    for name, value in fields.items():
        for item in value if isinstance(value, list) else [value]:
            args += ["--" + name.replace("_", "-"), item]
    return args


def test_query(demo: Path, invoke: Invoke) -> None:
    text = "tool failure retry"
    cli = _cli(invoke, "query", "-w", str(demo), text)  # compiles first, so all see refreshed 0
    tool = _tool(demo, "query", {"text": text, "explain": True})
    value = _read(demo, lambda wiki: api.query(wiki, text, explain=True))
    assert cli["results"] and cli["refreshed"] == 0
    assert tool == value
    assert cli == {**value, "results": [_without_signals(hit) for hit in value["results"]]}
    assert _cli(invoke, "query", "-w", str(demo), text, "--explain") == value


def _without_signals(hit: dict[str, Any]) -> dict[str, Any]:
    return {key: item for key, item in hit.items() if key != "signals"}


def test_show(demo: Path, invoke: Invoke) -> None:
    """The CLI shows the body whole; the tool cuts it at max_chars and says whether it did."""
    cli = _cli(invoke, "show", "-w", str(demo), "docs/ci.md")
    tool = _tool(demo, "show", {"key": "docs/ci.md", "max_chars": 50})
    assert tool == _read(demo, lambda wiki: api.show(wiki, "docs/ci.md", max_chars=50))
    assert cli == _read(demo, lambda wiki: api.show(wiki, "docs/ci.md"))
    assert tool["truncated"] is True and tool["body"] == cli["body"][:50]
    assert {key: item for key, item in tool.items() if key not in ("body", "truncated")} == {
        key: item for key, item in cli.items() if key != "body"
    }


@pytest.mark.parametrize("not_fresh", [True, False], ids=["not fresh", "every file"])
def test_status(demo: Path, invoke: Invoke, not_fresh: bool) -> None:
    (demo / ".wiki" / "raw" / "docs" / "new-note.md").write_text("# A new note\n\nText.\n")
    cli = _cli(invoke, "status", "-w", str(demo), *(["--not-fresh"] if not_fresh else []))
    tool = _tool(_copy(demo, "served"), "status", {"not_fresh": not_fresh})
    value = api.status(*_opened(demo), not_fresh=not_fresh).to_json()
    assert cli == tool == value
    assert value["totals"]["new"] == 1 and value["fresh"] is False
    assert len(value["files"]) == (1 if not_fresh else 13)


def test_recall(demo: Path, invoke: Invoke) -> None:
    cli = _cli(invoke, "recall", "-w", str(demo), "--agent", "channel-op", "--task", "send")
    tool = _tool(demo, "recall", {"agent": "channel-op", "task": "send"})
    value = _read(demo, lambda wiki: api.recall(wiki, agent="channel-op", task="send"))
    assert cli == tool == value
    assert value["block"].startswith("## Lessons learned") and value["lessons"]


def test_suggest(demo: Path, invoke: Invoke) -> None:
    """The tool's answer is the CLI's and the arguments of record_lesson, which it can call."""
    cli = json.loads(invoke("suggest", "-w", str(demo), "-", input=json.dumps(FAILURES)).stdout)
    tool = _tool(demo, "suggest", {"feedback": FAILURES})
    ws, config = _opened(demo)
    value = api.suggest(FAILURES, config.suggest)
    assert cli == value.to_json() and cli["suggest"] is True
    assert tool == value.to_json(arguments=True) == {**cli, "record_lesson": tool["record_lesson"]}
    assert value.proposal is not None
    assert tool["record_lesson"] == api.record_lesson_fields(value.proposal.lesson)
    quiet = {"task": "sync", "tool_calls": []}
    assert _tool(demo, "suggest", {"feedback": quiet}) == {"suggest": False}


def test_record_lesson(demo: Path, invoke: Invoke) -> None:
    served, called = _copy(demo, "served"), _copy(demo, "called")
    cli = _cli(invoke, "record-lesson", "-w", str(demo), *_flags(RECORDED))
    tool = _tool(served, "record_lesson", RECORDED)
    ws, config = _opened(called)
    fields = {key: value for key, value in RECORDED.items() if key not in ("title", "summary")}
    lesson = api.lesson_input(RECORDED["title"], RECORDED["summary"], **fields)
    value = api.record_lesson(ws, config, lesson)
    assert cli == tool == value.to_json()
    assert cli["created"] is True and cli["status"] == "active"
    assert (called / ".wiki" / "wiki" / cli["path"].removeprefix(".wiki/raw/")).is_file()


def test_feedback(demo: Path, invoke: Invoke) -> None:
    served, called = _copy(demo, "served"), _copy(demo, "called")
    cli = _cli(invoke, "feedback", "-w", str(demo), LESSON, "--outcome", "helped", "--note", "n")
    arguments = {"lesson_id": LESSON, "outcome": "helped", "note": "n"}
    tool = _tool(served, "feedback", arguments)
    value = api.feedback(*_opened(called), LESSON, "helped", note="n")
    assert cli == tool == value.to_json()
    assert cli["id"] == LESSON and cli["outcome"] == "helped" and cli["evidence"] >= 1


# The use-cases with no MCP tool: the CLI's --json and the API value's.


def test_compile(demo: Path, invoke: Invoke) -> None:
    raw = demo / ".wiki" / "raw" / "docs" / "new-note.md"
    raw.write_text("# A new note\n\nText.\n")
    called = _copy(demo, "called")
    cli = _cli(invoke, "compile", "-w", str(demo))
    value = api.compile(*_opened(called)).to_json()
    assert cli == value and cli["written"] == [".wiki/wiki/docs/new-note.md"]


def test_ingest(demo: Path, invoke: Invoke, tmp_path: Path) -> None:
    note = tmp_path / "notes" / "deploy.md"
    note.parent.mkdir()
    note.write_text("# Deploy\n\nRoll forward.\n")
    called = _copy(demo, "called")
    cli = _cli(invoke, "ingest", "-w", str(demo), str(note), "--tags", "ops, ci")
    value = api.ingest(*_opened(called), [str(note)], tags=("ops", "ci")).to_json()
    assert cli == value and len(cli["files"]) == 1 and cli["compile"]["written"]


def test_review(demo: Path, invoke: Invoke) -> None:
    # A section left to fill: a candidate.
    recorded: dict[str, Any] = {**RECORDED, "root_cause": None}
    ws, config = _opened(demo)
    fields = {key: value for key, value in recorded.items() if key not in ("title", "summary")}
    lesson = api.record_lesson(
        ws, config, api.lesson_input(RECORDED["title"], RECORDED["summary"], **fields)
    )
    assert lesson.recorded.status == "candidate"
    cli = _cli(invoke, "review", "-w", str(demo))
    assert cli == api.review(ws, config).to_json()
    assert [item["id"] for item in cli["pending"]] == [lesson.recorded.id]
    rejected = _copy(demo, "called")
    cli = _cli(invoke, "review", "-w", str(demo), lesson.recorded.id, "--reject")
    value = api.review(*_opened(rejected), lesson.recorded.id, reject=True)
    assert cli == value.to_json() == {"id": lesson.recorded.id, "status": "archived"}
