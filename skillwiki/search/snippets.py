"""Snippets: the line of an article that holds the most of the query's words, cut to a width
with those words in **bold** (the words as `highlight` finds them)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from skillwiki.frontmatter.documents import body_of
from skillwiki.search.files import article_body, decoded
from skillwiki.search.highlight import CASE_ODD, Highlight
from skillwiki.search.terms import kept_of, prefixed
from skillwiki.search.text import marked_letters, unmark, unmarked_places

# Neither part may hold its own opener: each `[` or `(` then ends the scan of the one before,
# and a line of thousands of them costs its length, not its square.
_LINK_TEXT = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")
# The same without the `!` of an image, for a whole body at once: no match may run past the
# end of its line. Opening with `[`, it lets the regex engine skip to each one (strip_links).
_LINK_IN_A_LINE = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*\)")
# A line of HTML tags alone (`<a id="x"></a>`, an anchor before a heading): not text to show.
_TAGS_ONLY = re.compile(r"(?:<[^<>]*>\s*)+")
# Lines a snippet never shows: the title (its own field of a hit) and a code fence's marker
# line, whose info string (`yaml title=".gitlab-ci.yml"`) is markup, not the page's text.
_NOT_SHOWN = ("# ", "```", "~~~")
# A heading's opening marks (CommonMark's ATX heading): a snippet shows its text.
_HEADING_OPENING = re.compile(r"#{1,6}(?=[ \t]|\Z)")
# How far a snippet's end moves in, at most, to fall between words (snippets._window).
_EDGE = 24
# Line breaks other than \n that str.splitlines cuts at too.
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def snippet(path: Path, terms: Sequence[str], width: int = 160) -> str:
    """Return the line of the article that matches the most terms, with them in **bold**; if
    none can be marked, its first line of text."""
    kept = kept_of(terms)
    return marked_snippet(path, Highlight.of(kept, prefix=prefixed(kept)), width)


def marked_snippet(
    path: str | Path,
    highlight: Highlight | None,
    width: int = 160,
    *,
    data: bytes | None = None,
) -> str:
    """`snippet`, with the query's Highlight made once for all the hits; `data`: the article's
    bytes if read already (None: read it here). A page with no line to mark shows its first
    line of text: one found by meaning alone, or by a word the index finds where a mark cannot
    go (the `Tools` of `allowedTools`, a word of a link's address)."""
    if highlight is None:
        return ""
    body = article_body(path) if data is None else body_of(decoded(data))
    if body is None:
        return ""
    # Words are found as the index finds them, in the text with marked letters unmarked
    # (`E[x]tract`); the line is shown as written (code such as `v[0]` stays as it is).
    plain = unmark(body) if marked_letters(body) else body
    best = best_line(plain, highlight)
    if not best:
        best = best_line_by_line(plain, Highlight(re.compile(r"\A")))  # the first line
    if not best:
        return ""
    written = _as_written(body, plain, best) if plain is not body else None
    if written is not None:
        return _marked_as_written(shown_text(written).replace("**", ""), highlight, width)
    best = shown_text(best).replace("**", "")  # the text's own bold: a mark inside it would nest
    first = next(
        (m for m in highlight.pattern.finditer(best) if highlight.counts(m.group(0))), None
    )
    start, stop = _window(best, first.span() if first else (0, 0), width)
    cut = ("…" if start else "") + best[start:stop] + ("…" if stop < len(best) else "")
    return highlight.pattern.sub(_bold(highlight), cut)


def _window(line: str, first: tuple[int, int], width: int) -> tuple[int, int]:
    """Where a snippet of `line` starts and stops: from about a third of `width` before the
    first of the query's words (`first`, its span) to `width` after, each end moved in to the
    nearest space (no word shown in part) if one is within _EDGE characters and leaves that
    word whole; else (a long address, a run of Chinese) cut where it falls."""
    start = max(0, first[0] - width // 3)
    if start and not line[start - 1].isspace():
        space = line.find(" ", start, min(first[0], start + _EDGE))
        start = space + 1 if space != -1 else start
    stop = start + width
    if stop < len(line) and not line[stop].isspace():
        space = line.rfind(" ", max(first[1], stop - _EDGE), stop)
        stop = space if space != -1 else stop
    return start, stop


def shown_text(line: str) -> str:
    """A line as a snippet shows it: a heading's text without its `#` marks (`## Install ##`
    shows `Install`), as markdown-it takes them off, and without an attribute list that names
    its anchor (`{ #install }`, markdown.trailing_attrs); any other line as it is."""
    opening = _HEADING_OPENING.match(line) if line.startswith("#") else None
    if opening is None:
        return line
    text = line[opening.end() :].rstrip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed.endswith((" ", "\t")):  # a closing sequence
        text = unclosed
    text = text.strip()
    if text.endswith("}"):
        from skillwiki.markdown import trailing_attrs

        attrs = trailing_attrs(text)
        if attrs is not None:
            text = attrs[0]
    return text


def _as_written(body: str, plain: str, best: str) -> str | None:
    """The line of `body` that `best`, a line of its unmarked text `plain`, was taken from,
    as snippets show a line (links as their text); None if no line of it is."""
    for written, line in zip(body.splitlines(), plain.splitlines(), strict=False):
        if links_as_text(line).strip() == best:
            return links_as_text(written).strip()
    return None


def _marked_as_written(line: str, highlight: Highlight, width: int) -> str:
    """`line` cut to `width` around its first of the query's words and those in **bold**,
    the words found in it with its marked letters unmarked, each marked whole as written."""
    plain, starts, ends = unmarked_places(line)
    spans = [
        (starts[match.start()], ends[match.end() - 1])
        for match in highlight.pattern.finditer(plain)
        if match.end() > match.start() and highlight.counts(match.group(0))
    ]
    start, stop = _window(line, spans[0] if spans else (0, 0), width)
    parts = ["…" if start else ""]
    done = start
    for left, right in spans:
        if left >= done and right <= stop:
            parts += [line[done:left], "**", line[left:right], "**"]
            done = right
    parts += [line[done:stop], "…" if stop < len(line) else ""]
    return "".join(parts)


def _bold(highlight: Highlight) -> Callable[[re.Match[str]], str]:
    def bold(match: re.Match[str]) -> str:
        found = match.group(0)
        return f"**{found}**" if highlight.counts(found) else found

    return bold


def best_line(body: str, highlight: Highlight) -> str:
    """The article's line (link markup removed) holding the most of the query's words (a word
    matched in two forms counts once); the first wins.

    One pass of the pattern over the whole body, then a look at the lines that matched: the
    same answer as `best_line_by_line` (held equal on real trees by a test), which a body with
    line breaks other than \\n still takes.
    """
    prose = _prose(body)
    if prose is None:
        return best_line_by_line(body, highlight)
    text, lowered = prose
    return _most_held(text, _matches_by_line(text, lowered, highlight), highlight)


# Per line of a text (by the offset of its start): the query's words matched in it, by root.
ByLine = dict[int, dict[str, list[str]]]


def _matches_by_line(text: str, lowered: str | None, highlight: Highlight) -> ByLine:
    """The matches of the query's roots in `text`, in one pass over it, by line and root;
    `lowered`: `text.lower()` when it holds no CASE_ODD letter (Highlight.spans)."""
    found: ByLine = {}
    roots: dict[str, str] = {}  # root_of each word matched (a page says the same few often)
    line_start = 0
    for start, end in highlight.spans(text, lowered):
        line_start = text.rfind("\n", line_start, start) + 1 or line_start
        match = text[start:end]
        root = roots.get(match)
        if root is None:
            root = roots[match] = highlight.root_of(match)
        found.setdefault(line_start, {}).setdefault(root, []).append(match)
    return found


def _most_held(text: str, found: ByLine, highlight: Highlight) -> str:
    """The line of `text` that holds the most of the query's words among those `found` in
    it, a snippet may show it (not the title, a fence's marker, HTML tags alone), the first
    among equals.

    The lines are looked at by how many roots matched in each, most first: a line holds no
    more words than that, so the look at the words (Highlight.counts) stops at the first line
    that cannot reach the best count.
    """
    best, best_count, best_start = "", 0, -1
    for line_start, by_root in sorted(found.items(), key=lambda item: (-len(item[1]), item[0])):
        if len(by_root) < best_count:
            break
        if len(by_root) == best_count and line_start > best_start:
            continue
        end = text.find("\n", line_start)
        line = text[line_start : end if end >= 0 else len(text)].strip()
        if line.startswith(_NOT_SHOWN) or _TAGS_ONLY.fullmatch(line):
            continue
        count = sum(1 for matches in by_root.values() if any(map(highlight.counts, matches)))
        if count > best_count or (count and count == best_count and line_start < best_start):
            best, best_count, best_start = line, count, line_start
    return best


@functools.lru_cache(maxsize=32)
def _prose(body: str) -> tuple[str, str | None] | None:
    """The body's text as snippets read it (cut at the compiler's `## Sources`, each link's
    markup replaced by its text) and that text lower-cased, unless it holds a CASE_ODD letter;
    None for a body with line breaks other than \\n.

    Kept for the last bodies read: a server asked again and again finds the same pages, and
    a long one (a release log of thousands of links) takes milliseconds to prepare.
    """
    if _holds_any(body, _ODD_BREAKS):
        return None
    lines = body.split("\n")
    if "## Sources" in lines:  # the back-link the compiler adds: not the article's text
        lines = lines[: lines.index("## Sources")]
    text = "\n".join(lines)
    if "[" in text:
        text = strip_links(text)
    return text, None if _holds_any(text, CASE_ODD) else text.lower()


def strip_links(text: str) -> str:
    """`links_as_text(line)` for every line of `text` at once: each link (with
    the `!` just before it, an image's) becomes its text."""
    parts: list[str] = []
    done = 0
    for match in _LINK_IN_A_LINE.finditer(text):
        start = match.start()
        if start > done and text[start - 1] == "!":
            start -= 1
        parts += (text[done:start], match.group(1))
        done = match.end()
    parts.append(text[done:])
    return "".join(parts)


def _holds_any(text: str, chars: str) -> bool:
    """Whether `text` holds one of `chars`: a search per character beats a character class
    on long texts (each is a memchr-like scan)."""
    return any(char in text for char in chars)


def best_line_by_line(body: str, highlight: Highlight) -> str:
    """`best_line`, a line at a time as str.splitlines cuts them."""
    best, best_count = "", 0
    for raw_line in body.splitlines():
        if raw_line == "## Sources":
            break
        line = links_as_text(raw_line).strip()
        if not line or line.startswith(_NOT_SHOWN) or _TAGS_ONLY.fullmatch(line):
            continue
        count = len(
            {
                highlight.root_of(match.group(0))
                for match in highlight.pattern.finditer(line)
                if highlight.counts(match.group(0))
            }
        )
        if count > best_count:
            best, best_count = line, count
    return best


def links_as_text(line: str) -> str:
    """A line with each link (and image) replaced by its text, as snippets show it."""
    return _LINK_TEXT.sub(_link_text, line)


def _link_text(match: re.Match[str]) -> str:
    """A link's text, for its whole markup (a function: a `\\1` template costs more per link)."""
    return match.group(1)
