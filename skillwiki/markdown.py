"""What skillwiki reads from Markdown: code, headings, links, the first paragraph, anchors.

A line scanner, not a full parser: it agrees with CommonMark (markdown-it-py, in the tests) on
the first paragraph, headings, code and links of 15,000 real pages, at a fraction of the
cost (no import of a parser on the way to an answer; 40% of a first compile was parsing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple


# Heading and Link are NamedTuples: lint makes one per heading and link of every file, and a
# tuple is several times cheaper to create than a frozen dataclass.
class Heading(NamedTuple):
    level: int
    text: str
    line: int  # 1-based


class Link(NamedTuple):
    """A link target in the text: `start`/`end` are offsets of the target itself."""

    kind: str  # "inline", "image", "reference", "wikilink"
    target: str
    line: int  # 1-based
    column: int  # 1-based
    start: int
    end: int


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


@dataclass(frozen=True)
class Blocks:
    """What a quick line scan finds: the lines inside code, and the headings."""

    code_lines: frozenset[int]  # 0-based
    headings: tuple[Heading, ...]
    heading_lines: frozenset[int] = frozenset()  # 0-based, underlines of setext ones included


def scan(text: str) -> Blocks:
    """Find fenced and indented code and ATX/setext headings, line by line.

    A fraction of the cost of a full parse, for reading many files (lint, indexing); it agrees
    with CommonMark on the common cases, not on every corner of the spec.
    """
    code: set[int] = set()
    found: list[Heading] = []
    heading_lines: set[int] = set()
    lines = text.splitlines()
    fence = ""
    paragraph: list[int] = []  # the lines of the paragraph being read, outside code
    in_list = html = False
    for number, line in enumerate(lines):
        if fence or (html and line.strip()):  # an HTML block runs to the next blank line
            code.add(number)
            fence = "" if fence and _closes(line, fence) else fence
            continue
        if line[:1].isalpha():  # most lines: text, which no block construct starts with
            in_list = False
            paragraph.append(number)
            continue
        fence = _fence_opened(line)
        if fence:
            code.add(number)
            paragraph = []
            continue
        if not line.strip():
            paragraph = []
            html = False
            continue
        if (not paragraph or _HTML_INTERRUPTS.match(line)) and _HTML_START.match(line):
            html = True
            code.add(number)
            continue
        if line.startswith(("    ", "\t")) and not paragraph and not in_list:
            code.add(number)
            continue
        in_list = bool(_LIST_ITEM.match(line)) or (in_list and line[:1] in " \t")
        heading = _heading(lines, number, paragraph)
        if heading is not None:
            found.append(heading)
            heading_lines.update(range(heading.line - 1, number + 1))
            paragraph = []
            continue
        paragraph = _extend(paragraph, lines, number)
    return Blocks(frozenset(code), tuple(found), frozenset(heading_lines))


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and set(stripped) == {fence[0]}


def _fence_opened(line: str) -> str:
    """The fence (```` ``` ```` or `~~~`) this line opens, or ""."""
    opened = _FENCE.match(line)
    if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
        return opened.group(1)
    return ""


def _heading(lines: list[str], number: int, paragraph: list[int]) -> Heading | None:
    """An ATX heading on this line, or a setext one that this line underlines."""
    line = lines[number]
    atx = _ATX.match(line)
    if atx:
        return Heading(len(atx.group(1)), _plain(atx.group(2) or ""), number + 1)
    underline = _SETEXT.match(line)
    first = lines[paragraph[0]] if paragraph else ""
    if underline and paragraph and not _LIST_ITEM.match(first) and not _QUOTE.match(first):
        words = " ".join(lines[n].strip() for n in paragraph)
        return Heading(1 if underline.group(1)[0] == "=" else 2, _plain(words), paragraph[0] + 1)
    return None


def _extend(paragraph: list[int], lines: list[str], number: int) -> list[int]:
    """Add a line to the paragraph being read, or start another block with it."""
    line = lines[number]
    if _THEMATIC.match(line):  # a rule, not text (after text, `---` was an underline)
        return []
    starts_container = bool(_QUOTE.match(line) or _LIST_ITEM.match(line))
    if paragraph and starts_container and lines[paragraph[0]][:1] != line[:1]:
        return [number]  # a quote or a list item interrupts the paragraph
    paragraph.append(number)
    return paragraph


def _plain(text: str) -> str:
    return inline_plain(text)


def links(text: str, code: frozenset[int] | None = None) -> Iterator[Link]:
    """Yield every link outside code: inline links, images, reference definitions, wikilinks.

    `code` holds the 0-based lines inside code, when the caller scanned them already.
    """
    skip = scan(text).code_lines if code is None else code
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
    for match in _INLINE.finditer(line) if "](" in line else ():
        start, end = match.span(2)
        target = match.group(2)
        if target.startswith("<"):
            start, end, target = start + 1, end - 1, target[1:-1]
        kind = "image" if match.group(1) else "inline"
        yield Link(kind, target, number, start + 1, offset + start, offset + end)
    reference = _REFERENCE.match(line) if line.lstrip(" ")[:1] == "[" else None
    if reference:
        start, end = reference.span(1)
        target = reference.group(1).strip("<>")
        yield Link("reference", target, number, start + 1, offset + start, offset + end)
    for match in _WIKILINK.finditer(line) if "[[" in line else ():
        start, end = match.span(1)
        yield Link("wikilink", match.group(1), number, start + 1, offset + start, offset + end)


_NOT_IN_SLUG = re.compile(r"[^\w\- ]")


def slug(heading: str) -> str:
    """Return GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    return _NOT_IN_SLUG.sub("", heading.strip().lower()).replace(" ", "-")


_THEMATIC = re.compile(r"^ {0,3}([-*_])(?: *\1){2,} *$")
_HTML_START = re.compile(r"^ {0,3}<[A-Za-z/!?]")
# The HTML blocks that may interrupt a paragraph: comments and CommonMark's block-level tags.
_HTML_INTERRUPTS = re.compile(
    r"^ {0,3}<(?:!--|/?(?:address|article|aside|blockquote|body|center|details|dialog|dd|div"
    r"|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|head|header|hr|html|li|main|nav|ol"
    r"|p|pre|script|section|style|summary|table|tbody|td|textarea|tfoot|th|thead|tr|ul)"
    r"(?:[\s/>]|$))",
    re.IGNORECASE,
)
_REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:")
_CONTAINER = re.compile(r"^ {0,3}(?:>[ \t]?|(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$))")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CODE_SPAN_TEXT = re.compile(r"(`+)(.+?)\1")
_IMAGE_OR_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^<>\s]+)>")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
# Emphasis pairs: stars anywhere, underscores only at word edges (snake_case stays whole).
_EMPHASIS = (
    re.compile(r"(\*{1,3})(?=\S)(.+?)(?<=\S)\1"),
    re.compile(r"(?<![A-Za-z0-9])(_{1,3})(?=\S)(.+?)(?<=\S)\1(?![A-Za-z0-9])"),
)
_MARKUP_CHARS = re.compile(r"[`*_\[\]!<>&\\]")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


@dataclass(frozen=True)
class Outline:
    """What compile reads from a Markdown body, found by a line scan."""

    blocks: Blocks
    leading_h1: tuple[str, int] | None  # an H1 that is the first block: text, end line
    first_paragraph: str  # its plain text


def outline(text: str) -> Outline:
    """Scan `text` once for code, headings, a leading H1 and the first paragraph."""
    blocks = scan(text)
    lines = text.splitlines()
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    leading = None
    starts = {heading.line - 1: heading for heading in blocks.headings}
    if first is not None and first in starts and starts[first].level == 1:
        end = first + 1
        if not _ATX.match(lines[first]):  # a setext heading: its lines, then the underline
            while end < len(lines) and not _SETEXT.match(lines[end]):
                end += 1
            end += 1
        leading = (starts[first].text, end)
    return Outline(blocks, leading, _first_paragraph(lines, blocks))


def _first_paragraph(lines: list[str], blocks: Blocks) -> str:
    headings = blocks.heading_lines
    taken: list[str] = []
    depth = 0  # how many `>` the paragraph stands in
    table = False
    for number, line in enumerate(lines):
        inner = _strip_containers(line)
        outside = number in blocks.code_lines or number in headings
        if outside or not inner.strip() or _starts_block(line, inner, bool(taken), depth):
            if taken:
                break
            table = table and bool(inner.strip())
            continue
        if _table_starts(lines, number, inner):
            if taken:
                break  # a table interrupts the paragraph
            table = True  # a table, header to the next blank line: no paragraph
        if table:
            continue
        if not taken:
            depth = _quote_depth(line)
        taken.append(inner.strip())
        if number + 1 in headings:
            break
    return inline_plain(" ".join(taken))


def _table_starts(lines: list[str], number: int, inner: str) -> bool:
    following = lines[number + 1] if number + 1 < len(lines) else ""
    return "|" in inner and "|" in following and bool(_TABLE_DELIMITER.match(following))


def _starts_block(line: str, inner: str, in_paragraph: bool, depth: int) -> bool:
    """Tell whether a line opens a block other than paragraph text (ending a paragraph)."""
    if _THEMATIC.match(inner) or _HTML_START.match(inner) or _FENCE.match(inner):
        return True
    if _ATX.match(inner) or _REFERENCE_DEF.match(inner):
        return True
    return in_paragraph and bool(
        _LIST_ITEM.match(_strip_quotes(line)) or _quote_depth(line) not in (0, depth)
    )


def _quote_depth(line: str) -> int:
    depth = 0
    while match := _QUOTE.match(line):
        line = line[match.end() :]
        depth += 1
    return depth


def _strip_quotes(line: str) -> str:
    return _strip_all(_QUOTE, line)


def _strip_containers(line: str) -> str:
    return _strip_all(_CONTAINER, line)


def _strip_all(prefix: re.Pattern[str], line: str) -> str:
    """Remove every leading match of prefix (nested quotes, list items)."""
    while match := prefix.match(line):
        line = line[match.end() :]
    return line


def inline_plain(text: str) -> str:
    """Return the text a reader sees of inline Markdown: no markers, links as their text."""
    if not _MARKUP_CHARS.search(text):  # most headings and many lines are plain words
        return " ".join(text.split())
    import html

    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        return keep_literal(" ".join(match.group(2).split()))

    def keep_literal(literal: str) -> str:  # set aside, out of reach of the other rules
        spans.append(literal)
        return f"\x00{len(spans) - 1}\x00"

    text = _CODE_SPAN_TEXT.sub(keep, text)
    text = _ESCAPE.sub(lambda match: keep_literal(match.group(1)), text)
    text = _AUTOLINK.sub(r"\1", text)
    for _ in range(2):  # a link inside an image's alt, or the reverse
        text = _IMAGE_OR_LINK.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    for pattern in _EMPHASIS:
        for _ in range(3):  # nested emphasis, from the outside in
            text = pattern.sub(r"\2", text)
    text = html.unescape(text)
    text = re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)
    return " ".join(text.split())
