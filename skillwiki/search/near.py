"""How close together a page holds the query's words: the most of them that stand within
NEAR_WORDS words of one another in one block of its text.

A page that holds every word of "compare two files line by line" in one sentence answers it
better than a long page that holds them in four different sections. Counting the words a page
holds anywhere (as the index does) favours long pages; counting those that stand together
does not, and on short pages (a command's examples) the two agree.

Words are counted by the runs of white space between them (the indentation of a code line,
the padding of a table's cell and a tab are one gap each, as a space is), and a blank line (a
line of white space alone) ends a block, so that a paragraph wrapped over several lines counts
as one. `closeness` reads it of the candidates that may rank among the best.
A word is found as the snippets find it (terms.py's roots: what it shares with its stem, at a
word's start; in CJK text anywhere), and a word's start is also after `_` and at a camel-case
capital (`user_name`, `getUserName`), as the index splits identifiers.
"""

from __future__ import annotations

import heapq
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from itertools import islice
from typing import NamedTuple, Protocol

from skillwiki.frontmatter.documents import body_of
from skillwiki.search.text import CJK
from skillwiki.workspace import Workspace

NEAR_WORDS = 10  # the window of the query's NEAR boost too (rank.query_terms)
# How much of an article is read for it: a longer one (a release log of 700 KB) is judged by
# its opening, so that no page costs a query more than this.
READ_BYTES = 1 << 16
_SOURCES = b"\n## Sources\n"  # the back-link to the raw files that the compiler adds
_ALNUM = frozenset(ord(char) for char in map(chr, range(128)) if char.isalnum())
_SEPARATORS = frozenset(range(128)) - _ALNUM
_CAPITALS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SMALL = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_SMALL_OR_DIGIT = _SMALL | frozenset(b"0123456789")
# A gap between two words: ASCII white space, as str.split and Markdown see it.
_GAP = re.compile(rb"[ \t\n\r\f\v]+")
_BLANK = re.compile(rb"\n[ \t\r\f\v]*\n")  # a line of white space alone, or none
# Letters marked inside a word (`E[x]tract`, `[d]elete`), unmarked as the index reads them
# (text.unmark: bracketed letters with a word's byte just before or after, a byte of a
# letter outside ASCII counting as one; the pattern opens with its `[` for the regex engine
# to skip to each).
_BRACKETED = re.compile(rb"\[(\w{1,3})\]")
_WORD_BYTES = _ALNUM | frozenset(b"_") | frozenset(range(0x80, 0x100))
_OUT_OF_REACH = NEAR_WORDS + 1
_SHORT = 512  # bytes: a gap up to this long is counted whole, a longer one only until out of reach


class Candidate(Protocol):
    """One of BM25's best matches, as closeness reads it."""

    @property
    def id(self) -> int: ...
    @property
    def path(self) -> str: ...
    @property
    def bm25(self) -> float: ...


class Close(NamedTuple):
    """Of a candidate: the query's words it holds, and how many of them it holds close
    together (None: not looked at, since it could not rank among the best)."""

    held: int
    together: int | None


def closeness(
    ws: Workspace,
    rows: Sequence[Candidate],
    held: dict[int, int],
    roots: Sequence[str],
    limit: int,
    bodies: dict[str, bytes],
    part: Mapping[int, float],
    read: Callable[[str], tuple[bytes | None, bool]],
) -> dict[int, Close]:
    """How many of the query's words each candidate holds close together (held_near), looked up
    in its article for those that may end among the best `limit` of the order by those words
    (the count, then `part`: the first of the orders rank.text_order fuses); `held` tells which
    of the words each holds (bit i: roots[i], the root of the query's i-th word), `part` the
    part of each one's key below its count of words (its BM25 times its boost, squashed), and
    the articles read whole are left in `bodies`; `read` reads an article's head (None: it
    cannot be read) and says whether that is the whole of it.

    A page holds no more words together than it holds as the index found them, so the pages
    are read in the order of those, and reading stops at the first that holds fewer than the
    `limit`-th best found: it, and all after it, rank below those. One that could not score
    above the `limit`-th best even holding all its words together is skipped (most pages read
    before were such: as many words as that one, and less BM25 × boost). A page counts at
    least one word (the index found it by one, perhaps in its tags). With one word, nothing
    need be read.
    """
    masks = {row.id: held.get(row.id) or 1 for row in rows}
    counts = {rowid: mask.bit_count() for rowid, mask in masks.items()}
    if len(set(roots)) < 2:
        return {rowid: Close(count, count) for rowid, count in counts.items()}
    wiki = str(ws.wiki)
    close: dict[int, Close] = {rowid: Close(count, None) for rowid, count in counts.items()}
    best: list[float] = []  # the `limit` best of count + part so far, a heap
    for row in sorted(rows, key=lambda row: (-counts[row.id], -row.bm25, row.path)):
        rowid, rel = row.id, row.path
        if len(best) >= limit and counts[rowid] + part[rowid] < best[0]:
            if counts[rowid] + 1 <= best[0]:  # nor can any after it, holding no more words
                break
            continue
        own = [root for bit, root in enumerate(roots) if masks[rowid] >> bit & 1]
        together = _held_together(f"{wiki}/{rel}", rel, own, counts[rowid], bodies, read)
        close[rowid] = Close(counts[rowid], together)
        _keep_best(best, together + part[rowid], limit)
    return close


def _keep_best(best: list[float], score: float, limit: int) -> None:
    """Keep `score` in the heap `best` if it is among the `limit` best so far."""
    if len(best) < limit:
        heapq.heappush(best, score)
    elif score > best[0]:
        heapq.heapreplace(best, score)


def _held_together(
    path: str,
    rel: str,
    own: Sequence[str],
    count: int,
    bodies: dict[str, bytes],
    read: Callable[[str], tuple[bytes | None, bool]],
) -> int:
    """How many of the roots `own` (those the index found in it, `count` distinct) the article
    at `path` holds close together, at least one; its body is left in `bodies` when read whole.
    An article that cannot be read keeps `count`."""
    data = bodies.get(rel)  # read whole before
    whole = data is not None
    if data is None:
        data, whole = read(path)
    if whole and data is not None:
        bodies[rel] = data
    if data is None:
        return count
    return max(1, min(count, held_near(body_of(data), list(dict.fromkeys(own)))))


def held_near(body: bytes, roots: Sequence[str]) -> int:
    """The most distinct `roots` (lower case) that an article's body (UTF-8) holds within
    NEAR_WORDS words of one another, no blank line between them (the compiler's `## Sources`
    left out).

    Letters marked inside a word are unmarked first, as the index reads them. It reads
    bytes: each root is looked for in the body with its ASCII letters lowered, as
    written and, for a root with other letters, capitalized and in capitals too (bytes.lower
    leaves those letters as they are). No page is decoded or lowered as text.

    Of a run of matches of one root (no other root's between them), only the first and the
    last are gone through: one in the middle holds no more roots near it than the first does
    (the others are all before it, and further), nor is it the nearest of its root to any
    match after the run. The words between the first and the last are counted at once, which
    is their sum piece by piece (a match's first byte is never white space, so no gap runs
    over it) up to NEAR_WORDS + 1.
    """
    cut = body.find(_SOURCES)
    text = body if cut < 0 else body[:cut]
    text = unmark(text)
    lowered = text.lower()
    starts = [root_starts(text, lowered, root) for root in roots]
    present = sum(1 for found in starts if found)
    if present < 2:
        return present
    found = _ends_of_runs(
        sorted((start, index) for index, each in enumerate(starts) for start in each)
    )
    return _most_in_reach(text, found, len(roots), present)


def _ends_of_runs(found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, root) matches in order, each run of one root's matches (no other root's
    between them) cut to its first and its last."""
    return [
        entry
        for number, entry in enumerate(found)
        if not (
            0 < number < len(found) - 1 and found[number - 1][1] == entry[1] == found[number + 1][1]
        )
    ]


def _most_in_reach(text: bytes, found: list[tuple[int, int]], roots: int, present: int) -> int:
    """The most distinct roots among the (start, root) matches `found` within NEAR_WORDS words
    of one another in `text`; it stops at `present`, the number of roots found at all."""
    best = held = 0
    window: deque[tuple[int, int]] = deque()  # (word number, root) of the matches in reach
    counts = [0] * roots
    position, last = 0, found[0][0]
    for start, index in found:
        if start > last:  # a byte between: a gap of white space, perhaps
            position += _words_between(text, last, start)
        last = start + 1
        window.append((position, index))
        counts[index] += 1
        if counts[index] == 1:
            held += 1
        while position - window[0][0] > NEAR_WORDS:
            gone = window.popleft()[1]
            counts[gone] -= 1
            if not counts[gone]:
                held -= 1
        if held > best:
            best = held
            if best == present:
                break
    return best


def unmark(text: bytes) -> bytes:
    """`text` (UTF-8) with the letters marked inside a word unmarked (`E[x]tract`), as
    text.unmark unmarks a str and the index reads them."""
    return _BRACKETED.sub(_letters, text) if b"[" in text else text


def _letters(match: re.Match[bytes]) -> bytes:
    """A mark's letters; anything else bracketed as it is."""
    text, start, end = match.string, match.start(), match.end()
    if (start > 0 and text[start - 1] in _WORD_BYTES) or (
        end < len(text) and text[end] in _WORD_BYTES
    ):
        return match.group(1)
    return match.group(0)


def _words_between(text: bytes, start: int, end: int) -> int:
    """How many words apart the words on either side of text[start:end] stand: the gaps of
    white space between them, or NEAR_WORDS + 1 when out of reach (further apart, or a blank
    line between)."""
    if _BLANK.search(text, start, end):
        return _OUT_OF_REACH
    if end - start <= _SHORT:  # most are: count them at once
        return min(len(_GAP.findall(text, start, end)), _OUT_OF_REACH)
    return sum(1 for _ in islice(_GAP.finditer(text, start, end), _OUT_OF_REACH))


def root_starts(text: bytes, lowered: bytes, root: str) -> list[int]:
    """Where `root` (lower case) begins a word of `text` (anywhere, for a CJK root);
    `lowered`: `text.lower()`."""
    forms = [root.encode()]
    if not root.isascii():
        forms = list(
            dict.fromkeys(form.encode().lower() for form in (root, root.capitalize(), root.upper()))
        )
    starts = []
    for form in forms:
        at = lowered.find(form)
        while at >= 0:
            starts.append(at)
            at = lowered.find(form, at + 1)
    if CJK.match(root):
        return starts
    return [
        start
        for start in starts
        if not start or text[start - 1] in _SEPARATORS or _word_start(text, start)
    ]


def _word_start(text: bytes, start: int) -> bool:
    """Whether a word begins at `start` (past the first byte) as the index splits words: after
    a character that is no letter or digit (`_` included), or where camel case breaks: at a
    capital after a small letter or digit (getUser), or after a capital and before a small
    letter (HTTPServer)."""
    before = text[start - 1]
    if before < 0x80:
        if before not in _ALNUM:
            return True
        if text[start] not in _CAPITALS:
            return False
        if before in _SMALL_OR_DIGIT:
            return True
        return before in _CAPITALS and start + 1 < len(text) and text[start + 1] in _SMALL
    lead = start - 1
    while lead > max(0, start - 4) and text[lead] & 0xC0 == 0x80:  # a continuation byte
        lead -= 1
    return not text[lead:start].decode("utf-8", errors="replace").isalnum()
