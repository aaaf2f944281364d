"""Snippets: the line of an article that holds the most of the query's words, cut to a width
with those words in **bold**."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillwiki.frontmatter.documents import body_of
from skillwiki.search.files import article_body, decoded
from skillwiki.search.terms import kept_of, prefixed, word_root, word_stems
from skillwiki.search.text import (
    CJK,
    STOP_WORDS,
    marked_letters,
    unmark,
    unmarked_places,
    word_forms,
)

# Up to this many roots in ASCII are each looked for on their own (Highlight.each); more are
# looked for in one pass of one expression.
_EACH_AT_MOST = 4


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
# Line breaks other than \n that str.splitlines cuts at too.
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def snippet(path: Path, terms: Sequence[str], width: int = 160, *, opening: bool = False) -> str:
    """Return the line of the article that matches the most terms, with them in **bold**; with
    `opening` (a page found by meaning alone, holding none of them), its first line of text."""
    kept = kept_of(terms)
    return marked_snippet(path, Highlight.of(kept, prefix=prefixed(kept)), width, opening=opening)


def marked_snippet(
    path: str | Path,
    highlight: Highlight | None,
    width: int = 160,
    *,
    opening: bool = False,
    data: bytes | None = None,
) -> str:
    """`snippet`, with the query's Highlight made once for all the hits; `data`: the article's
    bytes if read already (None: read it here)."""
    if highlight is None:
        return ""
    body = article_body(path) if data is None else body_of(decoded(data))
    if body is None:
        return ""
    # Words are found as the index finds them, in the text with marked letters unmarked
    # (`E[x]tract`); the line is shown as written (code such as `v[0]` stays as it is).
    plain = unmark(body) if marked_letters(body) else body
    best = best_line(plain, highlight)
    if not best and opening:
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
    start = max(0, (first.start() if first else 0) - width // 3)
    cut = best[start : start + width]
    cut = ("…" if start else "") + cut + ("…" if start + width < len(best) else "")
    return highlight.pattern.sub(_bold(highlight), cut)


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
    start = max(0, (spans[0][0] if spans else 0) - width // 3)
    stop = start + width
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


@dataclass(frozen=True)
class Highlight:
    """What a snippet marks in bold: each root of the query's words at the start of a word (a CJK
    root anywhere), in any case, as `pattern` matches them.

    `spans` gives the spans of `pattern.finditer`, found faster on long bodies. A pattern that
    opens with `\\b`, or is read in any case, makes the regex engine try every position; one
    that opens with letters of one case lets it skip to where they occur. So it scans for
    the roots alone and keeps the matches at a word's start. That is exact: a match it drops
    covers word characters to the end of its word, where no root can start a word. Roots
    in ASCII are looked for in the lower-cased text, unless it holds one of the four letters
    that the regex engine, ignoring case, takes for an ASCII one though lower-casing does not
    give it (CASE_ODD). With CJK roots among the others (a dropped match could run over one)
    it takes `pattern` itself. A few roots in ASCII (up to _EACH_AT_MOST) are each looked
    for on their own (`each`), their matches then put in order: an alternation of literals
    makes the engine try every position again, where a root alone lets it skip to its first
    letter. More are looked for in one pass: every pattern
    holds the roots as a tree of their letters (_either), so that the engine tries a position
    letter by letter whatever the number of roots, not root by root. Roots are word
    characters (text.words), so a root's match runs to the end of its word, as any other's at
    the same start does: the same spans.
    """

    pattern: re.Pattern[str]
    scan: re.Pattern[str] | None = None  # the roots without `\b`; None: use `pattern`
    lowered: re.Pattern[str] | None = None  # the same in lower case, when all are ASCII
    each: tuple[re.Pattern[str], ...] = ()  # `lowered` root by root, when there are several
    roots: tuple[str, ...] = ()  # lower case, longest first
    # Per root: the index's stems of the query's words it stands for, and whether one of them
    # is the word the index also matches by its start alone (prefixed). None: mark every
    # match (the first line of a page found by meaning).
    words: Mapping[str, tuple[frozenset[str], bool]] | None = None

    @classmethod
    def of(cls, terms: Sequence[str], *, prefix: str | None = None) -> Highlight | None:
        """The highlight of the query's words `terms`; `prefix`: the one the index matches by its
        start alone too."""
        found: set[str] = set()
        meant: dict[str, tuple[frozenset[str], bool]] = {}
        for term in terms:
            if term in STOP_WORDS:
                continue
            root = word_root(term)
            found.add(root)
            stems, by_start = meant.get(root.lower(), (frozenset(), False))
            meant[root.lower()] = (stems | frozenset(word_stems(term)), by_start or term == prefix)
        roots = sorted(found, key=len, reverse=True)
        if not roots:
            return None
        pattern = re.compile(_word_start_pattern(roots), re.IGNORECASE)
        lower = tuple(root.lower() for root in roots)
        if any(CJK.match(root) for root in roots):
            return cls(pattern, roots=lower, words=meant)
        scan = _either(roots) + r"\w*"
        lowered = None
        each: tuple[re.Pattern[str], ...] = ()
        if all(root.isascii() for root in roots):
            lowered = re.compile(_either(lower) + r"\w*")
            if 1 < len(lower) <= _EACH_AT_MOST:
                each = tuple(re.compile(rf"{re.escape(root)}\w*") for root in lower)
        return cls(
            pattern,
            re.compile(scan, re.IGNORECASE),
            lowered=lowered,
            each=each,
            roots=lower,
            words=meant,
        )

    def counts(self, found: str) -> bool:
        """Whether a match (a root and the rest of its word) is one of the query's words as
        the index finds them: the word, or its first part where the index cuts it too (at `_`
        or a camel-case break), has one of the word's stems; or the word is the one matched by
        its start. `tar` does not mark "target", which a query for "tar" does not find."""
        if self.words is None:
            return True
        root = self.root_of(found)
        stems, by_start = self.words.get(root, (frozenset(), True))
        if by_start or CJK.match(root):
            return True
        return any(
            form in stems or not stems.isdisjoint(word_stems(form)) for form in word_forms(found)
        )

    def root_of(self, match: str) -> str:
        """The query's word a match stands for: "updates" and "updating" are one word. The
        longest root it starts with, looked up by length: a lookup per length of root, not a
        comparison per root."""
        found = match.lower()
        held, lengths = self._by_length
        return next((found[:size] for size in lengths if found[:size] in held), found)

    @functools.cached_property
    def _by_length(self) -> tuple[frozenset[str], tuple[int, ...]]:
        """The roots, and their lengths longest first."""
        return frozenset(self.roots), tuple(
            sorted({len(root) for root in self.roots}, reverse=True)
        )

    def spans(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        """The spans `pattern.finditer(text)` finds; `lowered`: `text.lower()`, when `text`
        holds no CASE_ODD letter."""
        if self.scan is None:
            yield from (match.span() for match in self.pattern.finditer(text))
            return
        if self.each and lowered is not None:
            yield from self._spans_root_by_root(text, lowered)
            return
        found = self.scan.finditer(text)
        if self.lowered is not None and lowered is not None:
            found = self.lowered.finditer(lowered)
        for match in found:
            start = match.start()
            if start == 0 or not is_word(text[start - 1]):
                yield match.span()

    def _spans_root_by_root(self, text: str, lowered: str) -> Iterator[tuple[int, int]]:
        """`spans` by each root's own pattern (`each`) over `lowered`, in order of their
        starts; two roots matching at the same start match the same word to its end: one
        span."""
        last = -1
        for start, end in sorted(m.span() for one in self.each for m in one.finditer(lowered)):
            if start != last and (start == 0 or not is_word(text[start - 1])):
                yield start, end
            last = start


# The letters outside ASCII that the regex engine, ignoring case, matches to an ASCII word
# character, or whose lower case is not one letter (İ, ı, ſ, and the Kelvin sign): held to
# be all of them by a test that tries every code point.
CASE_ODD = "\u0130\u0131\u017f\u212a"


def is_word(char: str) -> bool:
    """Whether `char` is a word character as the regex engine's `\\w` has it (str patterns)."""
    return char.isalnum() or char == "_"


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


def _word_start_pattern(roots: Sequence[str]) -> str:
    """What `\\broot\\w*|...` (a CJK root: `root` anywhere) for every root, longest first, finds,
    in one expression that tries a position letter by letter (_either). A CJK root and one of
    other letters never match at the same place (a query's word is all CJK or holds none), so
    the two kinds are two branches."""
    cjk = [root for root in roots if CJK.match(root)]
    other = [root for root in roots if not CJK.match(root)]
    branches = [_either(cjk)] if cjk else []
    return "|".join(branches + ([rf"\b{_either(other)}\w*"] if other else []))


def _either(roots: Sequence[str]) -> str:
    """An expression that matches any of `roots` at a position, the longest first, as the
    alternation of them longest first does: a tree of their letters (`ab(?:c|d)?` for `ab`,
    `abc`, `abd`), so that the engine tries a position's letters once each, not every root."""
    tree: dict[str, Any] = {}
    for root in roots:
        node = tree
        for letter in root:
            node = node.setdefault(letter, {})
        node[""] = {}
    return _branches(tree)


def _branches(node: dict[str, Any]) -> str:
    """The expression of a tree of letters; the end of a root (key "") is taken last. A run
    of letters with no branch is written in a loop: the depth of the calls is the number of
    branches and ends on a path, not its length (a query's word may be thousands long)."""
    ways = []
    for letter, below in sorted(node.items()):
        if not letter:
            continue
        run = [letter]
        while len(below) == 1 and "" not in below:
            (letter, below), *_ = below.items()
            run.append(letter)
        ways.append(re.escape("".join(run)) + _branches(below))
    if not ways:
        return ""
    if "" in node:
        return "(?:" + "|".join(ways) + ")?"
    return ways[0] if len(ways) == 1 else "(?:" + "|".join(ways) + ")"
