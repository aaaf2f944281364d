"""`skillwiki mcp` driven as a client would: a real server subprocess and the MCP SDK's own
stdio client. Tools, schemas and annotations, each tool's answer equal to the CLI's --json,
read-only mode (hidden and refused), errors with the CLI's text, files changed between calls,
calls made while the CLI writes, resources, the prompt, the client's roots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import types
from mcp.client.session import ClientSession

from tests.support import Invoke, snapshot, write
from tests.support.mcp import raw_session, serve


async def _call(session: ClientSession, name: str, **arguments: Any) -> tuple[bool, Any]:
    failed, answer, _ = await _told(session, name, **arguments)
    return failed, answer


async def _told(session: ClientSession, name: str, **arguments: Any) -> tuple[bool, Any, list[str]]:
    """A call's answer (its first block: the CLI's --json object, also its structured content),
    and the blocks beside it, which say what the CLI warns of on stderr."""
    result = await session.call_tool(name, arguments)
    texts = [getattr(item, "text", "") for item in result.content]
    if result.is_error:
        return True, "".join(texts), []
    answer = json.loads(texts[0])
    assert result.structured_content == answer
    return False, answer, texts[1:]


def test_tools_schemas_and_annotations(demo: Path) -> None:
    async def work(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in serve(demo, work)}
    assert set(tools) == {
        "query",
        "show",
        "recall",
        "status",
        "suggest",
        "record_lesson",
        "feedback",
        "maintain",
        "record_rule",
    }
    for name in ("query", "show", "recall", "status", "suggest", "maintain"):
        assert tools[name].annotations.open_world_hint is False
    # query, show and recall compile first: test_read_tools_say_whether_they_compile
    for name in ("status", "suggest", "maintain"):
        assert tools[name].annotations.read_only_hint is True
    for name in ("record_lesson", "feedback", "record_rule"):
        assert tools[name].annotations.destructive_hint is False
    assert "ONLY after the user agreed" in tools["record_lesson"].description
    assert "ONLY after the user agreed" in tools["record_rule"].description
    assert tools["record_rule"].input_schema["required"] == ["when", "then", "evidence"]
    assert tools["query"].input_schema["required"] == ["text"]
    # The CLI's choices are the schema's, for a model to pick from before it calls.
    record = tools["record_lesson"].input_schema
    choices = {name: schema["enum"] for name, schema in record["$defs"].items()}
    assert choices["Severity"] == ["LOW", "MEDIUM", "HIGH", "CRITICAL"]
    assert choices["Scope"] == ["global", "targeted"] and "manual" in choices["Trigger"]
    outcome = tools["feedback"].input_schema["$defs"]["Outcome"]["enum"]
    assert outcome == ["helped", "not-helped", "failed-again"]
    assert "\n        " not in tools["query"].description  # dedented for the model


def test_each_tool_answers_like_the_cli(demo: Path, invoke: Invoke) -> None:
    feedback = {"task": "sync", "tool_calls": [{"tool": "fetch", "success": False}] * 3}

    async def work(session: ClientSession) -> dict[str, Any]:
        return {
            "query": await _call(session, "query", text="tool failure retry"),
            "show": await _call(session, "show", key="docs/ci.md", max_chars=50),
            "recall": await _call(session, "recall", agent="channel-op"),
            "status": await _call(session, "status"),
            "status, every file": await _call(session, "status", not_fresh=False),
            "suggest": await _call(session, "suggest", feedback=feedback),
        }

    answers = serve(demo, work)
    assert all(not failed for failed, _ in answers.values()), answers
    cli_query = json.loads(invoke("query", "-w", str(demo), "tool failure retry", "--json").stdout)
    assert answers["query"][1]["results"] == cli_query["results"]
    shown = answers["show"][1]
    assert shown["path"] == ".wiki/wiki/docs/ci.md" and shown["truncated"] is True
    assert len(shown["body"]) == 50
    assert answers["recall"][1]["block"].startswith("## Lessons learned")
    # By default only the files that are not fresh (none here): a big wiki has thousands.
    cli_status = json.loads(invoke("status", "-w", str(demo), "--json", "--not-fresh").stdout)
    assert answers["status"][1] == cli_status and cli_status["files"] == []
    cli_every = json.loads(invoke("status", "-w", str(demo), "--json").stdout)
    assert answers["status, every file"][1] == cli_every and len(cli_every["files"]) == 12
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
            "chosen": await _call(
                session,
                "record_lesson",
                title="Pin the runner image",
                summary="The runner image moved under a build.",
                severity="HIGH",
                scope="targeted",
                trigger="replan",
                agent=["ci-bot"],
            ),
            "bad severity": await _call(
                session, "record_lesson", title="T", summary="S.", severity="high"
            ),
            "missing": await _call(session, "show", key="no/such.md"),
            "bad outcome": await _call(session, "feedback", lesson_id=lesson, outcome="maybe"),
            "misnamed": await _call(session, "show", path="docs/deploy.md"),
            "mistyped": await _call(session, "query", text="deploy", limit="many"),
            "no hits asked": await _call(session, "query", text="deploy", limit=0),
            "unknown type": await _call(session, "query", text="deploy", type="doc"),
            "lessons only": await _call(session, "query", text="retry", type="lesson"),
            "no budget": await _call(session, "recall", budget=-1),
        }

    answers = serve(demo, work)
    assert answers["feedback"][1]["evidence"] == 1
    assert answers["record"][1]["created"] is True
    assert answers["record"][1]["status"] == "candidate"  # two sections still to write
    assert (demo / answers["record"][1]["path"]).is_file()
    chosen = (demo / answers["chosen"][1]["path"]).read_text()
    assert "severity: HIGH\n" in chosen and "scope: targeted\n" in chosen
    assert "trigger: replan\n" in chosen
    failed, text = answers["bad severity"]
    assert failed and text.startswith(
        "Error: record_lesson: argument 'severity': Input should be 'LOW', 'MEDIUM', 'HIGH' or"
        " 'CRITICAL' (it takes "
    )
    failed, text = answers["missing"]
    assert failed and text.startswith("Error: no article or lesson 'no/such.md'")
    assert answers["bad outcome"] == (
        True,
        "Error: feedback: argument 'outcome': Input should be 'helped', 'not-helped' or "
        "'failed-again' (it takes expect_fingerprint, lesson_id, note, outcome)",
    )
    # Arguments the schema refuses: one line saying what is wrong and what the tool takes.
    assert answers["misnamed"] == (
        True,
        "Error: show: missing argument 'key'; unknown argument 'path' (it takes key, max_chars)",
    )
    assert answers["mistyped"] == (
        True,
        "Error: query: argument 'limit': Input should be a valid integer, unable to parse string"
        " as an integer (it takes explain, include_hidden, limit, tag, text, type)",
    )
    # The bounds and choices of the CLI's flags hold too (--limit 1 to 1000, --type, --budget).
    takes = " (it takes explain, include_hidden, limit, tag, text, type)"
    assert answers["no hits asked"] == (
        True,
        "Error: query: argument 'limit': Input should be greater than or equal to 1" + takes,
    )
    assert answers["unknown type"] == (
        True,
        "Error: query: argument 'type': Input should be 'document' or 'lesson'" + takes,
    )
    lessons = answers["lessons only"][1]["results"]
    assert lessons and all(hit["type"] == "lesson" for hit in lessons)
    assert (
        answers["no budget"][0]
        and "'budget': Input should be greater than or equal to 1" in (answers["no budget"][1])
    )


def test_read_only_hides_and_refuses_the_writing_tools(demo: Path) -> None:
    from mcp.shared.exceptions import MCPError

    async def work(session: ClientSession) -> Any:
        names = {tool.name for tool in (await session.list_tools()).tools}
        with pytest.raises(MCPError) as refused:
            await session.call_tool("record_lesson", {"title": "x", "summary": "y"})
        return names, refused.value

    names, refused = serve(demo, work, "--read-only")
    assert names == {"query", "show", "recall", "status", "suggest", "maintain"}
    assert refused.code == -32602 and "'record_lesson': this server is read-only" in refused.message
    assert not any((demo / ".wiki" / "raw" / "lessons").glob("*-x.md"))


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _files(root: Path) -> dict[str, bytes]:
    """Every file of the checkout but git's own, with its bytes."""
    return {rel: data for rel, data in snapshot(root).items() if not rel.startswith(".git/")}


def test_a_read_only_server_leaves_the_checkout_as_it_was(demo: Path) -> None:
    """Over a raw file changed since it was compiled, every read of a read-only server answers
    from the articles as they are and says so: no article, log, index or usage record is
    written, nothing is counted, not even the disposable cache under .wiki/.cache/."""
    _git(demo, "init", "-q")
    _git(demo, "add", "-A")
    _git(demo, "commit", "-q", "-m", "the wiki")
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    before = _files(demo)

    async def work(session: ClientSession) -> dict[str, Any]:
        return {
            "query": await _told(session, "query", text="kookaburra"),
            "again": await _told(session, "query", text="kookaburra"),
            "show": await _told(session, "show", key="docs/ci.md"),
            "recall": await _told(session, "recall", agent="channel-op", task="deploy"),
            "status": await _told(session, "status"),
            "listed": len((await session.list_resources()).resources),
            "index": await session.read_resource("skillwiki://index"),
            "article": await session.read_resource("skillwiki://wiki/docs/ci.md"),
        }

    told = serve(demo, work, "--read-only")
    assert _git(demo, "status", "--porcelain", "--ignored", "--untracked-files=all") == (
        " M .wiki/raw/docs/ci.md\n"
    )
    assert _files(demo) == before
    assert not (demo / ".wiki" / ".cache").exists()
    stale = (
        "Warning: not compiled: this server is read-only, and 1 raw file changed since the last "
        "compile: answered from the articles as they are"
    )
    assert told["query"] == (False, {"query": "kookaburra", "refreshed": 0, "results": []}, [stale])
    assert told["again"] == told["query"]
    assert "kookaburra" not in told["show"][1]["body"] and told["show"][2] == [stale]
    assert told["recall"][1]["lessons"] and told["recall"][2] == [stale]
    assert told["status"][1]["totals"]["stale"] == 1
    assert told["listed"] > 10
    assert "kookaburra" not in told["article"].contents[0].text


def test_read_tools_say_whether_they_compile(demo: Path) -> None:
    """A server that can write compiles changed raw files before query, show and recall answer:
    their annotations and descriptions say so; a read-only server's never write. Every input
    schema refuses arguments it does not name."""

    async def work(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    writing = {tool.name: tool for tool in serve(demo, work)}
    reading = {tool.name: tool for tool in serve(demo, work, "--read-only")}
    for name in ("query", "show", "recall"):
        compiles = writing[name].annotations
        assert compiles.read_only_hint is False and compiles.destructive_hint is False
        assert "compiled first" in writing[name].description
        assert reading[name].annotations.read_only_hint is True
        assert "read-only" in reading[name].description
    assert writing["query"].annotations.idempotent_hint is True
    assert writing["recall"].annotations.idempotent_hint is False  # it counts what it showed
    for name in ("status", "suggest"):
        assert writing[name].annotations.read_only_hint is True
        assert writing[name].annotations == reading[name].annotations
    for tool in [*writing.values(), *reading.values()]:
        assert tool.input_schema["additionalProperties"] is False, tool.name


def test_protocol_errors_have_the_specification_s_codes(demo: Path) -> None:
    """An unknown tool, an unknown prompt or one called without its argument: invalid params
    (-32602); a resource that does not exist: resource not found (-32002). A misspelled
    argument is refused by name, as any argument a tool's schema refuses."""
    from mcp.shared.exceptions import MCPError

    async def refused(call: Awaitable[Any]) -> tuple[int, str]:
        try:
            await call
        except MCPError as exc:
            return exc.code, exc.message
        raise AssertionError("answered")  # pragma: no cover

    async def work(session: ClientSession) -> dict[str, Any]:
        return {
            "tool": await refused(session.call_tool("record_lessons", {"title": "x"})),
            "prompt": await refused(session.get_prompt("no-such-prompt", {})),
            "no argument": await refused(session.get_prompt("lesson-from-a-run", {})),
            "extra argument": await refused(
                session.get_prompt("lesson-from-a-run", {"feedback": "{}", "fedback": "{}"})
            ),
            "article": await refused(session.read_resource("skillwiki://wiki/docs/nothing.md")),
            "resource": await refused(session.read_resource("skillwiki://nothing")),
            "misspelled": await _call(session, "query", text="retry", limt=5),
        }

    answers = serve(demo, work)
    assert answers["tool"] == (
        -32602,
        "Error: no tool 'record_lessons' (there are feedback, maintain, query, recall, "
        "record_lesson, record_rule, show, status, suggest)",
    )
    assert answers["prompt"] == (
        -32602,
        "Error: no prompt 'no-such-prompt' (there is lesson-from-a-run)",
    )
    assert answers["no argument"] == (
        -32602,
        "Error: lesson-from-a-run: missing argument 'feedback' (it takes feedback)",
    )
    assert answers["extra argument"] == (
        -32602,
        "Error: lesson-from-a-run: unknown argument 'fedback' (it takes feedback)",
    )
    code, message = answers["article"]
    assert code == -32002 and message.startswith("Error: no article or lesson 'wiki/docs/")
    code, message = answers["resource"]
    assert code == -32002 and "skillwiki://nothing" in message
    assert answers["misspelled"] == (
        True,
        "Error: query: unknown argument 'limt' (it takes explain, include_hidden, limit, tag, "
        "text, type)",
    )

    # A read-only server names why a writing tool is not there.
    async def writes(session: ClientSession) -> tuple[int, str]:
        return await refused(session.call_tool("record_lesson", {"title": "x", "summary": "y"}))

    code, message = serve(demo, writes, "--read-only")
    assert code == -32602 and "this server is read-only" in message


def test_lines_that_are_no_request_are_answered_as_json_rpc_says(demo: Path) -> None:
    """A line that is not JSON: parse error (-32700) with a null id; JSON that is no request
    (no method): invalid request (-32600), with its id when it has one. The server serves on."""
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 7}),
        json.dumps({"jsonrpc": "2.0", "id": "eight", "method": 8}),
        json.dumps([{"jsonrpc": "2.0", "id": 9, "method": "ping"}]),
        json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}),
    ]
    got = raw_session(demo, lines)
    assert got[0] is not None and got[0]["id"] == 1 and "result" in got[0]
    assert got[1] is None
    assert [(item or {}).get("id", "none") for item in got[2:6]] == [None, 7, "eight", None]
    codes = [(item or {}).get("error", {}).get("code") for item in got[2:6]]
    assert codes == [-32700, -32600, -32600, -32600]
    assert got[6] is not None and len(got[6]["result"]["tools"]) == 6


def test_the_sdk_behaviour_that_run_stdio_async_relies_on() -> None:
    """WikiServer.run_stdio_async stands in for the SDK's own, and relies on what this pins:
    the SDK's stdio transport hands a line it cannot read to the server as pydantic's
    ValidationError (not JSON: 'json_invalid'; JSON of no message: errors whose input is the
    object, id and all), and MCPServer runs its low-level server (`_lowlevel_server`, a
    private attribute) over that transport's streams with its initialization options."""
    import inspect
    import io

    from mcp.server.mcpserver import MCPServer
    from mcp.server.stdio import stdio_server
    from pydantic import ValidationError

    from skillwiki.server.jsonrpc import unreadable

    async def read() -> list[Any]:
        stdin = anyio.wrap_file(io.StringIO('not json\n{"jsonrpc": "2.0", "id": 7}\n\n'))
        async with stdio_server(stdin, anyio.wrap_file(io.StringIO())) as (lines, replies):
            async with lines, replies:
                return [await lines.receive() for _ in range(3)]

    items = anyio.run(read)
    assert all(isinstance(item, ValidationError) for item in items)
    answers = [unreadable(item) for item in items]
    assert answers[0] is not None and (answers[0].id, answers[0].error.code) == (None, -32700)
    assert answers[1] is not None and (answers[1].id, answers[1].error.code) == (7, -32600)
    assert answers[2] is None  # a blank line: no message, no answer
    source = inspect.getsource(MCPServer.run_stdio_async)
    assert "stdio_server()" in source and "self._lowlevel_server.run(" in source
    assert "self._lowlevel_server.create_initialization_options()" in source


def test_the_sdk_internals_that_reading_arguments_as_sent_relies_on(demo: Path) -> None:
    """_sdk.read_as_sent replaces each tool's argument reader, which the SDK keeps in its private
    tool manager: pinned here, with the call path through which the reader's pre_parse_json
    runs (Tool.run, then FuncMetadata.validate_arguments)."""
    import inspect

    from mcp.server.mcpserver.tools.base import Tool
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    from skillwiki import server
    from skillwiki.server import _sdk
    from skillwiki.server.live import WorkspaceLookup

    assert "self.fn_metadata.validate_arguments(" in inspect.getsource(Tool.run)
    assert "self.pre_parse_json(" in inspect.getsource(FuncMetadata.validate_arguments)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)
    tools = wiki._tool_manager.list_tools()
    assert len(tools) == 9
    readers = {tool.name: tool.fn_metadata for tool in tools}
    assert all(isinstance(reader, _sdk.AsSent) for reader in readers.values())
    parsed = {name: getattr(reader, "_parsed", None) for name, reader in readers.items()}
    assert parsed["suggest"] == {"feedback": (dict,)}
    assert parsed["record_lesson"] == {"agent": (list,), "tag": (list,), "path": (list,)}
    assert parsed["record_rule"] == {"evidence": (list,), "agent": (list,), "tag": (list,)}
    assert parsed["show"] == {} and parsed["feedback"] == {}
    wiki.workspace.close()


def test_the_sdk_behaviour_that_paging_resources_relies_on(demo: Path) -> None:
    """resources/list is paged by overriding MCPServer's private `_handle_list_resources`,
    which the SDK hands its low-level server as the bound method (so a subclass's is the one
    called), with the request's context and its paginated params."""
    import inspect

    from mcp.server.mcpserver import MCPServer

    from skillwiki import server
    from skillwiki.server.live import WorkspaceLookup

    assert "on_list_resources=self._handle_list_resources" in inspect.getsource(MCPServer)
    taken = list(inspect.signature(MCPServer._handle_list_resources).parameters)
    assert taken == ["self", "ctx", "params"]
    wiki = server.build(WorkspaceLookup(demo), read_only=False)
    entry = wiki._lowlevel_server.get_request_handler("resources/list")
    wiki.workspace.close()
    assert entry is not None and entry.handler == wiki._handle_list_resources


@pytest.mark.parametrize("missing", ["mcp", "anyio", "mcp.server.mcpserver"])
def test_without_any_module_of_the_extra_it_says_what_to_install(demo: Path, missing: str) -> None:
    """Whichever module of the extra cannot be imported, `skillwiki mcp` says what to install,
    in one `Error:` line, and exits 2: no traceback."""
    blocked = (
        "import runpy, sys\n"
        "class Missing:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {missing!r} or name.startswith({missing!r} + '.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Missing())\n"
        f"sys.argv = ['skillwiki', 'mcp', '-w', {str(demo)!r}]\n"
        "runpy.run_module('skillwiki', run_name='__main__', alter_sys=True)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"Error: the MCP server needs the mcp extra, and {missing!r} cannot be imported: "
        "pip install 'skillwiki[mcp]'\n"
    )


def test_a_file_changed_between_calls_is_seen(demo: Path) -> None:
    async def work(session: ClientSession) -> Any:
        before = await _call(session, "query", text="zanzibar")
        write(demo / ".wiki" / "raw" / "docs" / "zanzibar.md", "# Zanzibar\n\nA new note.\n")
        after = await _call(session, "query", text="zanzibar")
        return before, after

    (_, before), (_, after) = serve(demo, work)
    assert before["results"] == []
    assert [hit["path"] for hit in after["results"]] == [".wiki/wiki/docs/zanzibar.md"]


@pytest.mark.skipif(sys.platform != "linux", reason="the server follows the wiki on Linux")
def test_the_server_compiles_a_change_before_it_is_asked(demo: Path) -> None:
    """After a first call the server follows the wiki: a raw file changed afterwards is
    compiled with no call made, and the next call finds it."""
    article = demo / ".wiki" / "wiki" / "docs" / "zanzibar.md"

    async def work(session: ClientSession) -> Any:
        await _call(session, "query", text="retry")
        temp = write(
            demo / ".wiki" / "raw" / "docs" / ".zanzibar.md", "# Zanzibar\n\nA new note.\n"
        )
        temp.replace(temp.with_name("zanzibar.md"))  # whole at once, as editors and git write
        with anyio.fail_after(60):
            while not article.exists() or "A new note." not in article.read_text():
                await anyio.sleep(0.01)
        return await _call(session, "query", text="zanzibar")

    _, after = serve(demo, work)
    assert [hit["path"] for hit in after["results"]] == [".wiki/wiki/docs/zanzibar.md"]
    assert after["refreshed"] == 0  # the server had compiled it already


def test_a_raw_file_that_cannot_be_compiled_is_told_beside_the_answer(
    demo: Path, invoke: Invoke
) -> None:
    """What the CLI warns of on stderr comes in a block beside the answer, at every call
    while it holds (as the CLI warns at every run); the answer is the CLI's --json object."""
    bad = write(demo / ".wiki" / "raw" / "docs" / "bad.md", "---\ntitle: [unclosed\n---\n# B\n")
    cli = invoke("query", "-w", str(demo), "tool failure retry", "--json")

    async def work(session: ClientSession) -> Any:
        first = await _told(session, "query", text="tool failure retry")
        again = await _told(session, "query", text="tool failure retry")  # nothing changed
        recalled = await _told(session, "recall", task="deploy")
        bad.write_text("# Bad no more\n")
        mended = await _told(session, "query", text="tool failure retry")
        return first, again, recalled, mended

    first, again, recalled, mended = serve(demo, work)
    warned = cli.stderr.strip()
    assert warned.startswith("Warning: .wiki/raw/docs/bad.md: unparsable YAML frontmatter")
    assert warned.endswith("(not compiled)")
    assert first == (False, json.loads(cli.stdout) | {"refreshed": 0}, [warned])
    assert again == (False, first[1], [warned])
    assert recalled[0] is False and recalled[2] == [warned]
    assert mended[0] is False and mended[2] == []
    # The mended file compiled, by the call's look or by the server's own, which follows the
    # wiki and may come first (then the call finds it done, with nothing refreshed).
    assert mended[1]["refreshed"] in (0, 1)
    assert "\n# Bad no more\n" in (demo / ".wiki" / "wiki" / "docs" / "bad.md").read_text()


def test_a_call_while_another_process_writes_says_nothing_was_compiled(demo: Path) -> None:
    """A read never waits for a writer: it answers from the articles as they are, and says so
    beside the answer; once the writer is done, the next call compiles the change."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from pathlib import Path\n"
            "from skillwiki.fsio import workspace_lock\n"
            "from skillwiki.workspace import Workspace\n"
            f"with workspace_lock(Workspace(Path({str(demo)!r})), 5):\n"
            "    print('locked', flush=True)\n"
            "    sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None

    async def work(session: ClientSession) -> Any:
        await _call(session, "query", text="retry")
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        write(demo / ".wiki" / "raw" / "docs" / "zanzibar.md", "# Zanzibar\n\nA new note.\n")
        during = await _told(session, "query", text="zanzibar")
        assert holder.stdin is not None
        holder.stdin.write("done\n")
        holder.stdin.flush()
        holder.wait()
        after = await _told(session, "query", text="zanzibar")
        return during, after

    with holder:  # its pipes closed at the end
        try:
            during, after = serve(demo, work)
        finally:
            holder.kill()
    assert during == (
        False,
        {"query": "zanzibar", "refreshed": 0, "results": []},
        [
            "Warning: not compiled: another skillwiki process is writing: answered from the "
            "articles as they are"
        ],
    )
    assert [hit["path"] for hit in after[1]["results"]] == [".wiki/wiki/docs/zanzibar.md"]
    assert after[2] == []


def test_without_a_workspace_each_tool_says_to_run_init(tmp_path: Path) -> None:
    async def work(session: ClientSession) -> Any:
        return await _call(session, "status")

    failed, text = serve(tmp_path, work)
    assert failed and "skillwiki init" in text


def test_without_the_extra_it_says_what_to_install(tmp_path: Path, demo: Path) -> None:
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
        "Error: the MCP server needs the mcp extra, and 'mcp' cannot be imported: "
        "pip install 'skillwiki[mcp]'\n"
    )


def test_changes_of_every_kind_between_calls_are_seen(demo: Path) -> None:
    """An edit in place, a new folder (not watched yet) with a file, a removed raw file, the
    search index deleted, a file put in a folder that came empty: each is in the next answer."""
    raw = demo / ".wiki" / "raw"

    async def paths(session: ClientSession, text: str) -> list[str]:
        failed, answer = await _call(session, "query", text=text)
        assert not failed, answer
        return [hit["path"] for hit in answer["results"]]

    async def work(session: ClientSession) -> dict[str, list[str]]:
        seen = {"before": await paths(session, "quokka")}
        ci = raw / "docs" / "ci.md"
        ci.write_text(ci.read_text() + "\nThe quokka job runs last.\n")
        seen["edited"] = await paths(session, "quokka")
        write(raw / "new" / "deeper" / "wombat.md", "# Wombat\n\nDigs.\n")
        seen["new folder"] = await paths(session, "wombat")
        write(raw / "new" / "deeper" / "numbat.md", "# Numbat\n\nEats termites.\n")
        seen["in the new folder"] = await paths(session, "numbat")
        (raw / "new" / "deeper" / "wombat.md").unlink()
        seen["removed"] = await paths(session, "wombat")
        for index in (demo / ".wiki" / ".cache").glob("search.sqlite*"):
            index.unlink(missing_ok=True)  # the server may close its connection meanwhile
        seen["index deleted"] = await paths(session, "numbat")
        (raw / "empty").mkdir()  # a folder with nothing to compile: no write follows it
        seen["empty folder"] = await paths(session, "echidna")
        write(raw / "empty" / "echidna.md", "# Echidna\n\nSpiny.\n")
        seen["in the empty folder"] = await paths(session, "echidna")
        return seen

    seen = serve(demo, work)
    assert seen["before"] == []
    assert seen["edited"] == [".wiki/wiki/docs/ci.md"]
    assert seen["new folder"] == [".wiki/wiki/new/deeper/wombat.md"]
    assert seen["in the new folder"] == [".wiki/wiki/new/deeper/numbat.md"]
    assert seen["removed"] == []
    assert seen["index deleted"] == [".wiki/wiki/new/deeper/numbat.md"]
    assert seen["empty folder"] == []
    assert seen["in the empty folder"] == [".wiki/wiki/empty/echidna.md"]


def test_calls_while_the_cli_writes(demo: Path) -> None:
    """Queries and recalls keep answering while `skillwiki ingest` writes many files under
    the lock; once it is done, the next query finds what it wrote."""
    notes = demo.parent / "notes"
    for number in range(300):
        write(notes / f"note-{number:03}.md", f"# Note {number}\n\nPlatypus number {number}.\n")
    answers: list[tuple[bool, Any]] = []

    async def work(session: ClientSession) -> tuple[int, Any]:
        writer = await anyio.open_process(
            [sys.executable, "-m", "skillwiki", "-w", str(demo), "ingest", str(notes)]
        )
        async with writer:
            while writer.returncode is None:
                async with anyio.create_task_group() as group:
                    for text in ("platypus", "tool failure retry"):
                        group.start_soon(_collect, session, answers, "query", {"text": text})
                    group.start_soon(_collect, session, answers, "recall", {"task": "deploy"})
                await anyio.sleep(0.01)
            await writer.wait()
        return writer.returncode, await _call(session, "query", text="platypus", limit=500)

    code, (failed, final) = serve(demo, work)
    assert code == 0
    assert len(answers) >= 3 and not any(failed for failed, _ in answers), answers
    assert len(final["results"]) == 300


async def _collect(
    session: ClientSession, answers: list[tuple[bool, Any]], name: str, arguments: dict[str, Any]
) -> None:
    answers.append(await _call(session, name, **arguments))


def test_resources_index_and_articles(demo: Path) -> None:
    odd = ["odd #1 100%.md", "部署 笔记.md", "what?.md"]  # a URI's own characters in names
    for name in odd:
        write(demo / ".wiki" / "raw" / "docs" / name, f"# Odd\n\nThe note {name}.\n")

    async def work(session: ClientSession) -> Any:
        listed = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        index = await session.read_resource("skillwiki://index")
        article = await session.read_resource("skillwiki://wiki/docs/ci.md")
        missing = await _read_error(session, "skillwiki://wiki/docs/nothing.md")
        outside = await _read_error(session, "skillwiki://wiki/../config.toml")
        named = {
            resource.name: (str(resource.uri), await session.read_resource(resource.uri))
            for resource in listed
            if resource.name.removeprefix("docs/") in odd
        }
        return listed, templates, index, article, missing, outside, named

    listed, templates, index, article, missing, outside, named = serve(demo, work)
    uris = [str(resource.uri) for resource in listed]
    articles = json.loads((demo / ".wiki" / "index.json").read_text())["articles"]
    assert uris == ["skillwiki://index"] + sorted(
        "skillwiki://wiki/" + quote(item["path"].removeprefix("wiki/")) for item in articles
    )
    # Each odd name percent-encoded in its URI, as written in its name, and read by that URI.
    assert {name: uri for name, (uri, _) in named.items()} == {
        "docs/odd #1 100%.md": "skillwiki://wiki/docs/odd%20%231%20100%25.md",
        "docs/部署 笔记.md": "skillwiki://wiki/docs/%E9%83%A8%E7%BD%B2%20%E7%AC%94%E8%AE%B0.md",
        "docs/what?.md": "skillwiki://wiki/docs/what%3F.md",
    }
    for name, (_, read) in named.items():
        assert read.contents[0].text == (demo / ".wiki" / "wiki" / name).read_text()
    ci = next(resource for resource in listed if str(resource.uri).endswith("/docs/ci.md"))
    assert ci.mime_type == "text/markdown" and ci.title and ci.description
    assert [template.uri_template for template in templates] == ["skillwiki://wiki/{+path}"]
    assert index.contents[0].text == (demo / ".wiki" / "index.md").read_text()
    assert article.contents[0].text == (demo / ".wiki" / "wiki" / "docs" / "ci.md").read_text()
    assert missing.startswith("Error: no article or lesson 'wiki/docs/nothing.md'")
    assert outside  # refused, whatever the words


def test_resources_come_a_page_at_a_time(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """resources/list gives RESOURCES_PAGE resources at a time, in the order of their URIs,
    each page after the last URI of the one before, even when an article went in between;
    together, every resource once. A cursor not of this server is refused."""
    from mcp.shared.exceptions import MCPError

    from skillwiki import server
    from skillwiki.server.live import WorkspaceLookup

    monkeypatch.setattr(server.app, "RESOURCES_PAGE", 3)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)

    async def refused() -> str:
        with pytest.raises(MCPError) as raised:
            await wiki._handle_list_resources(None, types.PaginatedRequestParams(cursor="x"))
        return raised.value.message

    every = [str(resource.uri) for resource in anyio.run(wiki.list_resources)]
    first = anyio.run(_pages, wiki)
    assert len(first) == -(-len(every) // 3) > 1
    assert [len(page) for page in first[:-1]] == [3] * (len(first) - 1) and first[-1]
    assert sum(first, []) == every == sorted(every)
    # The article listed first on the second page goes before that page is asked for.
    going = every[3]  # after the index and docs/重试策略.md, whose URI is percent-encoded
    assert going == "skillwiki://wiki/docs/architecture.md"
    second = anyio.run(_pages, wiki, demo / ".wiki" / "raw" / "docs" / "architecture.md")
    assert sum(second, []) == [uri for uri in every if uri != going]
    assert "not a cursor of this server" in anyio.run(refused)
    wiki.workspace.close()


async def _pages(wiki: Any, gone_after_first: Path | None = None) -> list[list[str]]:
    """The URIs of every page of resources/list, a cursor at a time; `gone_after_first` is
    removed once the first page is given."""
    found: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: Any = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await wiki._handle_list_resources(None, params)
        found.append([str(resource.uri) for resource in page.resources])
        if gone_after_first is not None:
            gone_after_first.unlink()
            gone_after_first = None
        cursor = page.next_cursor
        if cursor is None:
            return found


def test_a_quiet_workspace_is_answered_without_a_worker_thread(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of a workspace in which nothing changed since the last look is answered on the
    thread that reads the requests; a look (the first call, one after a change) and every
    other tool run on a worker thread, as they may wait for a writer. Both answer alike."""
    if sys.platform != "linux":
        pytest.skip("without a watcher every read looks")
    import anyio.to_thread

    from skillwiki import server
    from skillwiki.server import live as warm_module
    from skillwiki.server.live import WorkspaceLookup

    hops: list[str] = []
    hop = anyio.to_thread.run_sync

    async def counted(work: Any, *args: Any, **options: Any) -> Any:
        hops.append(getattr(args[0] if args else work, "__name__", "?"))
        return await hop(work, *args, **options)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    # The call after the change makes the look: the follower, which would make it once the
    # kernel's reports stop coming, waits past the test (on a loaded machine it came first).
    monkeypatch.setattr(warm_module, "QUIET", 60.0)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"

    async def calls() -> list[tuple[int, Any]]:
        made = []
        for name, arguments in [
            ("query", {"text": "retry"}),
            ("query", {"text": "retry"}),
            ("show", {"key": "docs/ci.md"}),
            ("recall", {"agent": "channel-op"}),
            ("query", {"text": "retry"}),  # recall's count of what it showed is no change
            ("status", {}),
            ("change", {}),
            ("query", {"text": "kookaburra"}),
            ("query", {"text": "kookaburra"}),
        ]:
            if name == "change":
                raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
                continue
            before = len(hops)
            result = await wiki.call_tool(name, arguments)
            made.append((len(hops) - before, result.structured_content))
        return made

    made = anyio.run(calls)
    wiki.workspace.close()
    assert [count for count, _ in made] == [1, 0, 0, 0, 0, 1, 1, 0]
    assert made[0][1] == made[1][1] == made[4][1] and made[0][1]["results"]
    assert made[3][1]["lessons"]
    assert made[6][1]["refreshed"] == 1
    assert [hit["path"] for hit in made[6][1]["results"]] == [".wiki/wiki/docs/ci.md"]
    assert made[7][1] == {**made[6][1], "refreshed": 0}


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
def test_a_client_that_does_not_list_its_roots_is_not_waited_for(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that says it has roots but never lists them holds the first calls up for
    ROOTS_WAIT, not for ever: they then find the workspace in the working directory. Calls
    made while the client is asked wait for that one question; it is asked once."""
    from mcp import Client

    from skillwiki import server
    from skillwiki.server.live import WorkspaceLookup

    monkeypatch.setattr(server.answers, "ROOTS_WAIT", 0.3)
    monkeypatch.chdir(demo)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv("SKILLWIKI_WORKSPACE", raising=False)
    wiki = server.build(WorkspaceLookup(None), read_only=True)
    asked: list[int] = []

    async def never(context: Any) -> types.ListRootsResult:
        asked.append(1)
        await anyio.sleep(3600)
        raise AssertionError("not reached")  # pragma: no cover

    async def calls() -> list[Any]:
        answers: list[Any] = []

        async def one(text: str) -> None:
            result = await client.call_tool("query", {"text": text})
            answers.append(result.structured_content)

        async with Client(wiki, list_roots_callback=never, mode="legacy") as client:
            with anyio.fail_after(30):
                async with anyio.create_task_group() as group:
                    group.start_soon(one, "retry")
                    group.start_soon(one, "retry")
                await one("retry")
        return answers

    answers = anyio.run(calls)
    wiki.workspace.close()
    assert asked == [1]
    assert len(answers) == 3 and all(answer == answers[0] for answer in answers)
    assert answers[0]["results"]


def test_resources_read_the_catalog_again_only_when_it_changed(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page of resources/list after the first takes the articles as the first read them
    from index.json, while it is the same file; after a raw change its next page has the new
    article, read from the catalog the change rewrote."""
    from skillwiki import server
    from skillwiki.compiler import catalog
    from skillwiki.server.live import WorkspaceLookup

    monkeypatch.setattr(server.app, "RESOURCES_PAGE", 3)
    reads: list[int] = []
    listed = catalog.listed

    def counted(ws: Any) -> list[dict[str, Any]]:
        reads.append(1)
        return listed(ws)

    monkeypatch.setattr(catalog, "listed", counted)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)

    def every() -> list[str]:
        return sum(anyio.run(_pages, wiki), [])

    first = every()
    assert len(first) > 6 and reads == [1]
    assert every() == first and reads == [1]
    write(demo / ".wiki" / "raw" / "docs" / "zebra.md", "# Zebra\n\nStripes.\n")
    second = every()
    assert second == sorted([*first, "skillwiki://wiki/docs/zebra.md"]) and reads == [1, 1]
    wiki.workspace.close()


async def _read_error(session: ClientSession, uri: str) -> str:
    try:
        await session.read_resource(uri)
    except Exception as exc:  # the SDK raises the server's error
        return str(exc)
    raise AssertionError(f"{uri} was read")


def test_the_prompt_walks_suggest_ask_record(demo: Path) -> None:
    feedback = {"task": "sync", "tool_calls": [{"tool": "fetch", "success": False}] * 3}

    async def work(session: ClientSession) -> Any:
        prompts = (await session.list_prompts()).prompts
        got = await session.get_prompt("lesson-from-a-run", {"feedback": json.dumps(feedback)})
        proposal = await _call(session, "suggest", feedback=feedback)
        recorded = await _call(session, "record_lesson", **proposal[1]["record_lesson"])
        return prompts, got, proposal, recorded

    prompts, got, (_, proposal), (failed, recorded) = serve(demo, work)
    assert [prompt.name for prompt in prompts] == ["lesson-from-a-run"]
    assert [argument.name for argument in prompts[0].arguments] == ["feedback"]
    text = got.messages[0].content.text
    assert '"tool": "fetch"' in text
    assert text.index("`suggest`") < text.index("ask whether") < text.index("`record_lesson`")
    arguments = proposal["record_lesson"]
    assert arguments["title"] == proposal["proposed_title"]
    assert arguments["prevention_rule"] == proposal["proposed_prevention_rule"]
    assert arguments["tag"] == ["fetch"]
    assert not failed and recorded["created"] is True
    lesson = (demo / recorded["path"]).read_text()
    assert proposal["proposed_prevention_rule"] in lesson


def test_read_only_prompt_does_not_offer_to_record(demo: Path) -> None:
    async def work(session: ClientSession) -> str:
        got = await session.get_prompt("lesson-from-a-run", {"feedback": "{}"})
        return str(getattr(got.messages[0].content, "text", ""))

    text = serve(demo, work, "--read-only")
    assert "read-only" in text and "call `record_lesson`" not in text


def test_the_workspace_from_the_client_roots(demo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def work(session: ClientSession) -> Any:
        return await _call(session, "query", text="tool failure retry")

    failed, answer = serve(None, work, cwd=elsewhere, roots=[tmp_path / "nothing", demo])
    assert not failed, answer
    assert answer["results"]
    failed, text = serve(None, work, cwd=elsewhere)
    assert failed and "skillwiki init" in text


def test_a_recorded_lesson_is_compiled_by_a_watched_look(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """record_lesson compiles the lesson before it answers, by a look as a read makes it (the
    watcher tells what changed: no folder of the workspace listed again), and the next query
    finds it warm. With another writer holding the lock, that look leaves the compile, and
    the call waits for the lock, as the CLI does."""
    if sys.platform != "linux":
        pytest.skip("without a watcher every look lists every folder")
    from skillwiki import compiler, fsio, reading, server, statcache
    from skillwiki.reading import Refresh
    from skillwiki.server.live import WorkspaceLookup

    listed: list[Path] = []
    scan = statcache.scan_folders

    def counted(root: Path, *args: Any, **options: Any) -> Any:
        listed.append(root)
        return scan(root, *args, **options)

    monkeypatch.setattr(statcache, "scan_folders", counted)
    wiki = server.build(WorkspaceLookup(demo), read_only=False)
    lesson = {"title": "Pin the kookaburra", "summary": "S.", "prevention_rule": "Pin it."}

    async def calls() -> list[Any]:
        await wiki.call_tool("query", {"text": "retry"})  # the first look lists everything
        listed.clear()
        recorded = await wiki.call_tool("record_lesson", lesson)
        found = await wiki.call_tool("query", {"text": "kookaburra"})
        return [recorded.structured_content, found.structured_content]

    recorded, found = anyio.run(calls)
    assert listed == []
    article = ".wiki/wiki/" + recorded["path"].removeprefix(".wiki/raw/")
    assert (demo / article).is_file()
    assert found["refreshed"] == 0 and found["results"][0]["path"] == article

    compiles: list[Path] = []
    whole, look = compiler.compile_workspace, reading.refresh

    def busy(ws: Any, config: Any, *args: Any, **options: Any) -> Refresh:
        with fsio.workspace_lock(ws, 0):  # held on a descriptor of its own, as by another
            return look(ws, config, *args, **options)

    def waited(ws: Any, config: Any, **options: Any) -> Any:
        compiles.append(ws.root)
        return whole(ws, config, **options)

    monkeypatch.setattr(reading, "refresh", busy)
    monkeypatch.setattr(compiler, "compile_workspace", waited)
    again = anyio.run(wiki.call_tool, "record_lesson", {**lesson, "title": "Pin the lyrebird"})
    wiki.workspace.close()
    assert compiles == [demo] and not again.is_error
    again_raw = again.structured_content["path"].removeprefix(".wiki/raw/")
    assert (demo / ".wiki" / "wiki" / again_raw).is_file()


def test_maintain_proposes_and_record_rule_records_over_the_sdk_client(ws: Path) -> None:
    """The rule maintain proposes, recorded by passing its `rule` arguments to record_rule as
    they are: the CLI's --json answers, from the official client."""
    from tests.support.lessons import lesson

    for name in ("one", "two", "three"):
        lesson(ws, name, tags="wsl2, ipv6", rule=f"Use 127.0.0.1 for {name}.")

    async def work(session: ClientSession) -> Any:
        planned = await session.call_tool("maintain", {})
        proposal = json.loads(planned.content[0].text)["rules"][0]  # type: ignore[union-attr]
        recorded = await session.call_tool("record_rule", proposal["rule"])
        return proposal, json.loads(recorded.content[0].text)  # type: ignore[union-attr]

    proposal, recorded = serve(ws, work)
    assert proposal["lessons"] == ["one", "three", "two"]  # oldest first, then by id
    assert proposal["rule"]["when"] == "an agent works on wsl2, ipv6"
    assert recorded["superseded"] == proposal["lessons"] and recorded["created"] is True
    rule = (ws / recorded["path"]).read_text()
    assert "kind: rule\n" in rule and "when: an agent works on wsl2, ipv6\n" in rule
    article = ws / ".wiki" / "wiki" / "lessons" / f"{recorded['id']}.md"
    assert article.is_file()  # compiled by the server's look, as record_lesson is
