"""kramdown's and Python-Markdown's `markdown="1"`: an HTML element whose content is Markdown.
Its opening and closing tag lines are HTML alone; what lies between is read as Markdown, so a
heading right after `<section markdown="1">` is a heading (CockroachDB's Jekyll docs)."""

from __future__ import annotations

from skillwiki import markdown

FILTERED = """<section class="filter-content" markdown="1" data-scope="decommission">
#### Status change

After the node is drained, its status changes.
</section>
Text right after the section, with [a link](x.md).

<div class="note">
## Not a heading: plain HTML up to the blank line
</div>
"""


def test_the_content_of_a_markdown_element_is_markdown() -> None:
    """The heading after the opening tag and the link after the closing tag are read; a
    plain HTML block (no markdown="1") still runs to its blank line."""
    outline = markdown.analyze(FILTERED)
    assert [heading.text for heading in outline.headings] == ["Status change"]
    assert [link.target for link in outline.links] == ["x.md"]
    assert "status-change" in outline.anchors


def test_a_closing_tag_alone_is_html_only_for_an_element_opened_so() -> None:
    """`</section>` with no markdown="1" element open is CommonMark's HTML block as before."""
    text = "</section>\n## Hidden\n"
    assert markdown.analyze(text).headings == ()
