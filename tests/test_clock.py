"""SKILLWIKI_NOW fixes the one clock: ids, dates and log lines follow it."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from skillwiki import clock
from tests.support import Invoke


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2031-06-01T08:30:00Z", datetime(2031, 6, 1, 8, 30, tzinfo=UTC)),
        ("2031-06-01", datetime(2031, 6, 1, tzinfo=UTC)),
        ("2031-06-01T10:30:00+02:00", datetime(2031, 6, 1, 8, 30, tzinfo=UTC)),
    ],
)
def test_the_clock_reads_iso_times_and_dates(
    monkeypatch: pytest.MonkeyPatch, given: str, expected: datetime
) -> None:
    monkeypatch.setenv(clock.ENV, given)
    assert clock.now() == expected
    assert clock.today() == expected.date()
    assert clock.stamp() == expected.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_without_it_the_clock_is_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(clock.ENV)
    before = datetime.now(UTC).replace(microsecond=0)
    assert before <= clock.now() <= datetime.now(UTC)


def test_a_run_years_ahead_dates_what_it_writes(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(clock.ENV, "2031-06-01T08:30:00Z")
    recorded = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.", "--json")
    assert json.loads(recorded.stdout)["id"] == "2031-06-01-t"
    assert "- 2031-06-01T08:30:00Z record-lesson" in (ws / ".wiki" / "log.md").read_text()
    assert clock.today() == date(2031, 6, 1)


def test_a_bad_value_is_one_error(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(clock.ENV, "next tuesday")
    result = invoke("-w", str(ws), "record-lesson", "--title", "T", "--summary", "S.")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: SKILLWIKI_NOW='next tuesday' is not an ISO date")
