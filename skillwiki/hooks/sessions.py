"""The log of what each agent session was shown by the hooks: a lesson is shown and counted
once a session, however many of its hooks run at once (see `claim`)."""

from __future__ import annotations

import os
from pathlib import Path

from skillwiki import fsio
from skillwiki.errors import SkillwikiError
from skillwiki.workspace import Workspace

# The log of what each session was shown is read by every hook call, under the hooks' time
# budget: past this size it keeps its newest half (the sessions of the last days).
SESSIONS_BYTES = 256 * 1024


def log_path(ws: Workspace) -> Path:
    """The sessions log, in the workspace's cache (never committed)."""
    return ws.cache / "hook-sessions.log"


def shown_in(ws: Workspace, session: str) -> frozenset[str]:
    """The lessons this session was shown (and counted) already."""
    return frozenset(_claims(ws, session))


def _claims(ws: Workspace, session: str) -> dict[str, str]:
    """What this session was shown, each with the token of the hook call that claimed it first
    ("" for a line of earlier versions, which had none)."""
    if not session:
        return {}
    try:
        lines = log_path(ws).read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return {}
    prefix = session + " "
    found: dict[str, str] = {}
    for line in lines:
        if line.startswith(prefix):
            entry, _, token = line[len(prefix) :].partition("\t")
            found.setdefault(entry, token)
    return found


def claim(ws: Workspace, session: str, entries: list[str]) -> list[str]:
    """The entries this hook call is the first of its session to show (and count): those it
    claims in the sessions log before any other call does.

    Hooks of one session run at once (a prompt and the edits it starts; Cursor's and Claude
    Code's events overlap): each reads the log before it recalls, and so may find an entry
    unclaimed that another is about to claim. So each appends its claims with a token of its
    own, in one O_APPEND write (appenders never interleave, and the file keeps one order), and
    then reads the log back: an entry is this call's if its first line there has this call's
    token. No lock, and no reader waits. Without a session, or if the log cannot be written,
    every entry is counted, as before there was a log.
    """
    if not session:
        return list(entries)
    lines = [entry for entry in entries if "\n" not in entry and "\t" not in entry]
    if not lines:
        return []
    token = os.urandom(8).hex()
    try:
        fsio.make_dirs(ws.cache)
        fsio.append(
            log_path(ws),
            "".join(f"{session} {entry}\t{token}\n" for entry in lines).encode(),
            durable=False,
        )
    except (OSError, SkillwikiError):
        return lines
    first = _claims(ws, session)
    try:
        keep_newest(log_path(ws))
    except (OSError, SkillwikiError):
        pass
    return [entry for entry in lines if first.get(entry) == token]


def keep_newest(log: Path) -> None:
    """Cut the sessions log to its newest half once it outgrows SESSIONS_BYTES, whole lines
    only. Two hooks cutting at once, or a line appended meanwhile, can lose a line: then a
    lesson is shown (and counted) once more in that session, no worse."""
    if log.stat().st_size <= SESSIONS_BYTES:
        return
    data = log.read_bytes()
    start = data.find(b"\n", len(data) - SESSIONS_BYTES // 2) + 1
    fsio.atomic_write(log, data[start:] if start > 0 else b"", durable=False)
