"""The hooks' time budget: armed before anything else is imported, it bounds the process.

A client waits for its hook, so `skillwiki hook` must end within SKILLWIKI_HOOK_SECONDS
whatever is slow: the imports of the command line (hundreds of file system calls, each slow
on a loaded or networked disk), a payload or transcript that never ends (a FIFO), the work.
When the budget runs out, OutOfTime unwinds whatever runs, so that the writes under way are
undone as any error undoes them; should the unwinding itself hang (a call that keeps the
signal from being handled), the process ends GRACE seconds later, silent, with status 0.

Only the standard library is imported here: this module runs before the rest.
"""

from __future__ import annotations

# The interpreter's own signal module, which it imported at start: signal.py wraps it in enums,
# and importing enum is about a tenth of the CPU a hook's client spends when a server answers.
import _signal as signal  # type: ignore[import-not-found]  # no stub; signal.py's is the API
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType

ENV = "SKILLWIKI_HOOK_SECONDS"
DEFAULT = 5.0
MOST = 600.0  # the longest any client lets a hook run (Claude Code's default is 600 s)
GRACE = 0.5


class OutOfTime(BaseException):
    """The budget ran out. A BaseException, so that no `except Exception` on the way keeps it
    from ending the hook."""


def seconds(value: str | None) -> tuple[float, str | None]:
    """The budget that SKILLWIKI_HOOK_SECONDS's `value` gives, and a warning when it is not a
    number of seconds above 0 and at most MOST (then the default holds: a typo must neither
    lift the limit nor turn every hook off)."""
    if value is None or not value.strip():
        return DEFAULT, None
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not 0 < number <= MOST:  # NaN fails too
        return DEFAULT, (
            f"Warning: {ENV}={value!r} is not a number of seconds above 0 and at most "
            f"{MOST:g}; using {DEFAULT:g}"
        )
    return number, None


def armed() -> bool:
    """Whether a budget is running in this process."""
    return hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) in (
        _raise,
        _out_of_time,
        _end_now,
    )


def arm(*, hard: bool, quiet: bool = False) -> str | None:
    """Start the budget, warning on stderr of a value out of range (`quiet`: returning the
    warning instead, for the caller to say when it answers the hook itself). `hard`: a process
    of its own, which may end at once when the unwinding hangs; a test running the command in
    its own process must not be ended, and only gets OutOfTime."""
    budget, warning = seconds(os.environ.get(ENV))
    if warning is not None and not quiet:
        sys.stderr.write(warning + "\n")
    if not hasattr(signal, "setitimer"):
        return warning
    try:
        signal.signal(signal.SIGALRM, _out_of_time if hard else _raise)
    except ValueError:  # not the main thread: signals cannot be handled here
        return warning
    signal.setitimer(signal.ITIMER_REAL, budget)
    return warning


def disarm() -> None:
    """Stop the budget: what is left to do is to print the answer."""
    if armed():
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise OutOfTime


def _out_of_time(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGALRM, _end_now)
    signal.setitimer(signal.ITIMER_REAL, GRACE)
    raise OutOfTime


def _end_now(signum: int, frame: FrameType | None) -> None:
    os._exit(0)
