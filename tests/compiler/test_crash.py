"""SIGKILL a compile or a record-lesson at random moments: nothing torn, the next run recovers.

CI runs eight trials (each kind of kill twice); `python bench/stress.py --trials 100` runs the full count.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.crash import run_trials


@pytest.mark.slow
def test_killed_writers_leave_no_torn_file(tmp_path: Path) -> None:
    trials = int(os.environ.get("SKILLWIKI_KILL_TRIALS", "8"))
    tally = run_trials(tmp_path / "repo", trials, files=200)
    assert tally.trials == trials
    assert tally.torn == []


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(child) for child in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_compile_frees_the_lock_and_its_workers_die(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """A compile of hundreds of files parses them in worker processes, forked with the lock's
    descriptor: killed (a CI cancel, a timeout, a client ending the server), its workers lived
    on, blocked on their queue and holding the lock, and every later writer waited
    lock_timeout and failed. Now the lock can be taken at once, and the workers are gone."""
    root = tmp_path / "repo"
    docs = root / ".wiki" / "raw" / "docs"
    docs.mkdir(parents=True)
    body = "".join(f"## Part {n}\n\nSee [part](#part-{n}) and `code {n}`.\n\n" for n in range(40))
    for number in range(1500):
        (docs / f"page-{number}.md").write_text(f"# Page {number}\n\n{body}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillwiki", "-w", str(root), "compile"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "SKILLWIKI_WORKERS": "2"},
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while not workers and proc.poll() is None and time.monotonic() < deadline:
        workers = _children(proc.pid)
        time.sleep(0.005)
    assert workers, "the compile ended before its workers could be seen"
    proc.send_signal(sig)
    proc.wait(timeout=30)
    fd = os.open(root / ".wiki" / ".lock", os.O_RDWR)
    try:
        taken = False
        until = time.monotonic() + 2  # the kernel ends a killed process's files in ms
        while not taken and time.monotonic() < until:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                taken = True
            except BlockingIOError:
                time.sleep(0.01)
        assert taken, "a worker of the killed compile still holds the workspace lock"
    finally:
        os.close(fd)
    until = time.monotonic() + 5
    while any(_alive(pid) for pid in workers) and time.monotonic() < until:
        time.sleep(0.02)
    assert not any(_alive(pid) for pid in workers)
