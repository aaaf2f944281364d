"""Real processes: parallel writers all land, and a dead writer's lock is released by the OS."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Invoke

CLI = [sys.executable, "-m", "skillwiki"]


def test_parallel_record_lesson_both_land(ws: Path) -> None:
    procs = [
        subprocess.Popen(
            [
                *CLI,
                "-w",
                str(ws),
                "record-lesson",
                "--title",
                f"Lesson {n}",
                "--summary",
                f"S {n}.",
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(4)
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0, 0], outputs
    ids = {json.loads(out)["id"] for out, _ in outputs}
    assert len(ids) == 4
    index = json.loads((ws / ".wiki" / "index.json").read_text())
    assert {item["id"] for item in index["articles"]} == ids
    log = (ws / ".wiki" / "log.md").read_text()
    assert sum(" record-lesson " in line for line in log.splitlines()) == 4


def test_lock_of_a_killed_writer_is_released(ws: Path, invoke: Invoke) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from skillwiki.fsio import workspace_lock\n"
            "from pathlib import Path\n"
            "from skillwiki.workspace import Workspace\n"
            f"with workspace_lock(Workspace(Path({str(ws)!r})), 5):\n"
            "    print('locked', flush=True)\n"
            "    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    (ws / ".wiki" / "config.toml").write_text("lock_timeout = 0.2\n")
    blocked = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.")
    assert blocked.exit_code == 2
    assert blocked.stderr == (
        f"Error: the workspace {ws} is locked by another skillwiki process (pid {holder.pid}) "
        "for more than 0.2s; try again when it has finished\n"
    )
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    holder.stdout.close()
    started = time.monotonic()
    result = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.")
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 30
