"""What lint needs to know about one file, read once and cached by the file's stat."""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from skillwiki import markdown, secrets
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import decode, split
from skillwiki.lint.raw_links import MEMO
from skillwiki.markdown.anchors import named_ids
from skillwiki.workspace import PARSED_SUFFIXES

FORMAT = 18  # 7: VitePress's anchors; 8: MyST's targets; 9: secrets by format and by place;
# 10: placeholders, type names and prompts are no secrets; 11: github-slugger's anchors;
# 12: definition terms' anchors; 13: headings and terms named in order, template calls;
# 14: an MDX page's article read as MDX, JSX tag lines and no indented code in MDX;
# 15: anchors of headings that hold template syntax; 16: markdown="1" elements hold Markdown;
# 17: Redcarpet's anchors; 18: Liquid's comments, raw tags and variables

# No rule reads the log's links or headings, only its secrets: it lists every compile, so
# parsing it cost more with each, on every lint after one.
_LOG = ".wiki/log.md"


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
    # its headings and definition terms, by line, each with its id before numbering, as a
    # site that gives terms ids as it gives headings makes them (Hugo: markdown.named_ids)
    named: tuple[tuple[int, str], ...] = ()
    # its template calls that may name a file: name, argument, line (markdown.Outline.calls)
    calls: tuple[tuple[str, str, int], ...] = ()
    # the anchors of headings that hold template syntax, in pieces (Outline.anchor_patterns)
    anchor_patterns: tuple[tuple[str, ...], ...] = ()
    # a digest of each secret in `secrets`, in order: copies of one secret are told apart from
    # other secrets without reading the files again (secret_digest)
    secret_digests: tuple[str, ...] = ()
    # the variables Liquid's assign and capture set: name, value, line (Outline.variables)
    variables: tuple[tuple[str, str, int], ...] = ()


def analyze(rel: str, data: bytes, max_bytes: int) -> FileFacts:
    """Read one file's facts; problems are recorded in `error`, never raised."""
    try:
        text = decode(data, rel, max_bytes)
    except InputError as exc:
        return FileFacts(exc.detail, False, {}, {}, 0, [], [], [], [])
    found = secrets.find(text)
    found_secrets = [_located(text, secret) for secret in found]
    digests = tuple(secret_digest(text[secret.start : secret.end]) for secret in found)
    try:
        document = split(text, rel)
    except InputError as exc:
        return FileFacts(
            exc.detail, False, {}, {}, 0, [], [], [], found_secrets, secret_digests=digests
        )
    offset = text[: len(text) - len(document.body)].count("\n")
    key_lines = _key_lines(text, offset) if document.has_frontmatter else {}
    body = _BodyFacts([], [], [], ())
    suffix = PurePosixPath(rel).suffix.lower()
    lesson = document.meta.get("type") == "lesson" or "/lessons/" in rel
    # A raw file's links are read only when a broken link in its article needs them
    # (raw_links); of raw files, only lessons are parsed here, for their sections.
    parsed = rel != _LOG and (lesson or not rel.startswith(".wiki/raw/"))
    if suffix in PARSED_SUFFIXES and parsed:
        # an MDX page's article is named x.mdx.md: its body is still MDX
        mdx = suffix == ".mdx" or rel.lower().endswith(".mdx.md")
        body = _body_facts(document.body, offset, mdx=mdx, lesson=lesson)
    return FileFacts(
        None,
        document.has_frontmatter,
        document.meta,
        key_lines,
        offset,
        body.links,
        body.anchors,
        body.sections,
        found_secrets,
        body.labels,
        body.named,
        body.calls,
        body.anchor_patterns,
        secret_digests=digests,
        variables=body.variables,
    )


def _key_lines(text: str, offset: int) -> dict[str, int]:
    """Each top-level key of the frontmatter (the `offset` lines before the body) with the
    1-based line it is first on."""
    key_lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines()[1:offset], start=2):
        key = line.split(":", 1)[0] if ":" in line and line[:1] not in " \t-#" else ""
        if key and key not in key_lines:
            key_lines[key] = number
    return key_lines


class _BodyFacts(NamedTuple):
    """What the Markdown of a body holds, for the rules (all empty: a body not parsed)."""

    links: list[tuple[str, str, int, int]]
    anchors: list[str]
    sections: list[tuple[str, int, str]]
    labels: tuple[str, ...]
    named: tuple[tuple[int, str], ...] = ()
    calls: tuple[tuple[str, str, int], ...] = ()
    anchor_patterns: tuple[tuple[str, ...], ...] = ()
    variables: tuple[tuple[str, str, int], ...] = ()


def _body_facts(body: str, offset: int, *, mdx: bool, lesson: bool) -> _BodyFacts:
    """The links, anchors, labels and (of a lesson only) sections of a body that starts after
    `offset` lines."""
    outline = markdown.analyze(body, mdx=mdx)
    return _BodyFacts(
        links=[(link.kind, link.target, offset + link.line, link.column) for link in outline.links],
        anchors=list(outline.anchors),
        sections=_sections(body, offset, outline) if lesson else [],
        labels=outline.labels,
        named=tuple(
            (offset + line, name) for line, name in named_ids(outline.headings, outline.terms)
        ),
        calls=tuple((name, argument, offset + line) for name, argument, line in outline.calls),
        anchor_patterns=outline.anchor_patterns,
        variables=tuple((name, value, offset + line) for name, value, line in outline.variables),
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
    """A secret's kind, line and column (1-based) in `text`."""
    line = text.count("\n", 0, secret.start) + 1
    column = secret.start - (text.rfind("\n", 0, secret.start) + 1) + 1
    return (secret.kind, line, column)


def secret_digest(value: str) -> str:
    """What a secret is compared by with its copies: a digest of it without the backslashes
    that index.md (Markdown) and index.json (JSON) escape characters with. Kept in the cache,
    never shown; the raw file beside the cache holds the secret itself."""
    return hashlib.blake2b(value.replace("\\", "").encode(), digest_size=16).hexdigest()


def raw_links(rel: str, data: bytes) -> list[tuple[str, str, int, int]]:
    """Every link of a raw file: kind, target as written, line, column (none if unreadable);
    parsed once for each content the file has had (raw_links.MEMO)."""
    return MEMO.links(rel, data)
