"""The query's words as a snippet finds them in text: each root at the start of a word, in
any case, and which matches are the query's words as the index finds them (`Highlight`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skillwiki.search.terms import word_root, word_stems
from skillwiki.search.text import CJK, STOP_WORDS, word_forms

# Up to this many roots in ASCII are each looked for on their own (Highlight.each); more are
# looked for in one pass of one expression.
_EACH_AT_MOST = 4


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
        # Stop words aside unless all are, as the query searches for them (terms.distinct_words).
        for term in [term for term in terms if term not in STOP_WORDS] or terms:
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
