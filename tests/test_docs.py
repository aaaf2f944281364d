"""Every example in docs/agents.md runs as written, in a copy of the demo workspace."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skillwiki.memory.block import START_MARKER
from skillwiki.memory.recall import HEADER
from tests.support import REPO, Invoke

DOC = REPO / "docs" / "agents.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _blocks(language: str) -> list[str]:
    return [
        body for lang, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == language
    ]


def _env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "NO_COLOR": "1",
    }


def test_agent_docs_examples_run(demo: Path) -> None:
    script = "set -euo pipefail\n" + "\n".join(_blocks("sh"))
    shell = subprocess.run(
        ["bash", "-c", script], cwd=demo, input="y\n", capture_output=True, text=True, env=_env()
    )
    assert shell.returncode == 0, shell.stdout + shell.stderr
    proposal = json.loads((demo / "proposal.json").read_text())
    assert proposal["trigger"] == "consecutive_tool_failures"
    recorded = [p.name for p in (demo / ".wiki" / "raw" / "lessons").iterdir()]
    assert any(
        name.endswith("consecutive-tool-failures-publish-weekly-digest.md") for name in recorded
    )
    assert (demo / "prompt.txt").read_text().startswith(HEADER)
    assert "Prevention: When creating or changing an agent" in (demo / "prompt.txt").read_text()
    for name in ("AGENTS.md", ".cursor/rules/lessons.mdc", ".claude/rules/deploy.md"):
        assert START_MARKER in (demo / name).read_text()
    assert (demo / ".cursor/rules/lessons.mdc").read_text().startswith("---\ndescription: ")
    assert (demo / ".claude/rules/deploy.md").read_text().startswith('---\npaths: ["deploy/**"]')
    lesson = next((demo / ".wiki" / "raw" / "lessons").glob("*telegram-send.md")).read_text()
    assert "helped: caught the missing tool before the run" in lesson
    assert "dry run" in shell.stdout or "nothing to do" in shell.stdout

    [python] = _blocks("python")
    run = subprocess.run(
        [sys.executable, "-c", python],
        cwd=demo,
        input="y\n",
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "already recorded" in run.stdout

    hook_files = [json.loads(block) for block in _blocks("json") if '"hooks"' in block]
    claude, codex, cursor = (settings["hooks"] for settings in hook_files)
    transcript = REPO / "tests" / "data" / "clients" / "claude-code" / "transcript.jsonl"
    payloads: dict[str, dict[str, Any]] = {  # one payload per event, as the clients send them
        "SessionStart": {"hook_event_name": "SessionStart", "source": "compact"},
        "UserPromptSubmit": {"hook_event_name": "UserPromptSubmit", "prompt": "cost budget"},
        "PreToolUse": {
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": str(demo / "agents" / "channel-op.json")},
        },
        "PostToolUseFailure": {"hook_event_name": "PostToolUseFailure"},
        "Stop": {"hook_event_name": "Stop"},
        "sessionStart": {"hook_event_name": "sessionStart", "workspace_roots": [str(demo)]},
        "stop": {"hook_event_name": "stop", "status": "completed", "loop_count": 0},
    }
    answered = {}
    for client, hooks in (("claude-code", claude), ("codex", codex), ("cursor", cursor)):
        for event, groups in hooks.items():
            payload = {
                **payloads[event],
                "session_id": client,
                "cwd": str(demo),
                "transcript_path": str(transcript),
            }
            command = (
                groups[0]["hooks"][0]["command"] if "hooks" in groups[0] else groups[0]["command"]
            )
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=demo,
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                env={**_env(), "CLAUDE_PROJECT_DIR": str(demo)},
            )
            assert done.returncode == 0 and done.stderr == "", (command, done.stderr)
            answered[client, event] = json.loads(done.stdout) if done.stdout else {}
    start = answered["claude-code", "SessionStart"]["hookSpecificOutput"]["additionalContext"]
    assert start.startswith(HEADER)
    assert "systemMessage" in answered["claude-code", "Stop"]
    assert "hookSpecificOutput" in answered["codex", "SessionStart"]
    assert answered["cursor", "sessionStart"]["additional_context"].startswith(HEADER)
    assert "lesson" in answered["cursor", "stop"]["followup_message"]
    import yaml

    [aider] = (yaml.safe_load(block) for block in _blocks("yaml"))
    assert all(START_MARKER in (demo / name).read_text() for name in aider["read"])


def _fenced(doc: Path) -> list[tuple[str, str]]:
    return BLOCK.findall(doc.read_text(encoding="utf-8"))


def test_readme_starts_with_the_two_commands_ci_runs(tmp_path: Path, demo: Path) -> None:
    """The README's first block is the install-and-query command and the install-and-test
    command; the query runs as written on the bundled demo (installed already: this very
    interpreter), and .ci/run runs the README's test command."""
    lang, body = _fenced(REPO / "README.md")[0]
    first, second = body.splitlines()
    assert lang == "sh"
    assert first.startswith("python3 -m venv .venv && .venv/bin/pip install -q . && ")
    assert second.startswith('python3 -m venv .venv && .venv/bin/pip install -q ".[test]" && ')
    query = first.rpartition(" && ")[2].replace(".venv/bin/skillwiki", "skillwiki")
    (tmp_path / "fixtures").mkdir()
    demo.rename(tmp_path / "fixtures" / "demo")
    shell = subprocess.run(
        ["bash", "-c", query], cwd=tmp_path, capture_output=True, text=True, env=_env()
    )
    assert shell.returncode == 0, shell.stdout + shell.stderr
    assert ".wiki/wiki/" in shell.stdout  # at least one hit, shown by its path
    program, _, arguments = second.rpartition(" && ")[2].removeprefix(".venv/bin/").partition(" ")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f'"$venv/bin/{program}" {arguments}\n' in ci


def _ci_commands() -> list[str]:
    """Every skillwiki command docs/ci.md shows: the lines of its sh blocks, and the `run:` and
    `script:` steps of its YAML."""
    commands = []
    for lang, body in _fenced(REPO / "docs" / "ci.md"):
        for line in body.splitlines():
            text = line.split("  #", 1)[0].strip()
            if lang == "yaml":
                text = text.removeprefix("- ").removeprefix("run: ")
            if text.startswith("skillwiki "):
                commands.append(text)
    return commands


def test_ci_doc_commands_run(demo: Path) -> None:
    """Each command of docs/ci.md runs in the demo workspace as a CI job would: exit 0 or 1
    (findings), never 2, with output in the format it asks for."""
    commands = _ci_commands()
    assert len(commands) >= 6  # sarif, github, json, status --check, two baseline commands
    for command in commands:
        shell = subprocess.run(
            ["bash", "-c", command], cwd=demo, capture_output=True, text=True, env=_env()
        )
        assert shell.returncode in (0, 1), f"{command}\n{shell.stdout}{shell.stderr}"
    sarif = json.loads((demo / "skillwiki.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["rules"]
    assert "findings" in json.loads((demo / "skillwiki-lint.json").read_text(encoding="utf-8"))
    assert json.loads((demo / ".wiki-baseline.json").read_text(encoding="utf-8"))


def test_help_keeps_each_example_on_its_own_line(invoke: Invoke) -> None:
    """Every command's `--help` shows each line of its Examples as written, not rewrapped."""
    from skillwiki.cli.app import COMMANDS

    for name in COMMANDS:
        result = invoke(name, "--help")
        assert result.exit_code == 0, result.output
        shown = [line.strip() for line in result.stdout.splitlines()]
        examples = shown[shown.index("Examples:") + 1 :] if "Examples:" in shown else []
        examples = examples[: examples.index("")] if "" in examples else examples
        assert examples, f"{name}: no examples"
        # Rewrapped, several examples share a line; kept, each line holds at most one.
        assert all(line.count("skillwiki ") <= 1 for line in examples), (name, examples)


def test_ci_doc_pre_commit_hooks_match_the_shipped_hook() -> None:
    """The local hook docs/ci.md shows runs what .pre-commit-hooks.yaml runs, and the remote
    form names that hook's id at the one ref every install line of the page pins."""
    import yaml

    shipped = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    configs = [
        yaml.safe_load(body)
        for lang, body in _fenced(REPO / "docs" / "ci.md")
        if lang == "yaml" and body.startswith("repos:")
    ]
    local, remote = (config["repos"][0] for config in configs)
    hook = local["hooks"][0]
    assert local["repo"] == "local"
    assert {key: hook[key] for key in ("id", "entry", "pass_filenames", "files")} == {
        key: shipped[key] for key in ("id", "entry", "pass_filenames", "files")
    }
    assert remote["hooks"] == [{"id": shipped["id"]}]
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "pip install skillwiki\n" not in text  # not published: never the bare name
    assert set(_pinned(REPO / "docs" / "ci.md")) == {str(remote["rev"])}


# A ref an install line pins: `git+URL@REF` (pip) or `rev: REF` (pre-commit).
PIN = re.compile(r"git\+[^\s\"'@]+@([^\s\"'#]+)|^\s*rev:\s*([^\s#]+)", re.MULTILINE)
PINNING_DOCS = ("docs/ci.md", "README.md")


def _pinned(doc: Path) -> list[str]:
    return [match[0] or match[1] for match in PIN.findall(doc.read_text(encoding="utf-8"))]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def test_every_ref_the_docs_pin_is_a_commit_of_this_repository() -> None:
    """Each ref docs/ci.md and README.md pin for pip and pre-commit names a commit here that
    holds the package and the hook, by its full id or by a tag (a short id is not enough for
    pre-commit, which fetches the ref): never a release tag that was not made."""
    pins = {ref: name for name in PINNING_DOCS for ref in _pinned(REPO / name)}
    assert len(_pinned(REPO / "docs" / "ci.md")) >= 4  # three pip lines, the pre-commit rev
    top = _git("rev-parse", "--show-toplevel") if shutil.which("git") else None
    if top is None or top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO:
        pytest.skip("the tests do not run from a git checkout of the repository")
    missing = [
        ref
        for ref in pins
        if _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode
    ]
    if missing and _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip(f"a shallow clone, without the history that holds {', '.join(missing)}")
    assert missing == [], f"pinned but not in the repository: {pins}"
    for ref, name in pins.items():
        full = re.fullmatch(r"[0-9a-f]{40}", ref) is not None
        assert full or _git("show-ref", "--verify", "--quiet", f"refs/tags/{ref}").returncode == 0
        for needed in ("pyproject.toml", ".pre-commit-hooks.yaml"):
            assert _git("cat-file", "-e", f"{ref}:{needed}").returncode == 0, (name, ref, needed)


# The majors of the actions docs/ci.md uses that run on the runners' Node today (24; the
# actions' Node 20 majors are deprecated), and what GitHub's own example of a SARIF upload
# grants the job: security-events to upload, actions and contents for a private repository.
ACTION_MAJORS = {
    "actions/checkout": 5,
    "actions/setup-python": 6,
    "github/codeql-action/upload-sarif": 4,
}
SARIF_PERMISSIONS = {"security-events": "write", "actions": "read", "contents": "read"}


def test_ci_doc_workflows_use_current_actions_with_the_permissions_they_need() -> None:
    """The GitHub workflows of docs/ci.md use actions at majors that still run, and the SARIF
    upload's job has the permissions GitHub's example gives it."""
    import yaml

    workflows = [
        yaml.safe_load(body)
        for lang, body in _fenced(REPO / "docs" / "ci.md")
        if lang == "yaml" and body.startswith("name:")
    ]
    uses = [
        step["uses"]
        for workflow in workflows
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if "uses" in step
    ]
    assert {use.split("@")[0] for use in uses} == set(ACTION_MAJORS)
    for use in uses:
        action, _, version = use.partition("@")
        assert int(version.removeprefix("v").split(".")[0]) >= ACTION_MAJORS[action], use
    (sarif,) = [w for w in workflows if "upload-sarif" in json.dumps(w)]
    assert sarif["permissions"] == SARIF_PERMISSIONS


def test_agent_docs_mcp_configurations_start_the_server() -> None:
    """Each MCP client configuration in docs/agents.md parses and names `skillwiki mcp`."""
    import tomllib

    servers = [
        json.loads(block)["mcpServers"]["skillwiki"]
        for block in _blocks("json")
        if "mcpServers" in block
    ]
    servers += [
        tomllib.loads(block)["mcp_servers"]["skillwiki"]
        for block in _blocks("toml")
        if "mcp_servers" in block
    ]
    assert len(servers) == 3
    for server in servers:
        assert server["command"] == "skillwiki" and server["args"][0] == "mcp"


def test_the_readme_lists_the_stop_words_search_uses() -> None:
    from skillwiki.search.text import STOP_WORDS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = readme.split("- **Stop words** are left out of a query unless it has nothing else:")[1]
    listed = listed.split('. "how do we')[0]
    assert listed.split() == sorted(STOP_WORDS)
