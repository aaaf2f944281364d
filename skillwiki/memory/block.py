"""The recall block in an instruction file (AGENTS.md, CLAUDE.md): written between markers,
every byte outside them kept, never through a link that leads out of the workspace."""

from __future__ import annotations

import os
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


def write_block(path: Path, block: str, attempts: int = 20) -> bool:
    """Put the block between the recall markers of an instruction file; return if it changed.

    Every byte outside the markers stays as it was; without markers they are added at the end.
    The markers are the first end marker with a start marker before it (after any earlier end
    marker): a start or end marker that the file's own text mentions is left alone, and the
    block never holds one (a lesson quoting a marker is neutralised), so no write can take in
    a user's lines or leave part of an old block behind. The file is replaced only if it still
    holds what was read: a line someone appends meanwhile makes the write start again.
    """
    block = neutralise_markers(block)
    for _ in range(attempts):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        new = _with_block(data, block.encode())
        if new == data:
            return False
        if fsio.replace_if_unchanged(path, data, new):
            return True
    raise Conflict(f"{path} kept changing while the block was written; try again")


def neutralise_markers(text: str) -> str:
    """`text` with any recall marker in it made inert (so it cannot end or start a block)."""
    return text.replace("skillwiki:recall", "skillwiki recall")


def _with_block(data: bytes, inner_block: bytes) -> bytes:
    start, end = START_MARKER.encode(), END_MARKER.encode()
    inner = b"\n" + inner_block
    searched = 0
    while (finish := data.find(end, searched)) >= 0:
        begin = data.rfind(start, searched, finish)
        if begin >= 0:
            return data[: begin + len(start)] + inner + data[finish:]
        searched = finish + len(end)  # an end marker the text mentions: not ours
    gap = b"" if not data else (b"\n" if data.endswith(b"\n") else b"\n\n")
    return data + gap + start + inner + end + b"\n"
