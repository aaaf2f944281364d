"""What skillwiki reads from Markdown, read by markdown-it-py: the one Markdown reader.

CommonMark (with tables, strikethrough and footnotes from mdit-py-plugins) decides what is a
heading, a link, code or a paragraph. Three small plugins add what real documentation trees
write beside CommonMark, each a markdown-it rule:

- template syntax is never a link or text: `{{ ... }}`, `{{< ... >}}`, `{{% ... %}}` and
  `{% ... %}` (Hugo, Jekyll/Liquid, Jinja, mdBook) are opaque inline, and a Hugo shortcode
  `{{< name >}} ... {{< /name >}}` whose inner text Hugo does not read as Markdown is an
  opaque block; a link whose destination holds it, `[text]({{ site.baseurl }}/a.html)`,
  reads as its text, and is no link to check;
- `[[wikilinks]]`, tried only where CommonMark found no link (so `[[1]](x.md)` is a link);
- heading attribute lists `{ #custom-id }` (MkDocs attr_list, Hugo) name an anchor.

A MyST target line, `(name)=` (Sphinx, Jupyter Book), is read off CommonMark's paragraph as
mdit-py-plugins' myst_blocks reads it, without that plugin: it would also make `%` lines
comments and `+++` breaks in every Markdown file.

Links carry their source span, found with markdown-it's own destination parser, so that
compile can rewrite a destination in place. `analyze` returns plain values (tuples, strings),
so that callers can cache them by the text's fingerprint.

The modules follow the parse: `parse` (the configured parser, with `block_rules` and
`inline_rules`), then the reading of its tokens: `blocks` (the outline, block by block),
`inline` (links, inline HTML ids, code mentions), `text` (the plain text of blocks) and
`anchors` (a heading's anchor per site generator); `outline` holds the values returned.
`references` counts how central an article is, from what `analyze` read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillwiki import lazy

if TYPE_CHECKING:
    from skillwiki.markdown.anchors import slug, toc_slug, vue_slug
    from skillwiki.markdown.block_rules import SHORTCODE_SEARCH_LINES
    from skillwiki.markdown.blocks import analyze, read_tokens
    from skillwiki.markdown.inline import MENTION_CHARS
    from skillwiki.markdown.outline import Heading, Link, Outline
    from skillwiki.markdown.parse import parser
    from skillwiki.markdown.text import is_target, only_targets, plain_text, trailing_attrs

__all__ = [
    "MENTION_CHARS",
    "SHORTCODE_SEARCH_LINES",
    "Heading",
    "Link",
    "Outline",
    "analyze",
    "is_target",
    "only_targets",
    "parser",
    "plain_text",
    "read_tokens",
    "slug",
    "toc_slug",
    "trailing_attrs",
    "vue_slug",
]

# Each name, and the module it is loaded from the first time it is asked for.
__getattr__ = lazy.exports(
    __name__,
    {
        "slug": "anchors",
        "toc_slug": "anchors",
        "vue_slug": "anchors",
        "SHORTCODE_SEARCH_LINES": "block_rules",
        "analyze": "blocks",
        "read_tokens": "blocks",
        "MENTION_CHARS": "inline",
        "Heading": "outline",
        "Link": "outline",
        "Outline": "outline",
        "parser": "parse",
        "is_target": "text",
        "only_targets": "text",
        "plain_text": "text",
        "trailing_attrs": "text",
    },
)
