"""A heading's anchor as each site generator makes it: GitHub's (mdBook, Hugo, Docusaurus),
Python-Markdown's (MkDocs) and VitePress's (VuePress), each with its own numbering of a
heading whose anchor came before."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

from skillwiki.markdown.outline import Heading

# github-slugger's rule: what a heading's anchor keeps of its lowered text is letters, marks,
# decimal digits, letter numbers (Ⅻ), connector punctuation (`_`), ' ' (then '-') and '-';
# of symbols only those Unicode calls alphabetic (Ⓐ, 🄰): everything else goes.
_KEPT_CATEGORIES = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "Pc"))
_ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))
_NOT_IN_ASCII_SLUG = re.compile(r"[^a-z0-9_\- ]")
_NOT_IN_TOC_SLUG = re.compile(r"[^\w\s-]")
_TOC_SEPARATORS = re.compile(r"[-\s]+")
_NUMBERED = re.compile(r"(.*)_([0-9]+)")
_VUE_SEPARATORS = re.compile(r"""[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:"'“”‘’<>,.?/]+""")
_CONTROL = re.compile(r"[\x00-\x1f]")
_COMBINING = re.compile(r"[\u0300-\u036f]")
_REDCARPET_STRIPPED = frozenset(" -&+$,/:;=?@\"#{}|^~[]`\\*()%.!'")


def heading_anchors(headings: Iterable[Heading]) -> Iterator[str]:
    """Yield each heading's anchor as GitHub (and mdBook, Hugo, Docusaurus) makes it, as
    Markdig (DocFX) does, as Python-Markdown (MkDocs) does and as VitePress (VuePress) does:
    sites built each way link to their own; then the ids its attribute list writes out.
    Repeats are possible."""
    seen: dict[str, int] = {}
    markdig_seen: dict[str, int] = {}
    toc_seen: set[str] = set()
    vue_seen: set[str] = set()
    for heading in headings:
        github = slug(heading.written or heading.text)
        yield _github_numbered(github, seen)
        # Markdig (DocFX, learn.microsoft.com) names a heading with no letters (`$?`) `section`
        markdig = _github_numbered(github or "section", markdig_seen)
        if not github:
            yield markdig
        yield _unique(toc_slug(heading.text), toc_seen)
        yield redcarpet_slug(heading.text)
        yield _numbered(vue_slug(heading.text), vue_seen)
        yield from heading.ids


def named_ids(
    headings: Iterable[Heading], terms: Iterable[tuple[str, int]]
) -> tuple[tuple[int, str], ...]:
    """Each heading and definition term with the id a site that gives terms ids as it gives
    headings makes of it before numbering (Hugo's goldmark with `autoDefinitionTermID`:
    GitHub's anchor, or the id a heading's attribute list names), by line, in text order."""
    named = [(h.line, h.ids[0] if h.ids else slug(h.written or h.text)) for h in headings]
    named += [(line, slug(term)) for term, line in terms]
    return tuple(sorted(named))


def numbered_ids(ids: Iterable[str]) -> tuple[str, ...]:
    """The ids of a page's headings and terms, in text order, numbered together as Hugo
    numbers them: one that came before gets `-1`, `-2`, ... until new (a term `OPTIONS`
    takes `options`, so a heading Options below it is `options-1`)."""
    seen: dict[str, int] = {}
    return tuple(_github_numbered(anchor, seen) for anchor in ids)


def slug(heading: str) -> str:
    """Return GitHub's anchor for a heading's text, as github-slugger makes it: lower case;
    punctuation, symbols, other numbers (²), control, format and unassigned characters and
    every space but ' ' dropped (a no-break space too); each ' ' one '-'. Letters of every
    script stay with their marks (Devanagari's vowel signs, Arabic's harakat). Nothing is
    trimmed: ' a ' is `-a-`. Characters are classed by this Python's Unicode version."""
    lowered = heading.lower()
    if lowered.isascii():
        kept = _NOT_IN_ASCII_SLUG.sub("", lowered)
    else:
        kept = "".join(char for char in lowered if _in_slug(char))
    return kept.replace(" ", "-")


def _in_slug(char: str) -> bool:
    """Whether GitHub's anchor keeps a character of a heading (see slug)."""
    if char in " -" or unicodedata.category(char) in _KEPT_CATEGORIES:
        return True
    point = ord(char)
    return any(first <= point <= last for first, last in _ALPHABETIC_SYMBOLS)


def redcarpet_slug(heading: str) -> str:
    """Return Redcarpet's anchor for a heading (`with_toc_data`, as Jekyll sites that render
    with Redcarpet have them): lower-cased ASCII letters, digits and the rest of ASCII but
    its punctuation list, each run of spaces, that punctuation or non-ASCII one '-', none at
    either end; what HTML writes as an entity (`'`, `&`) dropped; repeats are not numbered
    (`server.shutdown.initial_wait`: `server-shutdown-initial_wait`)."""
    kept: list[str] = []
    dashed = False
    for char in heading:
        if char in "'\"&<>":
            continue  # written as an HTML entity (&#39;), which Redcarpet skips whole
        if not char.isascii() or char.isspace() or char in _REDCARPET_STRIPPED:
            dashed = bool(kept)
        else:
            kept.append(("-" if dashed else "") + char.lower())
            dashed = False
    return "".join(kept)


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


def _github_numbered(anchor: str, seen: dict[str, int]) -> str:
    """github-slugger's anchor for a heading whose slug came before: `-1`, `-2`, ... counted
    for that slug, until it is new (`Echo`, `Echo`, `Echo 1` are `echo`, `echo-1`,
    `echo-1-1`)."""
    unique = anchor
    while unique in seen:
        seen[anchor] += 1
        unique = f"{anchor}-{seen[anchor]}"
    seen[unique] = 0
    return unique


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
