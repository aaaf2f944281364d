"""The reference the line scanner of skillwiki.markdown is held to: CommonMark, by markdown-it-py."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from skillwiki.markdown import Heading


@cache
def parser() -> MarkdownIt:
    """Return the shared CommonMark parser (tables on); it holds no per-document state."""
    return MarkdownIt("commonmark").enable("table")


def parse(text: str) -> list[Token]:
    """Parse `text` into markdown-it block tokens."""
    return parser().parse(text)


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
