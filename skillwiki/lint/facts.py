"""What lint needs to know about one file, read once and cached by the file's stat."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from skillwiki import markdown, secrets
from skillwiki.documents import decode, split
from skillwiki.errors import InputError
from skillwiki.workspace import MARKDOWN_SUFFIXES

FORMAT = 1
_SECTION = re.compile(r"^##\s+(.+?)\s*#*\s*$")


class FileFacts(NamedTuple):
    """One file as the rules see it; plain values only, so that it can be cached."""

    error: str | None  # why the file could not be read or its frontmatter parsed
    has_frontmatter: bool
    meta: dict[str, Any]
    key_lines: dict[str, int]  # top-level frontmatter key -> 1-based line
    body_offset: int  # lines before the body
    links: list[tuple[str, str, int, int]]  # kind, target, line, column
    anchors: list[str]  # GitHub anchors of its headings
    sections: list[tuple[str, int, str]]  # `## ` heading, its line, the text under it
    secrets: list[tuple[str, int, int]]  # kind, line, column: never the secret itself


def analyze(rel: str, data: bytes, max_bytes: int) -> FileFacts:
    """Read one file's facts; problems are recorded in `error`, never raised."""
    try:
        text = decode(data, rel, max_bytes)
    except InputError as exc:
        return FileFacts(exc.detail, False, {}, {}, 0, [], [], [], [])
    found_secrets = [_located(text, secret) for secret in secrets.find(text)]
    try:
        document = split(text, rel)
    except InputError as exc:
        return FileFacts(exc.detail, False, {}, {}, 0, [], [], [], found_secrets)
    offset = text[: len(text) - len(document.body)].count("\n")
    key_lines = {}
    if document.has_frontmatter:
        for number, line in enumerate(text.splitlines()[1:offset], start=2):
            key = line.split(":", 1)[0] if ":" in line and line[:1] not in " \t-#" else ""
            if key and key not in key_lines:
                key_lines[key] = number
    links: list[tuple[str, str, int, int]] = []
    anchors: list[str] = []
    sections: list[tuple[str, int, str]] = []
    if PurePosixPath(rel).suffix.lower() in MARKDOWN_SUFFIXES:
        blocks = markdown.scan(document.body)
        links = [
            (link.kind, link.target, offset + link.line, link.column)
            for link in markdown.links(document.body, code=blocks.code_lines)
        ]
        anchors = sorted(github_anchors([heading.text for heading in blocks.headings]))
        if document.meta.get("type") == "lesson" or "/lessons/" in rel:  # only lessons have them
            sections = _sections(document.body, offset, blocks.code_lines)
    return FileFacts(
        None,
        document.has_frontmatter,
        document.meta,
        key_lines,
        offset,
        links,
        anchors,
        sections,
        found_secrets,
    )


def github_anchors(headings: list[str]) -> set[str]:
    """Return the anchors GitHub gives these headings, with -1, -2 for repeats."""
    seen: dict[str, int] = {}
    found = set()
    for heading in headings:
        base = markdown.slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def _sections(body: str, offset: int, code: frozenset[int]) -> list[tuple[str, int, str]]:
    found: list[tuple[str, int, list[str]]] = []
    for number, line in enumerate(body.splitlines()):
        heading = None if number in code else _SECTION.match(line)
        if heading:
            found.append((heading.group(1).strip(), offset + number + 1, []))
        elif found:
            found[-1][2].append(line)
    return [(name, line, "\n".join(text).strip()) for name, line, text in found]


def _located(text: str, secret: secrets.Secret) -> tuple[str, int, int]:
    line = text.count("\n", 0, secret.start) + 1
    column = secret.start - (text.rfind("\n", 0, secret.start) + 1) + 1
    return (secret.kind, line, column)
