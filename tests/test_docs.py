"""Every example in docs/agents.md runs as written, in a copy of the demo workspace."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from skillwiki.memory.block import START_MARKER
from skillwiki.memory.recall import HEADER
from tests.conftest import REPO

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
    for name in ("AGENTS.md", "CLAUDE.md"):
        assert START_MARKER in (demo / name).read_text()
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

    [settings] = _blocks("json")
    hook = json.loads(settings)["hooks"]["SessionStart"][0]
    assert set(hook["matcher"].split("|")) >= {"startup", "compact"}
    command = hook["hooks"][0]["command"]
    started = subprocess.run(
        ["bash", "-c", command], cwd=demo, capture_output=True, text=True, env=_env()
    )
    assert started.returncode == 0 and started.stdout.startswith(HEADER)
