"""The one source of "now" for what skillwiki writes and judges by date.

Lesson ids and `created:` dates, evidence lines, recall confidence, review and archive ages,
hit times, log.md lines and backup stamps all ask `now()` or `today()`. `SKILLWIKI_NOW` (an ISO
time such as `2026-11-30T09:00:00Z`, or a date) fixes it for reproducible runs and tests.

Not this clock's business: file times. The freshness checks compare modification times with
the operating system's clock (`time.time_ns()`), as they must.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime

from skillwiki.errors import InputError

ENV = "SKILLWIKI_NOW"


def now() -> datetime:
    """The current time, in UTC, to the second: SKILLWIKI_NOW when it is set."""
    fixed = os.environ.get(ENV, "").strip()
    if not fixed:
        return datetime.now(UTC).replace(microsecond=0)
    try:
        moment = datetime.fromisoformat(fixed.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(
            None, f"{ENV}={fixed!r} is not an ISO date or time (2026-11-30T09:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def today() -> date:
    """Today's date in UTC."""
    return now().date()


def stamp() -> str:
    """The current time as `2026-11-30T09:14:03Z`."""
    return now().strftime("%Y-%m-%dT%H:%M:%SZ")
