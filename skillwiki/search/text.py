"""Text as the index and the queries see it: one normalisation for both sides."""

from __future__ import annotations

import re
from collections.abc import Iterator

CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_WORD = re.compile(r"\w+")
# Where an identifier written in camel case breaks into words: `getUserName`, `HTTPServer`.
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# One to three letters in brackets (`[x]`), a mark when a word goes on before or after it
# (_marks). The pattern opens with its `[` so that the regex engine can skip to each one: an
# opening look-behind had it try every character.
_BRACKETED = re.compile(r"\[(\w{1,3})\]")
# A lone surrogate: no character, but what Python makes of a byte a command-line argument
# cannot decode, or of a `\udcff` escape in a hook's JSON. No encoder or tokenizer takes one.
_SURROGATE = re.compile("[\ud800-\udfff]")
STOP_WORDS = frozenset(
    (
        "a about an and are as at be but by can could did do does for from how i if in into is"
        " it its me my of on or our should so than that the their them then there they this to"
        " us was we what when where which who why will with would you your"
        # What an apostrophe leaves of a contraction or a possessive ("isn't", "user's",
        # "we'll"), which the index cuts there too: no word a person means, yet on most pages.
        " aren couldn d didn doesn don hadn hasn haven isn ll m s shouldn t ve wasn weren wouldn"
    ).split()
)


def well_formed(text: str) -> str:
    """`text` with each lone surrogate in it as U+FFFD, the character a decoder puts in place
    of bytes it cannot read (as the index's articles have theirs)."""
    return _SURROGATE.sub("\ufffd", text)


def normalize(text: str) -> str:
    """Prepare text for the index and for queries: one rule for both sides.

    Letters marked inside a word (`E[x]tract`, `[c]reate`, `Lis[t]`) are unmarked so that the
    word is found, and CJK runs become bigrams.
    """
    return cjk_bigrams(unmark(text))


def unmark(text: str) -> str:
    """`E[x]tract` as `Extract`: the letters marked inside a word, as the index reads them."""
    return _BRACKETED.sub(_letters, text)


def _letters(match: re.Match[str]) -> str:
    """A mark's letters; anything else bracketed as it is."""
    return match.group(1) if _is_mark(match) else match.group(0)


def _is_mark(match: re.Match[str]) -> bool:
    """Whether bracketed letters mark letters of a word: a word character (`\\w`) just before
    or just after them."""
    text, start, end = match.string, match.start(), match.end()
    return (start > 0 and _is_word_char(text[start - 1])) or (
        end < len(text) and _is_word_char(text[end])
    )


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` matches


def _marks(text: str) -> Iterator[re.Match[str]]:
    """The marks in `text`, in order."""
    return (match for match in _BRACKETED.finditer(text) if _is_mark(match))


def marked_letters(text: str) -> bool:
    """Whether `text` holds letters marked inside a word (unmark changes it)."""
    return next(_marks(text), None) is not None


def unmarked_places(line: str) -> tuple[str, list[int], list[int]]:
    """`unmark(line)`, with where each of its characters starts and ends in `line`: the first
    letter of a mark starts at its `[`, the last ends after its `]`, so that a word found in
    the unmarked text is the whole of it as written (`[d]elete`, `E[x]tract`)."""
    text: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    done = 0
    for match in _marks(line):
        text.append(line[done : match.start()])
        starts += range(done, match.start())
        ends += range(done + 1, match.start() + 1)
        letters = match.group(1)
        first = match.start() + 1
        text.append(letters)
        starts += [match.start(), *range(first + 1, first + len(letters))]
        ends += [*range(first + 1, first + len(letters)), match.end()]
        done = match.end()
    text.append(line[done:])
    starts += range(done, len(line))
    ends += range(done + 1, len(line) + 1)
    return "".join(text), starts, ends


def indexed(text: str) -> str:
    """Text as the index holds it: normalised, then the words of each camel-case identifier
    once more at the end (`getUserName` is found by "user name" too), so that the text's own
    words keep their places for phrases. Words joined by `-` or `_` need nothing: the index
    splits them itself, and a query finds them as a phrase."""
    text = normalize(text)
    parts = dict.fromkeys(
        part
        for word in _WORD.findall(text)
        if not word.islower() and not word.isupper()
        for part in _CAMEL_BREAK.split(word)
        if part != word
    )
    return f"{text}\n{' '.join(parts)}" if parts else text


def word_forms(found: str) -> tuple[str, ...]:
    """The words the index holds where `found` (a run of word characters) starts, lower-cased:
    up to its first `_`, and that word's first camel-case part when it has one."""
    word = found.split("_", 1)[0]
    part = _CAMEL_BREAK.split(word, maxsplit=1)[0]
    return tuple(dict.fromkeys((word.lower(), part.lower())))


def cjk_bigrams(text: str) -> str:
    """Rewrite each CJK run as overlapping bigrams, so `重试策略` is found by `重试`."""

    def pairs(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return CJK.sub(pairs, text)


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, normalised as the index holds them."""
    return _WORD.findall(normalize(text).lower())
