"""What lint needs to know about one file, read once and cached by the file's stat."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, NamedTuple

from skillwiki import markdown, secrets
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import decode, split
from skillwiki.workspace import PARSED_SUFFIXES

FORMAT = 9  # 7: VitePress's anchors; 8: MyST's targets; 9: secrets by format and by place


class FileFacts(NamedTuple):
    """One file as the rules see it; plain values only, so that it can be cached."""

    error: str | None  # why the file could not be read or its frontmatter parsed
    has_frontmatter: bool
    meta: dict[str, Any]
    key_lines: dict[str, int]  # top-level frontmatter key -> 1-based line
    body_offset: int  # lines before the body
    links: list[tuple[str, str, int, int]]  # kind, target, line, column
    anchors: list[str]  # its headings' anchors (GitHub's, MkDocs's, VitePress's), its ids
    sections: list[tuple[str, int, str]]  # `## ` heading, its line, the text under it
    secrets: list[tuple[str, int, int]]  # kind, line, column: never the secret itself
    labels: tuple[str, ...] = ()  # MyST targets `(name)=`, which links name from any page


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
    labels: tuple[str, ...] = ()
    sections: list[tuple[str, int, str]] = []
    suffix = PurePosixPath(rel).suffix.lower()
    lesson = document.meta.get("type") == "lesson" or "/lessons/" in rel
    # A raw file's links are read only when a broken link in its article needs them
    # (raw_links); of raw files, only lessons are parsed here, for their sections.
    if suffix in PARSED_SUFFIXES and (lesson or not rel.startswith(".wiki/raw/")):
        outline = markdown.analyze(document.body, mdx=suffix == ".mdx")
        links = [
            (link.kind, link.target, offset + link.line, link.column) for link in outline.links
        ]
        anchors = list(outline.anchors)
        labels = outline.labels
        if lesson:  # only lessons have sections
            sections = _sections(document.body, offset, outline)
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
        labels,
    )


def _sections(body: str, offset: int, outline: markdown.Outline) -> list[tuple[str, int, str]]:
    """Each `## ` heading with the text under it, up to the next one."""
    lines = body.split("\n")
    seconds = [heading for heading in outline.headings if heading.level == 2]
    found = []
    for index, heading in enumerate(seconds):
        start = heading.line  # the line after the heading (1-based heading.line)
        end = seconds[index + 1].line - 1 if index + 1 < len(seconds) else len(lines)
        text = "\n".join(lines[start:end]).strip()
        found.append((heading.text, offset + heading.line, text))
    return found


def _located(text: str, secret: secrets.Secret) -> tuple[str, int, int]:
    line = text.count("\n", 0, secret.start) + 1
    column = secret.start - (text.rfind("\n", 0, secret.start) + 1) + 1
    return (secret.kind, line, column)


def raw_links(rel: str, data: bytes) -> list[tuple[str, str, int, int]]:
    """Every link of a raw file: kind, target as written, line, column (none if unreadable)."""
    try:
        text = decode(data, rel, len(data) + 1)
        document = split(text, rel)
    except InputError:
        return []
    offset = text[: len(text) - len(document.body)].count("\n")
    outline = markdown.analyze(document.body, mdx=rel.lower().endswith(".mdx"))
    return [(link.kind, link.target, offset + link.line, link.column) for link in outline.links]
