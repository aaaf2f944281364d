"""SIGKILL a compile or a record-lesson at random moments: nothing torn, the next run recovers.

CI runs eight trials (each kind of kill twice); `python bench/stress.py --trials 100` runs the full count.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.crash import run_trials


@pytest.mark.slow
def test_killed_writers_leave_no_torn_file(tmp_path: Path) -> None:
    trials = int(os.environ.get("SKILLWIKI_KILL_TRIALS", "8"))
    tally = run_trials(tmp_path / "repo", trials, files=200)
    assert tally.trials == trials
    assert tally.torn == []
