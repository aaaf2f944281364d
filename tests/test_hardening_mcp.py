"""`skillwiki mcp` against what a model or a client may send it, driven as clients drive it: a
real server subprocess spoken to by the SDK's stdio client. One row per hostile request:

- a transcript path the model names in `suggest` that leads outside the workspace and the
  client's roots: refused, nothing of the file in the answer.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.session import ClientSession

from tests.support import DEMO, NOW
from tests.test_mcp import _serve

WAIT = 30  # seconds a reply may take before the request counts as never answered


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
        answers: dict[str, tuple[bool, Any]] = _serve(ws, work, cwd=ws, roots=roots)
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
