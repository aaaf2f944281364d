"""The one markdown-it-py parser, and what skillwiki reads from Markdown: headings, links, text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def parser() -> MarkdownIt:
    """Return the shared CommonMark parser (tables on); it holds no per-document state."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def parse(text: str) -> list[Token]:
    """Parse `text` into markdown-it block tokens."""
    return parser().parse(text)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 1-based


@dataclass(frozen=True)
class Link:
    """A link target in the text: `start`/`end` are offsets of the target itself."""

    kind: str  # "inline", "image", "reference", "wikilink"
    target: str
    line: int  # 1-based
    column: int  # 1-based
    start: int
    end: int


def inline_text(token: Token) -> str:
    """Return the plain text of an inline token: no markers, links as their text."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join("".join(parts).split())


def headings(tokens: Sequence[Token]) -> list[Heading]:
    """Return every heading with its level, plain text and line."""
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            line = token.map[0] + 1 if token.map else 0
            found.append(Heading(int(token.tag[1:]), inline_text(tokens[index + 1]), line))
    return found


def first_paragraph(tokens: Sequence[Token]) -> str:
    """Return the plain text of the first paragraph that has any text."""
    for index, token in enumerate(tokens):
        if token.type == "paragraph_open" and index + 1 < len(tokens):
            text = inline_text(tokens[index + 1])
            if text:
                return text
    return ""


def leading_h1(tokens: Sequence[Token]) -> tuple[str, int] | None:
    """Return (text, end line) of an H1 that is the first block of the text, if there is one."""
    if len(tokens) > 1 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        end = tokens[0].map[1] if tokens[0].map else 1
        return inline_text(tokens[1]), end
    return None


def code_lines(tokens: Sequence[Token]) -> set[int]:
    """Return the 0-based line numbers that belong to fenced or indented code blocks."""
    lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block", "html_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


_INLINE = re.compile(
    r"(!?)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\))?)"
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^<>\n]*>|\S+)")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_INLINE_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[*_`]")


@dataclass(frozen=True)
class Blocks:
    """What a quick line scan finds: the lines inside code, and the headings."""

    code_lines: frozenset[int]  # 0-based
    headings: tuple[Heading, ...]


def scan(text: str) -> Blocks:
    """Find fenced and indented code and ATX/setext headings, line by line.

    A fraction of the cost of a full parse, for reading many files (lint, indexing); it agrees
    with CommonMark on the common cases, not on every corner of the spec.
    """
    code: set[int] = set()
    found: list[Heading] = []
    lines = text.splitlines()
    fence = ""
    previous = ""  # the last line outside code, "" after a blank line
    in_list = False
    for number, line in enumerate(lines):
        if fence:
            code.add(number)
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            code.add(number)
            continue
        if not line.strip():
            previous = ""
            continue
        if line.startswith(("    ", "\t")) and not previous and not in_list:
            code.add(number)
            continue
        in_list = bool(_LIST_ITEM.match(line)) or (in_list and line[:1] in " \t")
        atx = _ATX.match(line)
        if atx:
            found.append(Heading(len(atx.group(1)), _plain(atx.group(2) or ""), number + 1))
            previous = ""
            continue
        underline = _SETEXT.match(line)
        if underline and previous and not _LIST_ITEM.match(previous):
            level = 1 if underline.group(1)[0] == "=" else 2
            found.append(Heading(level, _plain(previous), number))
            previous = ""
            continue
        previous = line
    return Blocks(frozenset(code), tuple(found))


def _plain(text: str) -> str:
    return " ".join(_INLINE_MARKUP.sub(lambda m: m.group(1) or "", text).split())


def links(
    text: str, tokens: Sequence[Token] | None = None, code: frozenset[int] | None = None
) -> Iterator[Link]:
    """Yield every link outside code: inline links, images, reference definitions, wikilinks.

    Code is located by `tokens` (a full parse) or `code` (0-based lines) when given, else by
    `scan`.
    """
    if code is not None:
        skip: set[int] | frozenset[int] = code
    else:
        skip = scan(text).code_lines if tokens is None else code_lines(tokens)
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True)):
        if number not in skip and "[" in line:
            yield from _line_links(
                _mask_code_spans(line) if "`" in line else line, number + 1, offset
            )
        offset += len(line)


def _mask_code_spans(line: str) -> str:
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def _line_links(line: str, number: int, offset: int) -> Iterator[Link]:
    if "[" not in line:  # no link can start here
        return
    for match in _INLINE.finditer(line):
        start, end = match.span(2)
        target = match.group(2)
        if target.startswith("<"):
            start, end, target = start + 1, end - 1, target[1:-1]
        kind = "image" if match.group(1) else "inline"
        yield Link(kind, target, number, start + 1, offset + start, offset + end)
    reference = _REFERENCE.match(line)
    if reference:
        start, end = reference.span(1)
        target = reference.group(1).strip("<>")
        yield Link("reference", target, number, start + 1, offset + start, offset + end)
    for match in _WIKILINK.finditer(line):
        start, end = match.span(1)
        yield Link("wikilink", match.group(1), number, start + 1, offset + start, offset + end)


_NOT_IN_SLUG = re.compile(r"[^\w\- ]")


def slug(heading: str) -> str:
    """Return GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    return _NOT_IN_SLUG.sub("", heading.strip().lower()).replace(" ", "-")
