"""`skillwiki mcp` against what a model or a client may send it, driven as clients drive it: a
real server subprocess, spoken to by the SDK's stdio client or by a raw JSON-RPC client writing
bytes to its stdin (and, to make a failure no workspace can be damaged into, the SDK's client
over memory). One row per hostile request:

- a transcript path the model names in `suggest` that leads outside the workspace and the
  client's roots: refused, nothing of the file in the answer;
- a request whose line the JSON parser refuses (a lone surrogate, nesting 100k deep, a
  5000-digit number, a syntax error after the id): answered at once, with its id;
- a string argument that looks like JSON (`"null"`, `"[1,2]"`, `"{}"`): kept as that string;
- a failure nobody foresaw: a tool error that says what failed, with no path outside the
  workspace.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import frontmatter
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from tests.support import DEMO, NOW, TODAY
from tests.support.mcp import raw_session, serve

WAIT = 30  # seconds a reply may take before the request counts as never answered
LESSON = "2026-11-30-stop-a-run-at-twice-its-cost-budget"


@pytest.fixture(scope="module", autouse=True)
def servers_at_the_fixed_clock() -> Iterator[None]:
    """The servers the module's fixtures start see the clock and search each test sees
    (conftest sets them for each test, after a module's fixtures are made)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SKILLWIKI_NOW", NOW)
        patch.setenv("SKILLWIKI_SEMANTIC", "0")
        yield


# --- 4. A transcript outside the workspace and the client's roots -----------------------------

OTHER_PROMPT = "Rotate the payroll database credentials of acme-internal"
OTHER_ERROR = "psql: FATAL: password authentication failed for user payroll_admin"


def _transcript(path: Path) -> Path:
    """A Claude Code transcript of another project: its prompt and three failed calls."""
    lines: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": OTHER_PROMPT}}
    ]
    for number in range(3):
        use = {"type": "tool_use", "id": f"t{number}", "name": "Bash", "input": {}}
        result = {"type": "tool_result", "tool_use_id": f"t{number}", "is_error": True}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [use]}})
        result["content"] = OTHER_ERROR
        lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# Each a transcript_path as a model may name it ({ws}: the workspace, {base}: the folder the
# workspace, the other project and the client's declared root are in), and the hook event.
OUTSIDE = {
    "absolute, elsewhere": ("{base}/other/session.jsonl", "Stop"),
    "the user's home": ("~/.claude/projects/other/session.jsonl", "Stop"),
    "relative, up and out": ("../other/session.jsonl", "Stop"),
    "dot-dot after the workspace": ("{ws}/../other/session.jsonl", "Stop"),
    "dot-dot inside then out": ("{ws}/.wiki/../../other/session.jsonl", "SubagentStop"),
    "a symlink in the workspace": ("{ws}/link.jsonl", "Stop"),
    "through a symlinked folder": ("{ws}/linked/session.jsonl", "PostToolUseFailure"),
    "a symlink in a declared root": ("{base}/declared/out.jsonl", "Stop"),
    "the workspace's name as a prefix": ("{ws}-other/session.jsonl", "Stop"),
    "the server's environment": ("/proc/self/environ", "Stop"),
    "a device": ("/dev/zero", "Stop"),
    "Cursor's camelCase event": ("{base}/other/session.jsonl", "stop"),
    "a NUL byte in the name": ("{base}/other/session.jsonl\x00", "Stop"),
}
INSIDE = {
    "in the workspace": "{ws}/.transcripts/session.jsonl",
    "in a declared root": "{base}/declared/session.jsonl",
}


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The workspace (a copy of the demo) and the folder around it, with the other project's
    transcript in `other/`, in the client's declared root and in the workspace, and the links
    that lead out."""
    base = tmp_path_factory.mktemp("transcripts")
    ws = base / "ws"
    shutil.copytree(DEMO, ws, ignore=shutil.ignore_patterns(".cache", ".lock"))
    other = _transcript(base / "other" / "session.jsonl")
    _transcript(base / "home" / ".claude" / "projects" / "other" / "session.jsonl")
    _transcript(base / "ws-other" / "session.jsonl")
    _transcript(base / "declared" / "session.jsonl")
    _transcript(ws / ".transcripts" / "session.jsonl")
    (ws / "link.jsonl").symlink_to(other)
    (ws / "linked").symlink_to(other.parent, target_is_directory=True)
    (base / "declared" / "out.jsonl").symlink_to(other)
    return base, ws


def _suggest_each(
    base: Path, ws: Path, paths: dict[str, tuple[str, str]], roots: list[Path] | None
) -> dict[str, tuple[bool, Any]]:
    """suggest called with a hook payload naming each transcript, in one server session over
    stdio (started in the workspace, the user's home in `base`)."""

    async def work(session: ClientSession) -> dict[str, tuple[bool, Any]]:
        answers = {}
        for name, (path, event) in paths.items():
            payload = {
                "hook_event_name": event,
                "session_id": "s-1",
                "transcript_path": path.format(base=base, ws=ws),
            }
            with anyio.fail_after(WAIT):
                result = await session.call_tool("suggest", {"feedback": payload})
            text = "".join(getattr(block, "text", "") for block in result.content)
            answers[name] = (bool(result.is_error), text)
        return answers

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base / "home"))
        answers: dict[str, tuple[bool, Any]] = serve(ws, work, cwd=ws, roots=roots)
    return answers


@pytest.fixture(scope="module")
def outside_answers(places: tuple[Path, Path]) -> dict[str, tuple[bool, Any]]:
    base, ws = places
    return _suggest_each(base, ws, OUTSIDE, [base / "declared"])


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
@pytest.mark.parametrize("row", list(OUTSIDE))
def test_a_transcript_outside_the_workspace_and_roots_is_refused(
    outside_answers: dict[str, tuple[bool, Any]], row: str
) -> None:
    """The model names the transcript of another project (or a file of the machine): the
    call is refused in one `Error:` line, before the file is opened, and nothing of it is in
    the answer."""
    failed, text = outside_answers[row]
    assert failed, text
    assert text.startswith("Error: ") and "transcript_path" in text and "\n" not in text
    assert OTHER_PROMPT not in text and "payroll" not in text


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
def test_a_transcript_inside_the_workspace_or_a_declared_root_is_read(
    places: tuple[Path, Path],
) -> None:
    base, ws = places
    inside = {name: (path, "Stop") for name, path in INSIDE.items()}
    answers = _suggest_each(base, ws, inside, [base / "declared"])
    for name, (failed, text) in answers.items():
        assert not failed, (name, text)
        assert json.loads(text)["proposed_title"].endswith(OTHER_PROMPT), name
    # A client that declares no roots: only the workspace.
    answers = _suggest_each(base, ws, inside, None)
    assert not answers["in the workspace"][0]
    failed, text = answers["in a declared root"]
    assert failed and text.startswith("Error: ") and "transcript_path" in text


# --- 10. Requests the JSON parser refuses -----------------------------------------------------


def _nested(depth: int, opening: str = "[", closing: str = "]") -> str:
    return opening * depth + closing * depth


def _call_line(request_id: Any, text: str, rest: str = "") -> str:
    """A tools/call of query as raw JSON text: `text` is the argument's JSON as given."""
    return (
        f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "method": "tools/call", '
        f'"params": {{"name": "query", "arguments": {{"text": {text}{rest}}}}}}}'
    )


# Each a line a client writes, and the id its answer must carry.
UNPARSED = {
    "a lone surrogate": (_call_line(101, '"\\ud800"'), 101),
    "a lone low surrogate, string id": (_call_line("s-102", '"ok \\udc00"'), "s-102"),
    "arrays nested 100k deep": (_call_line(103, _nested(100_000)), 103),
    "objects nested 100k deep": (_call_line(104, '{"a": ' * 100_000 + "1" + "}" * 100_000), 104),
    "the id after the nesting": (
        '{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "query", '
        f'"arguments": {{"text": {_nested(100_000)}}}}}, "id": 105}}',
        105,
    ),
    "a 5000-digit number": (_call_line(106, '"x"', ', "limit": ' + "9" * 5000), 106),
    "a trailing comma": (_call_line(107, '"x"', ","), 107),
    "an unknown escape": (_call_line(108, '"\\x41"'), 108),
    "a line torn off": ('{"jsonrpc": "2.0", "id": "s-109", "method": "ping", "params": {', "s-109"),
    "a string left open, 10 MB": (_call_line(110, '"' + "x" * 10_000_000), 110),
}
HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"},
}


@pytest.fixture(scope="module")
def unparsed_answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    ws = tmp_path_factory.mktemp("unparsed") / "ws"
    shutil.copytree(DEMO, ws, ignore=shutil.ignore_patterns(".cache", ".lock"))
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        *(line for line, _ in UNPARSED.values()),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    ]
    got = raw_session(ws, lines)
    assert got[0] is not None and "result" in got[0]
    assert got[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}  # the server served on
    return dict(zip(UNPARSED, got[2:-1], strict=True))


@pytest.mark.parametrize("row", list(UNPARSED))
def test_a_request_the_parser_refuses_is_answered_with_its_id(
    unparsed_answers: dict[str, Any], row: str
) -> None:
    """A raw client's request whose line the parser refuses: a parse error (-32700) that
    carries the request's id, so the client stops waiting, and says what the parser found."""
    answer = unparsed_answers[row]
    assert answer is not None, "no reply"
    assert answer["id"] == UNPARSED[row][1]
    assert answer["error"]["code"] == -32700
    message = answer["error"]["message"]
    assert message.startswith("Parse error: ") and " column " in message


def _nested_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


# Arguments the SDK's own client sends that the server's parser refuses.
SDK_UNPARSED = {
    "a 5000-digit integer": {"text": "x", "limit": 10**4999},
    "lists nested 200 deep": {"text": _nested_list(200)},
}


@pytest.mark.parametrize("row", list(SDK_UNPARSED))
def test_the_sdk_client_gets_an_answer_to_what_the_parser_refuses(demo: Path, row: str) -> None:
    """The SDK's client sends these as JSON it can write; the server's parser refuses them.
    The client is answered (an MCPError with the parse error's code), not left waiting."""

    async def work(session: ClientSession) -> Any:
        with anyio.move_on_after(WAIT):
            try:
                await session.call_tool("query", SDK_UNPARSED[row])
            except MCPError as exc:
                return exc.code
            return "answered as a success"
        return "no reply"

    assert serve(demo, work) == -32700


def test_a_request_without_a_recoverable_id_is_answered_with_a_null_one(demo: Path) -> None:
    """No id can be read (not JSON at all, an id too long to be one, an outer array): a parse
    error with a null id, as JSON-RPC says. A response the client sent is never answered."""
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO}),
        "not json at all",
        '{"jsonrpc": "2.0", "id": ' + "7" * 5000 + ', "method": "ping"}',
        "[" + _nested(1000) + "]",
        '{"jsonrpc": "2.0", "id": 3, "result": {"a": ' + _nested(1000) + "}}",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    ]
    got = raw_session(demo, lines[:4] + lines[5:])
    assert [(item or {}).get("id", "none") for item in got[1:4]] == [None, None, None]
    assert all((item or {}).get("error", {}).get("code") == -32700 for item in got[1:4])
    # A response the client sent, unreadable: not answered (the ping's answer comes next).
    answers = raw_session(demo, [lines[0], lines[4] + "\n" + lines[5]])
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


# --- 10. String arguments that look like JSON -------------------------------------------------

# Each a record_lesson argument (or feedback's note) and a value that is JSON text.
JSON_LOOKING = {
    "a rule of null": ("prevention_rule", "null"),
    "a rule of an array": ("prevention_rule", "[1,2]"),
    "a rule of an object": ("prevention_rule", '{"run": "make"}'),
    "a category of an empty object": ("category", "{}"),
    "a category of null": ("category", "null"),
    "a section of an array": ("what_happened", '["deploy", "rollback"]'),
    "a body of an empty array": ("body", "[]"),
    "a note of null": ("note", "null"),
    "a note of an array": ("note", "[1]"),
}


@pytest.fixture(scope="module")
def json_looking_answers(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, tuple[bool, Any]]]:
    ws = tmp_path_factory.mktemp("strings") / "ws"
    shutil.copytree(DEMO, ws, ignore=shutil.ignore_patterns(".cache", ".lock"))

    async def work(session: ClientSession) -> dict[str, tuple[bool, Any]]:
        answers = {}
        for number, (name, (key, value)) in enumerate(JSON_LOOKING.items()):
            if key == "note":
                arguments = {"lesson_id": LESSON, "outcome": "helped", key: value}
                result = await session.call_tool("feedback", arguments)
            else:
                arguments = {
                    "title": f"String kept {number}",
                    "summary": "Sent as text.",
                    key: value,
                }
                result = await session.call_tool("record_lesson", arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            answers[name] = (bool(result.is_error), text)
        return answers

    return ws, serve(ws, work)


@pytest.mark.parametrize("row", list(JSON_LOOKING))
def test_a_string_argument_stays_the_string_it_was(
    json_looking_answers: tuple[Path, dict[str, tuple[bool, Any]]], row: str
) -> None:
    """A string argument that reads as JSON is the string sent: not parsed into a list or an
    object (then refused), nor into null (then silently dropped: the lesson lost its rule)."""
    ws, answers = json_looking_answers
    key, value = JSON_LOOKING[row]
    failed, text = answers[row]
    assert not failed, text
    answer = json.loads(text)
    if key == "note":
        lesson = (ws / ".wiki" / "raw" / "lessons" / f"{LESSON}.md").read_text(encoding="utf-8")
        assert f"- {TODAY} helped: {value}" in lesson.splitlines()
    else:
        post = frontmatter.load(ws / answer["path"])
        if key in ("prevention_rule", "category"):
            assert post.metadata.get(key) == value
        else:
            assert value in post.content


def test_arguments_that_take_no_string_still_read_json_text(demo: Path) -> None:
    """What the SDK's reading of JSON text is for, kept where an argument takes no string: a
    list or an object sent as its JSON text (as some clients send them) is that list or
    object; a text that is neither is refused as the schema says. Strings that read as a
    number or a boolean stay strings, as before."""

    async def work(session: ClientSession) -> dict[str, tuple[bool, Any]]:
        calls = {
            "tags as text": ("query", {"text": "retry", "tag": '["retry"]'}),
            "feedback as text": ("suggest", {"feedback": '{"task": "x", "replans": 2}'}),
            "tags of null": ("query", {"text": "retry", "tag": "null"}),
            "a rule of true": (
                "record_lesson",
                {"title": "T1", "summary": "S.", "prevention_rule": "true"},
            ),
            "a category of 42": (
                "record_lesson",
                {"title": "T2", "summary": "S.", "category": "42"},
            ),
        }
        answers = {}
        for name, (tool, arguments) in calls.items():
            result = await session.call_tool(tool, arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            answers[name] = (bool(result.is_error), text)
        return answers

    answers = serve(demo, work)
    assert not answers["tags as text"][0]
    assert json.loads(answers["feedback as text"][1])["trigger"] == "replan"
    failed, text = answers["tags of null"]
    assert failed and "argument 'tag'" in text
    for name, key, value in [
        ("a rule of true", "prevention_rule", "true"),
        ("a category of 42", "category", "42"),
    ]:
        failed, text = answers[name]
        assert not failed, text
        assert frontmatter.load(demo / json.loads(text)["path"]).metadata[key] == value


# --- 10. Failures nobody foresaw --------------------------------------------------------------

CALLS: dict[str, dict[str, Any]] = {
    "query": {"text": "retry"},
    "show": {"key": "docs/ci.md"},
    "recall": {"agent": "channel-op"},
    "status": {},
    "suggest": {"feedback": {"task": "x"}},
    "record_lesson": {"title": "T", "summary": "S."},
    "feedback": {"lesson_id": LESSON, "outcome": "helped"},
}


@pytest.fixture(scope="module")
def damaged_answers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Each tool called over stdio in a workspace whose config.toml is a folder."""
    base = tmp_path_factory.mktemp("damaged")
    ws = base / "ws"
    shutil.copytree(DEMO, ws, ignore=shutil.ignore_patterns(".cache", ".lock"))
    (ws / ".wiki" / "config.toml").unlink()
    (ws / ".wiki" / "config.toml").mkdir()

    async def work(session: ClientSession) -> dict[str, tuple[bool, str]]:
        answers = {}
        for name, arguments in CALLS.items():
            result = await session.call_tool(name, arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            answers[name] = (bool(result.is_error), text)
        return answers

    return base, serve(ws, work)


def _says_what_failed(tool: str, failed: bool, text: str, base: Path) -> None:
    assert failed, text
    assert text.startswith("Error: ") and "\n" not in text
    assert text != f"Error executing tool {tool}" and "Traceback" not in text
    assert str(base) not in text  # no path of the machine beyond the workspace


@pytest.mark.parametrize("tool", list(CALLS))
def test_every_tool_says_what_failed_in_a_damaged_workspace(
    damaged_answers: tuple[Path, dict[str, Any]], tool: str
) -> None:
    base, answers = damaged_answers
    failed, text = answers[tool]
    _says_what_failed(tool, failed, text, base)
    assert "config.toml" in text


def _fault(kind: str, ws: Path) -> BaseException:
    outside = "/srv/elsewhere/secret.txt"
    return {
        "database": sqlite3.DatabaseError("database disk image is malformed"),
        "zlib": zlib.error("Error -3 while decompressing data: incorrect header check"),
        "denied outside": PermissionError(13, "Permission denied", outside),
        "denied inside": PermissionError(13, "Permission denied", str(ws / ".wiki" / "log.md")),
        "a path in the text": ValueError(f"cannot read {outside} or {ws}/.wiki/raw/x.md"),
        "recursion": RecursionError("maximum recursion depth exceeded"),
        "a key": KeyError("fingerprint"),
        "no message": RuntimeError(),
    }[kind]


# Each the function a tool calls, made to raise, the tool, its arguments, and what the
# answer must name.
FAULTS = {
    "query, a damaged index": ("skillwiki.search.search", "query", "database", "DatabaseError"),
    "query, packed text": ("skillwiki.search.search", "query", "zlib", "incorrect header"),
    "show, denied outside": (
        "skillwiki.reading.show",
        "show",
        "denied outside",
        "Permission denied",
    ),
    "show, denied inside": ("skillwiki.reading.show", "show", "denied inside", ".wiki/log.md"),
    "recall, a path": (
        "skillwiki.memory.recall.recall_for_task",
        "recall",
        "a path in the text",
        ".wiki/raw/x.md",
    ),
    "suggest, recursion": (
        "skillwiki.memory.suggest.suggest",
        "suggest",
        "recursion",
        "RecursionError",
    ),
    "status, a key": ("skillwiki.compiler.make_plan", "status", "a key", "KeyError"),
    "record_lesson": (
        "skillwiki.memory.lessons.record",
        "record_lesson",
        "no message",
        "RuntimeError",
    ),
    "feedback": ("skillwiki.memory.evidence.feedback", "feedback", "database", "malformed"),
}


@pytest.mark.parametrize("row", list(FAULTS))
def test_an_unexpected_failure_says_what_failed(
    demo: Path, monkeypatch: pytest.MonkeyPatch, row: str
) -> None:
    """A tool whose work raises what no one foresaw (through the SDK's client): a tool error
    naming the tool and what failed, in one line; a path in the workspace shown from its root,
    none outside it; not the SDK's bare "Error executing tool <name>"."""
    import importlib

    from mcp import Client

    from skillwiki import server
    from skillwiki.server.live import WorkspaceLookup

    target, tool, kind, named = FAULTS[row]
    module, _, name = target.rpartition(".")
    fault = _fault(kind, demo)

    def raising(*args: Any, **kwargs: Any) -> Any:
        raise fault

    monkeypatch.setattr(importlib.import_module(module), name, raising)
    monkeypatch.chdir(demo)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)

    async def call() -> tuple[bool, str]:
        async with Client(wiki, mode="legacy") as client:
            result = await client.call_tool(tool, CALLS[tool])
        return bool(result.is_error), "".join(getattr(b, "text", "") for b in result.content)

    try:
        failed, text = anyio.run(call)
    finally:
        wiki.workspace.close()
    _says_what_failed(tool, failed, text, Path("/srv/elsewhere"))
    assert text.startswith(f"Error: {tool}: ") and named in text
    assert str(demo) not in text


def test_an_unexpected_failure_reading_a_resource_says_what_failed(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import Client

    from skillwiki import reading, server
    from skillwiki.server.live import WorkspaceLookup

    def raising(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"cannot read {demo}/.wiki/wiki/docs/ci.md")

    monkeypatch.setattr(reading, "show", raising)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)

    async def read() -> tuple[int, str]:
        async with Client(wiki, mode="legacy") as client:
            try:
                await client.read_resource("skillwiki://wiki/docs/ci.md")
            except MCPError as exc:
                return exc.code, exc.message
        raise AssertionError("read")  # pragma: no cover

    try:
        code, message = anyio.run(read)
    finally:
        wiki.workspace.close()
    assert code == -32603
    assert message.startswith("Error: skillwiki://wiki/docs/ci.md: unexpected ValueError: ")
    assert ".wiki/wiki/docs/ci.md" in message and str(demo) not in message
