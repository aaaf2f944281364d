"""The one configured markdown-it parser: CommonMark with tables, strikethrough, footnotes,
definition lists (Hugo's goldmark, kramdown, Pandoc and MkDocs read `Term` / `: definition`)
and skillwiki's own rules, parsing inline text only where `analyze` reads it."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from skillwiki.markdown.block_rules import (
    esm_block,
    jsx_flow,
    liquid_comment,
    markdown_in_html,
    recorded_reference,
    template_block,
)
from skillwiki.markdown.inline_rules import spanned, template_inline, template_link, wikilink
from skillwiki.markdown.text import only_targets, plain_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

_MARKUP = ("[", "<", "`")  # without one, inline text yields no link, HTML or code span
_READ_WHOLE = frozenset({"heading_open", "dt_open"})  # blocks whose plain text is read


@cache
def parser() -> MarkdownIt:
    """Return the one configured parser; it holds no per-document state."""
    return _configured()


@cache
def mdx_parser() -> MarkdownIt:
    """The parser for MDX: indentation makes no code, as in mdxjs. Its env must hold
    `{"mdx": True}` too, which its JSX and ESM rules look for."""
    return _configured().disable("code")


def _configured() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from markdown_it import helpers as library_helpers
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(deflist_plugin)
    recorded: list[tuple[str, int, int]] = []  # while the reference rule runs: its call

    def parse_destination(src: str, pos: int, maximum: int) -> Any:
        found = library_helpers.parseLinkDestination(src, pos, maximum)
        if found.ok and not recorded:
            recorded.append((src, pos, found.pos))
        return found

    md.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkLabel=library_helpers.parseLinkLabel,
        parseLinkDestination=parse_destination,
        parseLinkTitle=library_helpers.parseLinkTitle,
    )
    md.block.ruler.before(
        "table",
        "template_block",
        template_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before(
        "table",
        "liquid_comment",
        liquid_comment,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before("table", "esm", esm_block, {"alt": ["paragraph"]})
    md.block.ruler.before(
        "table", "jsx", jsx_flow, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    md.block.ruler.before(
        "html_block", "markdown_in_html", markdown_in_html, {"alt": ["paragraph", "reference"]}
    )
    md.inline.ruler.before("text", "template", template_inline)
    md.inline.ruler.after("image", "template_link", template_link)
    md.inline.ruler.after("footnote_ref", "wikilink", wikilink)
    md.inline.ruler.at("link", spanned(md.inline.ruler, "link", 0))
    md.inline.ruler.at("image", spanned(md.inline.ruler, "image", 1))
    md.block.ruler.at("reference", recorded_reference(md.block.ruler, recorded))
    md.core.ruler.at("inline", _inline_where_read)
    return md


def _inline_where_read(state: StateCore) -> None:
    """Parse the inline text of the blocks `analyze` reads inline tokens of, and only those.

    Those are headings, definition terms, paragraphs up to the first with text, and any block
    whose text holds a `[`, a `<` or a backtick: without one, inline parsing yields no link,
    image, wikilink, footnote reference, HTML or code span, so its tokens would be read for
    nothing (most list items and paragraphs of prose). Skipping them is exact, not an
    approximation: a test holds `analyze` equal to a parse of every block on the corpora.
    Half of a parse was inline.
    """
    md, env = state.md, state.env
    want_paragraph = True
    in_footnote = 0
    tokens = state.tokens
    for index, token in enumerate(tokens):
        kind = token.type
        if kind != "inline":
            if kind.startswith("footnote_reference_"):
                in_footnote += token.nesting
            continue
        if token.children is None:
            token.children = []
        parent = tokens[index - 1].type if index else ""
        content = token.content
        first = want_paragraph and parent == "paragraph_open" and not in_footnote
        if first or _may_hold_what_is_read(parent, content):
            md.inline.parse(content, md, env, token.children)
            if first and plain_text(token.children) and not only_targets(content):
                want_paragraph = False


def _may_hold_what_is_read(parent: str, content: str) -> bool:
    """Whether a block's inline tokens may hold what `analyze` reads past the first
    paragraph: a heading's or a definition term's text, or any text with the markup a link,
    HTML or code needs."""
    return parent in _READ_WHOLE or any(mark in content for mark in _MARKUP)
