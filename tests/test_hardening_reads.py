"""A transcript a payload names is read only if it is a regular file, and only its tail: the
device that never ends, the one that never stops giving random bytes, the FIFO nobody writes
to, a folder, a sparse file of a gigabyte. Each answers at once, through every reader of a
transcript (`suggest -` and each client's `stop` hook), without a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.payloads import documented

TRANSCRIPTS: dict[str, Callable[[Path], Path]] = {  # case -> makes the path a payload names
    "/dev/zero": lambda _: Path("/dev/zero"),
    "/dev/urandom": lambda _: Path("/dev/urandom"),
    "a FIFO nobody writes to": lambda tmp: _fifo(tmp / "fifo"),
    "a folder": lambda tmp: tmp,
    "a sparse file of 1 GiB": lambda tmp: _sparse(tmp / "sparse.jsonl", 1 << 30),
    "a file that is not there": lambda tmp: tmp / "missing.jsonl",
}
READERS: dict[str, tuple[str, tuple[str, ...]]] = {  # reader -> (documented payload, command)
    "suggest -": ("claude-code/Stop.json", ("suggest", "-")),
    "claude-code stop hook": ("claude-code/Stop.json", ("hook", "claude-code", "stop")),
    "codex stop hook": ("codex/Stop.json", ("hook", "codex", "stop")),
}
BUDGET = 5  # seconds, the hooks' default
WITHIN = {"suggest": 20.0, "hook": BUDGET + 5.0}  # an unbounded read ran 15-54 s past the budget


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("case", TRANSCRIPTS)
def test_a_transcript_that_is_no_transcript_is_not_waited_for(
    case: str, reader: str, demo: Path, tmp_path: Path
) -> None:
    payload_name, command = READERS[reader]
    transcript = TRANSCRIPTS[case](tmp_path)
    payload = documented(payload_name, demo, transcript_path=str(transcript))
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "skillwiki", "-w", str(demo), *command],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=demo,
        env={**os.environ, "SKILLWIKI_HOOK_SECONDS": str(BUDGET)},
    )
    assert time.monotonic() - started < WITHIN[command[0]]
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    if command[0] == "suggest":  # no failed call read from what is not a transcript
        assert json.loads(done.stdout) == {"suggest": False}
