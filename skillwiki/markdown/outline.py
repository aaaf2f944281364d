"""What skillwiki reads from one Markdown text: plain values that callers may cache by the
text's fingerprint."""

from __future__ import annotations

from typing import NamedTuple


class Heading(NamedTuple):
    level: int
    text: str  # plain text, without an attribute list, its spaces collapsed
    line: int  # 1-based
    ids: tuple[str, ...]  # custom ids from an attribute list `{ #id }`
    # The text with its spaces as written (a no-break space, two spaces), which GitHub's
    # anchor keeps; "" when it is `text`.
    written: str = ""


class Link(NamedTuple):
    """A link target: `start`/`end` are offsets of the destination as written (with any
    `<>`) in the text, or -1 where the source could not be matched."""

    # "inline", "image", "wikilink", "reference" (a definition that a link uses), or
    # "definition" (one that no link uses: rewritten by compile, not checked by lint)
    kind: str
    target: str  # the destination, backslash escapes resolved, not percent-encoded
    line: int  # 1-based
    column: int  # 1-based
    start: int
    end: int


class Outline(NamedTuple):
    """What skillwiki reads from one Markdown text."""

    headings: tuple[Heading, ...]
    links: tuple[Link, ...]
    code: tuple[tuple[int, int], ...]  # 0-based [start, end) line ranges of code and HTML
    anchors: tuple[str, ...]  # every `#fragment` the text answers, sorted
    first_paragraph: str  # plain text of the first paragraph that has any
    leading_h1: tuple[str, int] | None  # an H1 that is the first block: text, end line
    open_fence: str  # the marker of a code fence left open at the end, or ""
    # the names inline code spans start with: the first word (`rsync`, `tail -f log`) and the
    # first two (`git commit -m x`: a command's subcommand), in order, each with the line
    # its block starts on
    mentions: tuple[tuple[str, int], ...] = ()
    # MyST targets `(name)=` (Sphinx, Jupyter Book): labels a link names from any page
    labels: tuple[str, ...] = ()
    # whether the text opens with a heading: its first block with text is a heading outside
    # any container (HTML, template syntax, MDX imports, MyST targets and paragraphs of inline
    # HTML alone may come before it)
    opens_with_heading: bool = False
    # the text of each definition list's term (`Term` / `: definition`) and its 1-based line,
    # in order: a site that gives terms ids as it gives headings (Hugo's
    # autoDefinitionTermID) links to them
    terms: tuple[tuple[str, int], ...] = ()
    # template calls whose first argument may name a file, in order: the name, the argument
    # as written, the 1-based line (`{{% include "/_common/x.md" %}}`: include, /_common/x.md);
    # a site that inserts the file there (lint.links.includes) serves its headings too
    calls: tuple[tuple[str, str, int], ...] = ()
    # the GitHub anchor of each heading whose text holds template syntax, in the pieces
    # between the template's places (`## A {{ site.x }} b`: ("a-", "-b")): what the site
    # renders there is not known, so any text there answers
    anchor_patterns: tuple[tuple[str, ...], ...] = ()
    # the variables Liquid's `{% assign %}` and `{% capture %}` set, in order: the name, its
    # value as a piece of a path (`{{ name }}` for another variable's, `{{ }}` for one not
    # known), the 1-based line; an include's path may be built of them
    variables: tuple[tuple[str, str, int], ...] = ()
