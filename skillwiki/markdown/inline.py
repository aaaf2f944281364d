"""Reading a block's inline tokens: links with where their destination is written, the ids
of inline HTML, the names inline code spans mention; then link reference definitions."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from skillwiki.markdown.outline import Link
from skillwiki.markdown.parse import parser
from skillwiki.markdown.text import html_ids

if TYPE_CHECKING:
    from markdown_it.token import Token

MENTION_CHARS = 64  # a longer code span is code, not a name
_SUBCOMMAND = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_LINK_KINDS = {"link_open": "inline", "image": "image", "wikilink": "wikilink"}


def mentioned(code: str) -> tuple[str, ...]:
    """Return the names an inline code span starts with: its first word, and its first two
    words when the second is a plain word (`git commit`, not `tail -f` or `wc {{file}}`),
    each of at most MENTION_CHARS."""
    words = code.split(maxsplit=2)[:2]
    names = [words[0]] if words else []
    if len(words) == 2 and _SUBCOMMAND.fullmatch(words[1]):
        names.append(f"{words[0]} {words[1]}")
    return tuple(name for name in names if len(name) <= MENTION_CHARS)


class _Target(NamedTuple):
    """A link as its token gives it: where its destination is written in the inline text."""

    kind: str
    target: str
    span: tuple[int, int, str]  # start, end, the destination unescaped


class InlineReader:
    """Collects what the inline tokens of one text hold, block by block, in text order;
    `definitions` is read last, once every link has said which definitions it uses."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.offsets = [0]
        for line in lines:
            self.offsets.append(self.offsets[-1] + len(line) + 1)
        self.cursors: dict[int, int] = {}  # per line: where the last piece found there ends
        self.links: list[Link] = []
        self.mentions: list[tuple[str, int]] = []
        self.ids: list[str] = []
        self.used: set[str] = set()  # destinations of reference-style links, normalised

    def read(self, token: Token, *, table: bool) -> None:
        """Read one block's inline token (`table`: the block is a table cell)."""
        if not token.map:
            return
        first = token.map[0]
        starts: list[int | None] | None = None
        for child in token.children or []:
            if child.type == "html_inline":
                self.ids += html_ids(child.content)
            elif child.type == "code_inline":
                self.mentions += ((name, first + 1) for name in mentioned(child.content))
            elif (found := self._target(child)) is not None:
                if starts is None:
                    starts = self._line_starts(token.content, first, table)
                self.links.append(self._located(found, token.content, starts, first))

    def _target(self, child: Token) -> _Target | None:
        """The link a child token is, if it is one written inline; a reference-style link's
        destination is noted as used (its definition is the link to check)."""
        kind = _LINK_KINDS.get(child.type) if child.markup != "autolink" else None
        if kind is None:
            return None
        span: tuple[int, int, str] | None = child.meta.get("span") if child.meta else None
        if span is None:
            self.used.add(str(child.attrs.get("src" if kind == "image" else "href", "")))
            return None
        return _Target(kind, child.content if kind == "wikilink" else span[2], span)

    def _located(self, found: _Target, content: str, starts: list[int | None], first: int) -> Link:
        """The link placed in the text: its line and column, and its destination's offsets."""
        kind, target, span = found
        row = content.count("\n", 0, span[0])
        column = span[0] - (content.rfind("\n", 0, span[0]) + 1)
        line_start = starts[row] if row < len(starts) else None
        if line_start is None:
            return Link(kind, target, first + row + 1, 1, -1, -1)
        start = line_start + column
        line = first + row
        column = start - self.offsets[line] + 1
        return Link(kind, target, line + 1, column, start, start + span[1] - span[0])

    def _line_starts(self, content: str, first: int, table: bool) -> list[int | None]:
        """Where each line of an inline token's content starts in the text (None: unknown)."""
        found: list[int | None] = []
        for row, piece in enumerate(content.split("\n")):
            number = first + row
            if number >= len(self.lines):
                found.append(None)
                continue
            source = self.lines[number]
            cursor = self.cursors.get(number, 0)
            at = len(source) - len(piece)
            if table or not source.endswith(piece) or at < cursor:
                at = source.find(piece, cursor)
            if at < 0:
                found.append(None)
                continue
            self.cursors[number] = at + len(piece)
            found.append(self.offsets[number] + at)
        return found

    def definitions(self, definitions: list[tuple[int, str, int, int]]) -> None:
        """Add the link reference definitions the parse recorded: "reference" where a link
        uses one, "definition" where none does (it renders nothing: not a link to check)."""
        from markdown_it import helpers

        normalize = parser().normalizeLink
        for first, string, begin, end in definitions:
            target = helpers.parseLinkDestination(string, begin, end).str
            kind = "reference" if normalize(target) in self.used else "definition"
            row = string.count("\n", 0, begin)
            column = begin - (string.rfind("\n", 0, begin) + 1)
            piece = string.split("\n")[row]
            number = first + row
            source = self.lines[number] if number < len(self.lines) else ""
            at = len(source) - len(piece) if source.endswith(piece) else source.find(piece)
            if at < 0:
                self.links.append(Link(kind, target, number + 1, 1, -1, -1))
                continue
            start = self.offsets[number] + at + column
            self.links.append(
                Link(kind, target, number + 1, at + column + 1, start, start + end - begin)
            )
