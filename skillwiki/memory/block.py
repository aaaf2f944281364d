"""The recall block in an instruction file (AGENTS.md, CLAUDE.md): written between markers,
every byte outside them kept, never through a link that leads out of the workspace; and the
quoting of what a lesson says, for every place the block goes (a prompt, a hook's context, a
file)."""

from __future__ import annotations

import json
import os
import re
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


# What a lesson's text must not carry into a prompt or a file as it is: C0 and C1 controls
# (ESC, BEL, NUL act on a terminal or cut a string), the marks that reorder or hide text (bidi
# embeddings, overrides and isolates, zero-width spaces, the byte-order mark) and the tag
# characters (U+E0000 to U+E007F), which a model reads though no one sees them. Each is
# written as its escape, so that the text still shows that it was there.
_HIDDEN = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
    r"\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
# Markup that could end or start a part of the prompt the text sits in (`</system>`), and a
# run of backticks that could open or close a code fence around it.
_MARKUP = {"<": "&lt;", ">": "&gt;"}
_FENCE = re.compile("`{3,}")


def quote(text: str) -> str:
    """A lesson's text (a title, a rule, a severity) as data on one line: its whitespace
    collapsed, controls and hidden marks escaped (`\\x1b`, `\\u202e`), `<` and `>` as
    entities, a run of three or more backticks as that many `'`."""
    line = escaped(" ".join(text.split()))
    line = _FENCE.sub(lambda run: "'" * len(run.group()), line)
    return "".join(_MARKUP.get(char, char) for char in line)


def escaped(text: str) -> str:
    """`text` with every control character and hidden mark written as its escape."""
    return _HIDDEN.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def inert(block: str) -> str:
    """`block` with the controls and hidden marks of `quote` escaped, its lines kept: what a
    block written into a file may hold, whoever made it."""
    return "\n".join(escaped(line) for line in block.split("\n"))


def write_block(path: Path, block: str, attempts: int = 20, paths: Sequence[str] = ()) -> bool:
    """Put the block between the recall markers of an instruction file; return if it changed.

    Every byte outside the markers stays as it was; without markers they are added at the end.
    The markers are the first end marker with a start marker before it (after any earlier end
    marker), outside code blocks: a marker that the file's own text mentions or shows in code
    is left alone, and the block never holds one (a lesson quoting a marker is neutralised),
    so no write can take in a user's lines or leave part of an old block behind. The file is
    replaced only if it still holds what was read: a line someone appends meanwhile makes the
    write start again. A new Cursor rule (`.mdc`) or Claude Code rule (`.claude/rules/`) starts
    with the frontmatter its client reads, scoped to `paths` when the recall named any. No
    control character reaches the file, from the block or from `paths`.
    """
    block = neutralise_markers(inert(block))
    paths = [escaped(item) for item in paths]
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
    code = code_ranges(data) if end in data else []

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


def code_ranges(data: bytes) -> list[tuple[int, int]]:
    """Byte ranges [first, last) of a file's fenced and indented code blocks, as CommonMark
    reads them: a marker that starts inside one is the file's own text (shown, not meant),
    never the block's, and write_block leaves it alone."""
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
