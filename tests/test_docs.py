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


def test_the_search_doc_lists_the_stop_words_search_uses() -> None:
    from skillwiki.search.text import STOP_WORDS

    doc = (REPO / "docs" / "search.md").read_text(encoding="utf-8")
    listed = doc.split("- **Stop words** are left out of a query unless it has nothing else:")[1]
    listed = listed.split('. "how do we')[0]
    assert listed.split() == sorted(STOP_WORDS)


# The README is a doorway: what it is, the two commands, a tour, one line a command, exit codes
# and links; the details live in docs/.
README_MAX_LINES = 150


def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The text under a `## ` heading, up to the next `## ` heading."""
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    end = text.find("\n## ", start)
    return text[start:] if end == -1 else text[start:end]


def test_the_readme_is_a_doorway() -> None:
    readme = _readme()
    assert len(readme.splitlines()) <= README_MAX_LINES
    for heading in ("A five-minute tour", "Commands", "Exit codes", "Documentation"):
        assert f"\n## {heading}\n" in readme, heading
    codes = _section(readme, "## Exit codes")
    assert all(f"`{code}`" in codes for code in (0, 1, 2))
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", _section(readme, "## Documentation")))
    assert linked == {f"docs/{doc.name}" for doc in (REPO / "docs").glob("*.md")}


def _click_commands() -> dict[str, Any]:
    import typer.main

    from skillwiki.cli.app import app

    group = typer.main.get_command(app)
    return dict(group.commands)  # type: ignore[attr-defined]


def test_every_command_has_one_short_line_in_the_readme_table() -> None:
    rows = {}
    for line in _section(_readme(), "## Commands").splitlines():
        match = re.fullmatch(r"\| `skillwiki ([a-z-]+)[^`]*` \| (.+) \|", line)
        if match:
            rows[match[1]] = match[2]
    assert set(rows) == set(_click_commands())
    for name, cell in rows.items():
        # One short sentence: a capital, a full stop at the end and nowhere before it.
        assert len(cell) <= 100 and cell[0].isupper() and cell.endswith("."), (name, cell)
        assert ". " not in cell.removesuffix("."), (name, cell)


def test_docs_commands_describes_every_command_and_option() -> None:
    """docs/commands.md has a section for each command, naming every option and flag its
    `--help` lists; the global options are named too."""
    doc = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## ([a-z-]+)$", doc, re.MULTILINE)
    commands = _click_commands()
    assert sorted(sections) == sorted(commands)
    for name, command in commands.items():
        section = _section(doc, f"## {name}")
        assert f"skillwiki {name}" in section, name
        for param in command.params:
            if param.param_type_name != "option":
                continue
            for flag in [*param.opts, *param.secondary_opts]:
                assert f"`{flag}`" in section, (name, flag)
    for flag in ("-w/--workspace", "SKILLWIKI_WORKSPACE", "--version", "--json"):
        assert flag in doc, flag


def _markdown_links(path: Path) -> list[str]:
    """Every link and image target of a Markdown file, as CommonMark reads it (not in code)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    targets = []
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open":
                targets.append(str(child.attrs["href"]))
            elif child.type == "image":
                targets.append(str(child.attrs["src"]))
    return targets


def _github_slugs(path: Path) -> set[str]:
    """The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as -."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    slugs = set()
    for opening, inline in zip(tokens, tokens[1:], strict=False):
        if opening.type == "heading_open":
            text = "".join(child.content for child in inline.children or [])
            slugs.add(re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-"))
    return slugs


DOCUMENTS = [
    "README.md",
    "CHANGELOG.md",
    *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")),
]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_relative_link_resolves(name: str) -> None:
    """Each relative link of the README, the CHANGELOG and docs/ names a file of the repository
    and, with a `#fragment`, a heading of that file."""
    source = REPO / name
    for target in _markdown_links(source):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file, _, fragment = target.partition("#")
        resolved = (source.parent / file).resolve() if file else source
        assert resolved.is_relative_to(REPO) and resolved.exists(), (name, target)
        if fragment:
            assert fragment in _github_slugs(resolved), (name, target)


def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    """The tour's commands run in a fresh git repository holding the notes they name, and
    the lesson it records is the one its recall shows."""
    tour = [body for lang, body in _fenced(REPO / "README.md") if lang == "sh"][1]
    assert [line.split()[1] for line in tour.splitlines() if line.startswith("skillwiki ")] == [
        "init",
        "ingest",
        "query",
        "status",
        "lint",
        "record-lesson",
        "recall",
    ]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "release.md").write_text("# Releasing\n\nTag it; the job releases.\n")
    (tmp_path / "README.md").write_text("# Notes\n\nSee [releasing](docs/release.md).\n")
    shell = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + tour],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert shell.returncode == 0, shell.stdout + shell.stderr
    assert ".wiki/wiki/docs/release.md" in shell.stdout
    assert "Prevention: Give the release job the deploy token." in shell.stdout


def test_docs_lint_lists_every_rule() -> None:
    from skillwiki.lint.rules import RULES

    doc = (REPO / "docs" / "lint.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| (SW\d{3}) \| (error|warning|error / warning) \|", doc, re.MULTILINE)
    assert [rule_id for rule_id, _ in listed] == [rule.id for rule in RULES]


def _leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    """A settings table (a named tuple) or a TOML table as dotted keys to values (a dict of
    rules is one)."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    elif not (isinstance(value, dict) and prefix != "lint.rules."):
        return {prefix.removesuffix("."): value}
    leaves: dict[str, Any] = {}
    for key, item in value.items():
        leaves |= _leaves(item, f"{prefix}{key}.")
    return leaves


def test_docs_configuration_shows_every_setting_at_its_default(tmp_path: Path) -> None:
    """The config.toml docs/configuration.md shows names every setting at its default (rules
    aside, shown by an example), and loads."""
    import tomllib

    from skillwiki.config import Config, load_config

    [block] = [body for lang, body in _fenced(REPO / "docs" / "configuration.md") if lang == "toml"]
    shown = _leaves(tomllib.loads(block))
    defaults = _leaves(Config())
    assert shown.pop("lint.rules") == {"SW005": "off"} and defaults.pop("lint.rules") == {}
    assert shown == defaults
    (tmp_path / "config.toml").write_text(block, encoding="utf-8")
    assert load_config(tmp_path / "config.toml").lint.rules == {"SW005": "off"}


def test_every_guarantee_names_tests_that_exist() -> None:
    doc = (REPO / "docs" / "guarantees.md").read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| ") and "---" not in line]
    promises = rows[1:]  # the header row aside
    assert len(promises) >= 17
    for row in promises:
        tested_by = row.rstrip(" |").rsplit(" | ", 1)[1]
        named = re.findall(r"`(tests/(?:\w+/)?test_\w+\.py)`", tested_by)
        assert named, row[:60]
        assert all((REPO / test).is_file() for test in named), named


CHANGELOG_SECTIONS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def test_the_changelog_keeps_a_changelog() -> None:
    """`## Unreleased` on top, then one dated release a version, newest first, the newest being
    the package's version; each of Keep a Changelog's sections at most once in a release, and
    one line per change."""
    import datetime

    from skillwiki import __version__

    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    titles = [release.split("\n", 1)[0] for release in releases]
    assert titles[0] == "Unreleased"
    dated = [re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", t) for t in titles[1:]]
    assert all(dated), titles
    versions = [tuple(int(n) for n in match[1].split(".")) for match in dated if match]
    days = [datetime.date.fromisoformat(match[2]) for match in dated if match]
    assert versions == sorted(set(versions), reverse=True) and days == sorted(days, reverse=True)
    assert not dated or dated[0][1] == __version__  # type: ignore[index]
    for release in releases:
        sections = re.findall(r"^### (.+)$", release, re.MULTILINE)
        assert len(sections) == len(set(sections)), sections
        assert set(sections) <= set(CHANGELOG_SECTIONS), sections
        body = release.split("\n", 1)[1]
        for line in body.splitlines():
            assert line == "" or line.startswith(("### ", "- ")), line  # one line a change
