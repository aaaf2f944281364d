"""Why compile would refuse a raw file: its bytes (too large, not UTF-8) or its frontmatter's
values, found without compiling it or writing anything. What status reports beside the plan,
what lint's SW003 says of a raw file, and what a writer of raw files (ingest, record-lesson)
asks before it writes."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from skillwiki.compiler.freshness import Problem
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import decode, split
from skillwiki.statcache import read_with_stat
from skillwiki.workspace import PARSED_SUFFIXES

if TYPE_CHECKING:
    from skillwiki.compiler.plan import Plan
    from skillwiki.config import Config
    from skillwiki.workspace import Workspace


def refusal(ws: Workspace, config: Config, raw_rel: str) -> str | None:
    """Why compile refuses this raw file as it is now, or None when it would compile it (or
    the file cannot be read: then there is nothing to say of its content)."""
    problem = _refused(ws, config, raw_rel)
    return None if problem is None else problem.message


def refusal_of(config: Config, raw_rel: str, data: bytes) -> str | None:
    """Why compile would refuse a raw file `raw_rel` holding `data`, or None: what a writer
    of raw files (ingest, record-lesson) asks before it writes, so that it never leaves a
    file behind that every later compile refuses. The same check as status's."""
    problem = _refused_bytes(raw_rel, data, config.fingerprint, config.max_file_bytes)
    return None if problem is None else problem.message


def refused(ws: Workspace, config: Config, plan: Plan) -> list[Problem]:
    """Return every raw file a compile would refuse as it is now, with why, sorted: the
    plan's own problems, and those of the raw files the compile would compile (read, not
    compiled; nothing written). Fresh files are not read."""
    pending = (raw for entry in plan.pending(False) if (raw := entry.raw))
    found = [problem for raw in pending if (problem := _refused(ws, config, raw)) is not None]
    return sorted([*plan.problems, *found])


def _refused(ws: Workspace, config: Config, raw_rel: str) -> Problem | None:
    """Why compile refuses a raw file, or None (also when it cannot be read): its bytes, or
    its frontmatter's values, which render alone refuses. Its Markdown, which refuses
    nothing, is not parsed, and a file without frontmatter not rendered: the parse would be
    most of the time."""
    try:
        data = read_with_stat(ws.raw / raw_rel)[0]
    except OSError:
        return None
    return _refused_bytes(raw_rel, data, config.fingerprint, config.max_file_bytes)


def _refused_bytes(raw_rel: str, data: bytes, algorithm: str, max_bytes: int) -> Problem | None:
    """Why compile refuses a raw file `raw_rel` holding `data`, or None (see _refused)."""
    from skillwiki.compiler.article import render
    from skillwiki.markdown import Outline

    where = f".wiki/raw/{raw_rel}"
    parsed = PurePosixPath(raw_rel).suffix.lower() in PARSED_SUFFIXES
    unread = Outline((), (), (), (), "", None, "") if parsed else None  # taken as parsed
    try:
        document = split(decode(data, where, max_bytes), where)
        if document.meta:
            render(raw_rel, document, "", algorithm, unread)
    except InputError as exc:
        return Problem(exc.path or where, exc.detail)
    return None
