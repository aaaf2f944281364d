"""What skillwiki reads from Markdown, read by markdown-it-py: the one Markdown reader.

CommonMark (with tables, strikethrough and footnotes from mdit-py-plugins) decides what is a
heading, a link, code or a paragraph. Three small plugins add what real documentation trees
write beside CommonMark, each a markdown-it rule:

- template syntax is never a link or text: `{{ ... }}`, `{{< ... >}}`, `{{% ... %}}` and
  `{% ... %}` (Hugo, Jekyll/Liquid, Jinja, mdBook) are opaque inline, and a Hugo shortcode
  `{{< name >}} ... {{< /name >}}` whose inner text Hugo does not read as Markdown is an
  opaque block;
- `[[wikilinks]]`, tried only where CommonMark found no link (so `[[1]](x.md)` is a link);
- heading attribute lists `{ #custom-id }` (MkDocs attr_list, Hugo) name an anchor.

A MyST target line, `(name)=` (Sphinx, Jupyter Book), is read off CommonMark's paragraph as
mdit-py-plugins' myst_blocks reads it, without that plugin: it would also make `%` lines
comments and `+++` breaks in every Markdown file.

Links carry their source span, found with markdown-it's own destination parser, so that
compile can rewrite a destination in place. `analyze` returns plain values (tuples, strings),
so that callers can cache them by the text's fingerprint.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token


MENTION_CHARS = 64  # a longer code span is code, not a name


def _mentioned(code: str) -> tuple[str, ...]:
    """The names an inline code span starts with: its first word, and its first two words
    when the second is a plain word (`git commit`, not `tail -f` or `wc {{file}}`), each of
    at most MENTION_CHARS."""
    words = code.split(maxsplit=2)[:2]
    names = [words[0]] if words else []
    if len(words) == 2 and _SUBCOMMAND.fullmatch(words[1]):
        names.append(f"{words[0]} {words[1]}")
    return tuple(name for name in names if len(name) <= MENTION_CHARS)


_SUBCOMMAND = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


class Heading(NamedTuple):
    level: int
    text: str  # plain text, without an attribute list
    line: int  # 1-based
    ids: tuple[str, ...]  # custom ids from an attribute list `{ #id }`


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


@cache
def parser() -> MarkdownIt:
    """Return the one configured parser; it holds no per-document state."""
    from markdown_it import MarkdownIt
    from markdown_it import helpers as library_helpers
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(footnote_plugin)
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
        _template_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before("table", "esm", _esm_block, {"alt": ["paragraph"]})
    md.inline.ruler.before("text", "template", _template_inline)
    md.inline.ruler.after("footnote_ref", "wikilink", _wikilink)
    md.inline.ruler.at("link", _spanned(md.inline.ruler, "link", 0))
    md.inline.ruler.at("image", _spanned(md.inline.ruler, "image", 1))
    md.block.ruler.at("reference", _recorded_reference(md.block.ruler, recorded))
    md.core.ruler.at("inline", _inline_where_read)
    return md


def _inline_where_read(state: StateCore) -> None:
    """Parse the inline text of the blocks `analyze` reads inline tokens of, and only those.

    Those are headings, paragraphs up to the first with text, and any block whose text holds
    a `[`, a `<` or a backtick: without one, inline parsing yields no link, image, wikilink,
    footnote reference, HTML or code span, so its tokens would be read for nothing (most
    list items and paragraphs of prose). Skipping them is exact, not an approximation: a test holds
    `analyze` equal to a parse of every block on the corpora. Half of a parse was inline.
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
        if first or parent == "heading_open" or "[" in content or "<" in content or "`" in content:
            md.inline.parse(content, md, env, token.children)
            if first and plain_text(token.children) and not only_targets(content):
                want_paragraph = False


# --- the plugins ---------------------------------------------------------------------------

_TEMPLATE_CLOSE = {"{{<": ">}}", "{{%": "%}}", "{{": "}}", "{%": "%}"}
_SHORTCODE_OPEN = re.compile(r" {0,3}\{\{<[ \t]*([\w./-]{1,100})")
SHORTCODE_SEARCH_LINES = 5000  # how far a paired shortcode's closing tag is looked for


def _closing(state: StateInline, marker: str, start: int) -> int:
    """Where `marker` next stands in the inline text from `start` (before posMax), or -1.

    The last place of each marker in the text is found once: a text of thousands of openers
    (`{{` or `[[`) and no closer is then answered at once for each, not searched to its end
    by each (which took seconds for 100 kB). markdown-it's html_inline rule does the same.
    """
    lasts = state.env.setdefault("skillwiki_last", {})
    key = (marker, state.src)
    last = lasts.get(key)
    if last is None:
        last = lasts[key] = state.src.rfind(marker)
    if last < start:
        return -1
    return state.src.find(marker, start, state.posMax)


def _template_inline(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith(("{{", "{%"), pos):
        return False
    opening = src[pos : pos + 3] if src[pos : pos + 3] in _TEMPLATE_CLOSE else src[pos : pos + 2]
    close = _closing(state, _TEMPLATE_CLOSE[opening], pos + len(opening))
    if close < 0:
        return False
    end = close + len(_TEMPLATE_CLOSE[opening])
    if not silent:
        token = state.push("template", "", 0)
        token.content = src[pos:end]
    state.pos = end
    return True


def _template_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A Hugo shortcode `{{< name >}}` whose closing `{{< /name >}}` follows: opaque."""
    begin = state.bMarks[start] + state.tShift[start]
    line = state.src[state.bMarks[start] : state.eMarks[start]]
    if state.is_code_block(start) or not state.src.startswith("{{<", begin):
        return False
    opened = _SHORTCODE_OPEN.match(line)
    if opened is None or line.rstrip().endswith("/>}}"):
        return False
    closing = re.compile(r"\{\{<[ \t]*/" + re.escape(opened.group(1)) + r"[ \t]*>\}\}")
    last = min(end, start + SHORTCODE_SEARCH_LINES)
    for number in range(start, last):
        text = state.src[state.bMarks[number] : state.eMarks[number]]
        found = closing.search(text, opened.end() if number == start else 0)
        if found is None:
            continue
        if not silent:
            token = state.push("template_block", "", 0)
            token.map = [start, number + 1]
            token.content = state.getLines(start, number + 1, 0, True)
        state.line = number + 1
        return True
    return False


_ESM = re.compile(r"(?:import|export)[ \t{*]")


def _esm_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """In MDX, `import`/`export` lines at the top level are JavaScript, up to a blank line."""
    if not state.env.get("mdx") or state.sCount[start] != 0 or state.level != 0:
        return False
    if not _ESM.match(state.src, state.bMarks[start], state.eMarks[start]):
        return False
    number = start + 1
    while number < end and not state.isEmpty(number):
        number += 1
    if not silent:
        token = state.push("esm_block", "", 0)
        token.map = [start, number]
        token.content = state.getLines(start, number, 0, True)
    state.line = number
    return True


def _wikilink(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    close = _closing(state, "]]", pos + 2)
    inner = src[pos + 2 : close] if close > 0 else ""
    if not inner.strip() or "\n" in inner or "[" in inner or "]" in inner:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {"span": (pos + 2, close, inner)}
    state.pos = close + 2
    return True


def _spanned(ruler: Any, name: str, bracket: int) -> Any:
    """Wrap the link (or image) rule: record where its destination is written."""
    rule = ruler.__rules__[ruler.__find__(name)].fn

    def spanned(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            token = next(t for t in state.tokens[count:] if t.type in ("link_open", "image"))
            found = _destination(state, start + bracket, state.pos, nested=bracket == 1)
            token.meta = {**token.meta, "span": found}
        return True

    return spanned


def _destination(
    state: StateInline, bracket: int, end: int, *, nested: bool
) -> tuple[int, int, str] | None:
    """(start, end, unescaped) of an inline destination, or None for a reference-style one.

    Found again with the helpers the link rule used (a link's label cannot hold a link; an
    image's can)."""
    from markdown_it import helpers

    label_end = helpers.parseLinkLabel(state, bracket, not nested)
    src = state.src
    pos = label_end + 1
    if label_end < 0 or pos >= end or src[pos] != "(":
        return None
    pos += 1
    while pos < end and src[pos] in " \t\n":
        pos += 1
    if pos < end and src[pos] == ")":
        return pos, pos, ""
    found = helpers.parseLinkDestination(src, pos, end)
    if not found.ok:
        return None
    return pos, found.pos, found.str


def _recorded_reference(ruler: Any, recorded: list[tuple[str, int, int]]) -> Any:
    rule = ruler.__rules__[ruler.__find__("reference")].fn

    def reference(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        recorded.clear()
        try:
            if not rule(state, start, end, silent):
                return False
            if not silent and recorded:
                string, begin, finish = recorded[0]
                references = state.env.setdefault("skillwiki_definitions", [])
                references.append((start, string, begin, finish))
            return True
        finally:
            recorded.clear()

    return reference


# --- reading the tokens ----------------------------------------------------------------------

_ATTR_LIST = re.compile(
    r"\{:?[ \t]*((?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}\"']+))"
    r"(?:[ \t]+(?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}\"']+)))*)[ \t]*\}"
)
_HTML_ID = re.compile(r"\b(?:id|name)[ \t]*=[ \t]*(?:\"([^\"<>]*)\"|'([^'<>]*)'|([^\s\"'<>=`]+))")
_NOT_IN_SLUG = re.compile(r"[^\w\- ]")
_NOT_IN_TOC_SLUG = re.compile(r"[^\w\s-]")
_TOC_SEPARATORS = re.compile(r"[-\s]+")
_NUMBERED = re.compile(r"(.*)_([0-9]+)")
_VUE_SEPARATORS = re.compile(r"""[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:"'“”‘’<>,.?/]+""")
_CONTROL = re.compile(r"[\x00-\x1f]")
_COMBINING = re.compile(r"[\u0300-\u036f]")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)$")
_NESTING = frozenset(
    {"th_open", "th_close", "td_open", "td_close", "footnote_block_open", "footnote_block_close"}
)
_LINK_KINDS = {"link_open": "inline", "image": "image", "wikilink": "wikilink"}
_CODE_BLOCKS = frozenset({"fence", "code_block", "html_block", "template_block", "esm_block"})


def analyze(text: str, *, mdx: bool = False) -> Outline:
    """Parse `text` once and read what skillwiki needs from it (`mdx`: ESM lines are code)."""
    env: dict[str, Any] = {"mdx": mdx}
    tokens = parser().parse(text, env)
    return _Reader(text).read(tokens, env)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line) + 1)
        self.cursors: dict[int, int] = {}
        self.headings: list[Heading] = []
        self.links: list[Link] = []
        self.code: list[tuple[int, int]] = []
        self.mentions: list[tuple[str, int]] = []
        self.ids: list[str] = []
        self.first_paragraph = ""
        self.labels: list[str] = []
        self.open_fence = ""
        self.used: set[str] = set()  # destinations of reference-style links, normalised

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
        self._definitions(env.get("skillwiki_definitions", []))
        self.links.sort(key=lambda link: (link.line, link.column, link.start))
        return Outline(
            tuple(self.headings),
            tuple(self.links),
            tuple(self.code),
            tuple(sorted(set(self._anchors()))),
            self.first_paragraph,
            self._leading_h1(tokens),
            self.open_fence,
            tuple(self.mentions),
            tuple(self.labels),
        )

    def _block_text(self, parent: Token, inline: Token, in_cell: bool, in_footnote: bool) -> None:
        self._inline(inline, table=in_cell)
        if parent.type == "heading_open":
            self._heading(parent, inline)
        elif parent.type == "paragraph_open":
            # `text ^id`: a block that [[Page#^id]] links to (Obsidian); most paragraphs hold no
            # `^`, and a substring test is far cheaper than the pattern's scan
            block = _BLOCK_ID.search(inline.content) if "^" in inline.content else None
            if block is not None:
                self.ids.append("^" + block[1])
            text = inline.content
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
        if token.type == "html_block":
            self.ids += _html_ids(token.content)
        elif token.type == "fence" and end >= len(self.lines) - (self.lines[-1] == ""):
            last = self.lines[end - 1].strip() if end - 1 > start else ""
            marker = token.markup
            if not (last.startswith(marker) and set(last) == {marker[0]}):
                self.open_fence = marker

    def _heading(self, opening: Token, inline: Token) -> None:
        text = plain_text(inline.children or [])
        ids: tuple[str, ...] = ()
        attrs = trailing_attrs(text)
        if attrs is not None:
            text, ids = attrs
        line = opening.map[0] + 1 if opening.map else 1
        self.headings.append(Heading(int(opening.tag[1:]), text, line, ids))

    def _inline(self, token: Token, *, table: bool) -> None:
        children = token.children or []
        if not token.map:
            return
        starts: list[int | None] | None = None
        for child in children:
            if child.type == "html_inline":
                self.ids += _html_ids(child.content)
                continue
            if child.type == "code_inline":
                line = token.map[0] + 1
                self.mentions += ((name, line) for name in _mentioned(child.content))
                continue
            span: tuple[int, int, str] | None = child.meta.get("span") if child.meta else None
            kind = _LINK_KINDS.get(child.type) if child.markup != "autolink" else None
            if kind is None:
                continue
            if span is None:  # a reference-style link: its definition is the one to check
                self.used.add(str(child.attrs.get("src" if kind == "image" else "href", "")))
                continue
            target = child.content if kind == "wikilink" else span[2]
            if starts is None:
                starts = self._line_starts(token.content, token.map[0], table)
            self.links.append(self._located(kind, target, token.content, starts, span, token))

    def _located(
        self,
        kind: str,
        target: str,
        content: str,
        starts: list[int | None],
        span: tuple[int, int, str],
        token: Token,
    ) -> Link:
        assert token.map is not None
        row = content.count("\n", 0, span[0])
        column = span[0] - (content.rfind("\n", 0, span[0]) + 1)
        line_start = starts[row] if row < len(starts) else None
        if line_start is None:
            return Link(kind, target, token.map[0] + row + 1, 1, -1, -1)
        start = line_start + column
        line = token.map[0] + row
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

    def _definitions(self, definitions: list[tuple[int, str, int, int]]) -> None:
        from markdown_it import helpers

        normalize = parser().normalizeLink
        for first, string, begin, end in definitions:
            target = helpers.parseLinkDestination(string, begin, end).str
            # A definition no link uses renders nothing: "definition", not a link to check.
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

    def _anchors(self) -> Iterator[str]:
        """Each heading's anchor as GitHub (and mdBook, Hugo, Docusaurus) makes it, as
        Python-Markdown (MkDocs) does and as VitePress (VuePress) does: sites built each way
        link to their own; then the ids written out."""
        seen: dict[str, int] = {}
        toc_seen: set[str] = set()
        vue_seen: set[str] = set()
        for heading in self.headings:
            base = slug(heading.text)
            count = seen.get(base, 0)
            yield base if count == 0 else f"{base}-{count}"
            seen[base] = count + 1
            yield _unique(toc_slug(heading.text), toc_seen)
            yield _numbered(vue_slug(heading.text), vue_seen)
            yield from heading.ids
        yield from self.ids

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


def plain_text(children: Sequence[Token]) -> str:
    """Return the text a reader sees of inline tokens: no markers, links as their text."""
    parts: list[str] = []
    for child in children:
        kind = child.type
        if kind in ("text", "code_inline", "text_special"):
            parts.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind == "image":
            parts.append(plain_text(child.children or []))
        elif kind == "wikilink":
            parts.append(child.content.split("|", 1)[-1].split("#", 1)[0].strip() or child.content)
    return " ".join("".join(parts).split())


def is_target(line: str) -> bool:
    """Whether a line is a MyST target, `(name)=`, as mdit-py-plugins' myst_blocks reads one."""
    line = line.strip()
    return line.startswith("(") and line.endswith(")=") and len(line) > 3


def only_targets(text: str) -> bool:
    """Whether every line of a paragraph is a MyST target: a paragraph with no text."""
    return ")=" in text and all(is_target(line) for line in text.split("\n"))


def trailing_attrs(text: str) -> tuple[str, tuple[str, ...]] | None:
    """Split `Title { #id .class }` into the title and its ids, if it ends in an attr list."""
    if not text.endswith("}"):
        return None
    opening = text.rfind("{")
    found = _ATTR_LIST.fullmatch(text, opening) if opening >= 0 else None
    if found is None:
        return None
    ids = tuple(part[1:] for part in found.group(1).split() if part.startswith("#"))
    return text[:opening].rstrip(), ids


def _html_ids(html: str) -> list[str]:
    if "id" not in html and "name" not in html:
        return []
    return [
        next(group for group in found.groups() if group is not None)
        for found in _HTML_ID.finditer(html)
    ]


def slug(heading: str) -> str:
    """Return GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    return _NOT_IN_SLUG.sub("", heading.strip().lower()).replace(" ", "-")


def toc_slug(heading: str) -> str:
    """Return Python-Markdown's anchor for a heading (its toc extension, which MkDocs uses):
    letters folded to ASCII, punctuation dropped, lower case, each run of spaces and '-' one
    '-'. Where GitHub makes `a---b` of `A - B`, this makes `a-b`."""
    if not heading.isascii():
        heading = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    return _TOC_SEPARATORS.sub("-", _NOT_IN_TOC_SLUG.sub("", heading).strip().lower())


def vue_slug(heading: str) -> str:
    """Return VitePress's anchor for a heading (mdit-vue's `slugify`, which VuePress uses too):
    accents dropped, each run of spaces and ASCII punctuation one '-', none at either end, '_'
    before a leading digit, lower case. Letters of other scripts stay, as with GitHub."""
    if not heading.isascii():
        heading = _COMBINING.sub("", unicodedata.normalize("NFKD", heading))
    anchor = _VUE_SEPARATORS.sub("-", _CONTROL.sub("", heading)).strip("-")
    if anchor[:1].isascii() and anchor[:1].isdigit():
        anchor = f"_{anchor}"
    return anchor.lower()


def _numbered(anchor: str, seen: set[str]) -> str:
    """markdown-it-anchor's anchor for a heading whose slug came before: `-1`, `-2`, ... added
    until it is new."""
    unique, number = anchor, 1
    while unique in seen:
        unique, number = f"{anchor}-{number}", number + 1
    seen.add(unique)
    return unique


def _unique(anchor: str, seen: set[str]) -> str:
    """Python-Markdown's anchor for a heading whose slug came before (or is empty): `_1`
    added, or a number it ends in after `_` raised by one, until it is new."""
    while anchor in seen or not anchor:
        numbered = _NUMBERED.fullmatch(anchor)
        anchor = f"{numbered[1]}_{int(numbered[2]) + 1}" if numbered else f"{anchor}_1"
    seen.add(anchor)
    return anchor
