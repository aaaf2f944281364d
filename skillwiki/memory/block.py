"""The recall block in an instruction file (AGENTS.md, CLAUDE.md): written between markers,
every byte outside them kept, never through a link that leads out of the workspace."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from skillwiki import fsio
from skillwiki.errors import Conflict, OutsideWorkspace
from skillwiki.workspace import Workspace, outside_of

START_MARKER = "<!-- skillwiki:recall -->"
END_MARKER = "<!-- /skillwiki:recall -->"


def write_target(ws: Workspace, path: Path) -> Path:
    """The file `recall --write PATH` changes: PATH inside the workspace, or, when PATH is a
    symlink (CLAUDE.md -> AGENTS.md), the file it leads to, which must be inside too; the
    link stays a link."""
    if os.path.islink(path):
        outside_of(os.path.realpath(ws.root), str(path), str(path))
        return Path(os.path.realpath(path))
    if not ws.holds(path):
        raise OutsideWorkspace(path, f"is outside the workspace {ws.root}; name a file in it")
    return path


def write_block(path: Path, block: str, attempts: int = 20, paths: Sequence[str] = ()) -> bool:
    """Put the block between the recall markers of an instruction file; return if it changed.

    Every byte outside the markers stays as it was; without markers they are added at the end.
    The markers are the first end marker with a start marker before it (after any earlier end
    marker), outside code blocks: a marker that the file's own text mentions or shows in code
    is left alone, and the block never holds one (a lesson quoting a marker is neutralised),
    so no write can take in a user's lines or leave part of an old block behind. The file is
    replaced only if it still holds what was read: a line someone appends meanwhile makes the
    write start again. A new Cursor rule (`.mdc`) or Claude Code rule (`.claude/rules/`) starts
    with the frontmatter its client reads, scoped to `paths` when the recall named any.
    """
    block = neutralise_markers(block)
    for _ in range(attempts):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        new = _with_block(data or frontmatter_for(path, paths).encode(), block.encode())
        if new == data:
            return False
        if fsio.replace_if_unchanged(path, data, new):
            return True
    raise Conflict(f"{path} kept changing while the block was written; try again")


def frontmatter_for(path: Path, paths: Sequence[str]) -> str:
    """The frontmatter a new rule file needs for its client to load it: Cursor's `.mdc`
    (`description`, and `alwaysApply: true` or `globs`), Claude Code's `.claude/rules/*.md`
    (`paths`, only when scoped); nothing for other files."""
    quoted = [json.dumps(item) for item in paths]  # JSON strings are YAML flow scalars
    if path.suffix == ".mdc":
        scope = f"globs: {','.join(paths)}\n" if paths else "alwaysApply: true\n"
        return f"---\ndescription: {DESCRIPTION}\n{scope}---\n"
    if path.parent.name == "rules" and path.parent.parent.name == ".claude" and paths:
        return f"---\npaths: [{', '.join(quoted)}]\n---\n"
    return ""


DESCRIPTION = "Known failures in this repository, from skillwiki recall"


def neutralise_markers(text: str) -> str:
    """`text` with any recall marker in it made inert (so it cannot end or start a block)."""
    return text.replace("skillwiki:recall", "skillwiki recall")


def _with_block(data: bytes, inner_block: bytes) -> bytes:
    """`data` with the block between its markers; its lines end as the file's first line
    does (CRLF in a file written on Windows)."""
    start, end = START_MARKER.encode(), END_MARKER.encode()
    first = data.find(b"\n")
    newline = b"\r\n" if first > 0 and data[first - 1 : first] == b"\r" else b"\n"
    inner = newline + inner_block.replace(b"\n", newline)
    code = _code_ranges(data) if end in data else []

    def outside(at: int) -> bool:
        return not any(first <= at < last for first, last in code)

    searched = 0
    while (finish := data.find(end, searched)) >= 0:
        begin = data.rfind(start, searched, finish)
        while begin >= 0 and not outside(begin):
            begin = data.rfind(start, searched, begin)
        if begin >= 0 and outside(finish):
            return data[: begin + len(start)] + inner + data[finish:]
        searched = finish + len(end)  # an end marker the text mentions or shows: not ours
    gap = b"" if not data else (newline if data.endswith(b"\n") else newline * 2)
    return data + gap + start + inner + end + newline


def _code_ranges(data: bytes) -> list[tuple[int, int]]:
    """Byte ranges of the file's fenced and indented code blocks, as CommonMark reads them."""
    from skillwiki import markdown

    tokens = markdown.parser().parse(data.decode("utf-8", errors="replace"), {"mdx": False})
    starts = [0]
    for line in data.split(b"\n"):
        starts.append(starts[-1] + len(line) + 1)
    return [
        (starts[token.map[0]], starts[min(token.map[1], len(starts) - 1)])
        for token in tokens
        if token.type in ("fence", "code_block") and token.map
    ]
