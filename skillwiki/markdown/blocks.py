"""Reading the block outline of a parsed text: headings, code and HTML blocks, the first
paragraph, MyST targets and block ids, a leading H1 and a fence left open; each block's
inline tokens are handed to the inline reader."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

from skillwiki.markdown.anchors import heading_anchors, slug
from skillwiki.markdown.block_rules import liquid_variables, template_calls
from skillwiki.markdown.inline import InlineReader
from skillwiki.markdown.outline import Heading, Outline
from skillwiki.markdown.parse import mdx_parser, parser
from skillwiki.markdown.text import (
    html_ids,
    is_target,
    only_targets,
    plain_text,
    trailing_attrs,
    written_text,
)

if TYPE_CHECKING:
    from markdown_it.token import Token

_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)$")
_NESTING = frozenset(
    {"th_open", "th_close", "td_open", "td_close", "footnote_block_open", "footnote_block_close"}
)
_CODE_BLOCKS = frozenset(
    {"fence", "code_block", "html_block", "template_block", "esm_block", "jsx_block"}
)
_NO_TEXT = frozenset({"html_block", "template_block", "esm_block", "jsx_block"})  # no text shown


def analyze(text: str, *, mdx: bool = False) -> Outline:
    """Parse `text` once and read what skillwiki needs from it (`mdx`: ESM lines are code)."""
    env: dict[str, Any] = {"mdx": mdx}
    tokens = (mdx_parser() if mdx else parser()).parse(text, env)
    return read_tokens(text, tokens, env)


def read_tokens(text: str, tokens: Sequence[Token], env: dict[str, Any]) -> Outline:
    """Read the outline of `text` from the tokens `parser()` made of it with `env`; a block
    whose inline text was not parsed is read as holding no link, HTML or code span."""
    return _BlockReader(text).read(tokens, env)


class _BlockReader:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.inline = InlineReader(self.lines)
        self.headings: list[Heading] = []
        self.code: list[tuple[int, int]] = []
        self.ids: list[str] = []
        self.first_paragraph = ""
        self.labels: list[str] = []
        self.terms: list[tuple[str, int]] = []
        self.calls: list[tuple[str, str, int]] = []
        self.variables: list[tuple[str, str, int]] = []
        self.patterns: list[tuple[str, ...]] = []
        self.open_fence = ""

    def read(self, tokens: Sequence[Token], env: dict[str, Any]) -> Outline:
        in_cell = in_footnote = 0
        for index, token in enumerate(tokens):
            kind = token.type
            if kind in _NESTING:
                step = token.nesting
                in_cell += step if kind[:2] in ("th", "td") else 0
                in_footnote += step if kind.startswith("footnote") else 0
            elif kind in _CODE_BLOCKS and token.map:
                self._code(token)
            elif kind == "inline":
                self._block_text(tokens[index - 1], token, in_cell > 0, in_footnote > 0)
        inline = self.inline
        inline.definitions(env.get("skillwiki_definitions", []))
        inline.links.sort(key=lambda link: (link.line, link.column, link.start))
        anchors = chain(heading_anchors(self.headings), self.ids, inline.ids)
        return Outline(
            tuple(self.headings),
            tuple(inline.links),
            tuple(self.code),
            tuple(sorted(set(anchors))),
            self.first_paragraph,
            self._leading_h1(tokens),
            self.open_fence,
            tuple(inline.mentions),
            tuple(self.labels),
            _opens_with_heading(tokens),
            tuple(self.terms),
            tuple(sorted(self.calls, key=lambda call: call[2])),
            tuple(self.patterns),
            tuple(sorted(self.variables, key=lambda variable: variable[2])),
        )

    def _block_text(self, parent: Token, inline: Token, in_cell: bool, in_footnote: bool) -> None:
        self.inline.read(inline, table=in_cell)
        if parent.type == "heading_open":
            self._heading(parent, inline)
        elif parent.type == "dt_open":
            line = parent.map[0] + 1 if parent.map else 1
            self.terms.append((plain_text(inline.children or []), line))
        elif parent.type == "paragraph_open":
            self._paragraph(inline, in_footnote)
            if "{{" in inline.content or "{%" in inline.content:
                self._templates(inline.content, parent.map[0] + 1 if parent.map else 1)

    def _templates(self, text: str, line: int) -> None:
        """The template calls and Liquid variables of a block's text, from its 1-based
        `line`."""
        self.calls += template_calls(text, line)
        if "{%" in text:
            self.variables += liquid_variables(text, line)

    def _paragraph(self, inline: Token, in_footnote: bool) -> None:
        text = inline.content
        # `text ^id`: a block that [[Page#^id]] links to (Obsidian); most paragraphs hold no
        # `^`, and a substring test is far cheaper than the pattern's scan
        block = _BLOCK_ID.search(text) if "^" in text else None
        if block is not None:
            self.ids.append("^" + block[1])
        lines = text.split("\n") if ")=" in text else []
        labels = [line.strip()[1:-2] for line in lines if is_target(line)]
        self.labels += labels
        if not (self.first_paragraph or in_footnote):
            words = plain_text(inline.children or [])
            for label in labels:  # a target is no text of the page
                words = " ".join(words.replace(f"({label})=", " ").split())
            self.first_paragraph = words

    def _code(self, token: Token) -> None:
        assert token.map is not None
        start, end = token.map
        self.code.append((start, end))
        if token.type in ("html_block", "jsx_block"):
            self.ids += html_ids(token.content)
            if "{{" in token.content or "{%" in token.content:
                self._templates(token.content, start + 1)
        elif token.type == "fence" and end >= len(self.lines) - (self.lines[-1] == ""):
            last = self.lines[end - 1].strip() if end - 1 > start else ""
            marker = token.markup
            if not (last.startswith(marker) and set(last) == {marker[0]}):
                self.open_fence = marker

    def _heading(self, opening: Token, inline: Token) -> None:
        children = inline.children or []
        if any(child.type == "template" for child in children):
            wild = written_text(children, template="\0").strip(" \t")
            self.patterns.append(tuple(slug(piece) for piece in wild.split("\0")))
        written = written_text(children).strip(" \t")
        text = " ".join(written.split())
        ids: tuple[str, ...] = ()
        attrs = trailing_attrs(text)
        if attrs is not None:
            text, ids = attrs
            written = text  # an attribute list names its own ids
        line = opening.map[0] + 1 if opening.map else 1
        kept = "" if written == text else written
        self.headings.append(Heading(int(opening.tag[1:]), text, line, ids, kept))

    def _leading_h1(self, tokens: Sequence[Token]) -> tuple[str, int] | None:
        """The H1 that opens the text, after any MyST targets (`(name)=`): its text and the
        line after it."""
        first = 0
        while tokens[first : first + 1] and tokens[first].type == "paragraph_open":
            if not only_targets(tokens[first + 1].content):
                break
            first += 3
        opening = tokens[first] if first < len(tokens) else None
        if opening and opening.type == "heading_open" and opening.tag == "h1" and self.headings:
            return self.headings[0].text, opening.map[1] if opening.map else 1
        return None


def _opens_with_heading(tokens: Sequence[Token]) -> bool:
    """Whether the first block with text is a heading outside any container: HTML, template
    syntax, MDX imports and paragraphs of MyST targets or inline HTML alone (`<a id="x"></a>`)
    may come before it."""
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type in _NO_TEXT:
            index += 1
        elif token.type == "paragraph_open" and _no_text(tokens[index + 1]):
            index += 3
        else:
            return token.type == "heading_open"
    return False


def _no_text(inline: Token) -> bool:
    """Whether a paragraph shows no text: MyST targets, or inline HTML alone. Its inline text
    was parsed (see parse: every paragraph is, up to the first with text)."""
    children = inline.children or []
    return only_targets(inline.content) or bool(children) and not plain_text(children)
