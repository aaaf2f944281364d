"""Spread a pure, per-file function over the machine's cores when there are many files.

Parsing Markdown is the one CPU-bound step of compile and of a cold lint, and each file is
parsed on its own: with thousands of files, worker processes share the work. Below
`MIN_ITEMS` files, or on one core, everything runs in this process, in order: starting
workers costs more than it saves, and small runs stay simple to debug.

The function and its items must be picklable (a module-level function, plain values). The
results come back in the order of the items, whatever the number of workers, so output
stays byte for byte the same.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

Item = TypeVar("Item")
Result = TypeVar("Result")

# What a long run over many items tells as it goes: (items done, items in all).
Progress = Callable[[int, int], None]

MIN_ITEMS = 400  # fewer files than this are parsed in this process
MAX_WORKERS = 8
IN_FLIGHT = 4  # chunks submitted ahead for each worker
WORKERS_ENV = "SKILLWIKI_WORKERS"  # a number of worker processes; 1 parses in this process
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def workers() -> int:
    """How many processes to parse with: SKILLWIKI_WORKERS, else the cores this process may use."""
    wanted = os.environ.get(WORKERS_ENV, "")
    if wanted.isdigit() and int(wanted) > 0:
        return min(int(wanted), 64)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def imap(function: Callable[[Item], Result], items: Sequence[Item]) -> Iterator[Result]:
    """Yield `function(item)` for each item, in order, across worker processes when many."""
    count = workers()
    if count < 2 or len(items) < MIN_ITEMS:
        yield from map(function, items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork starts a worker in milliseconds with the parser already imported; elsewhere
    # (macOS, Windows) the platform's default start method is the safe one.
    method = "fork" if sys.platform.startswith("linux") else None
    context = multiprocessing.get_context(method)
    chunk = max(1, min(64, len(items) // (count * 8)))
    pool = ProcessPoolExecutor(
        count, mp_context=context, initializer=_die_with_parent, initargs=(os.getpid(),)
    )
    # A few chunks for each worker in flight, not every one: the results waiting for the
    # caller (whole articles, index rows) then take memory that does not grow with the tree.
    pending: deque[Future[list[Result]]] = deque()
    with pool:
        for start in range(0, len(items), chunk):
            pending.append(pool.submit(_each, function, items[start : start + chunk]))
            if len(pending) >= count * IN_FLIGHT:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()


def _each(function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """One chunk's results, in a worker."""
    return [function(item) for item in items]


def _die_with_parent(parent: int) -> None:
    """In a worker: end when the process that started it ends (SIGKILL, SIGTERM, a CI cancel),
    rather than live on, re-parented, blocked on its queue. Linux only (prctl)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the call: nothing will signal it
        os._exit(1)
