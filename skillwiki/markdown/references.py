"""How central an article is: how many other articles refer to it on purpose.

A reference is a link that reaches the article (a relative link, or a `[[wikilink]]` naming
it) or an inline code span that starts with its name: "see also: `rsync`", `tail -f app.log`,
or, for an article named by two words, `git commit -m "fix"` (git-commit).
Each article's references are read when it is compiled (or indexed) and kept with the search
index, one row per (article, key), beside the names each article is known by: its path, its
file name, its title. An article's inbound count is the number of *distinct* other articles
with a reference to one of its names; the index counts it when it syncs, again for each
article whose count a change may have moved (one that came or went, that a changed article
referred to or refers to now), so that a query reads it and counts nothing. A page that
cites another ten times counts once; a page's references to itself do not count.

The count scales the text score instead of adding to it: BM25 times (1 + WEIGHT * ln(1 +
inbound)). The prior thus reorders pages the text finds about equally good, and cannot lift
a page the text barely matches over one it matches well, nor change how many of the query's
words a page holds (which ranks first).
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import PurePosixPath
from urllib.parse import unquote

from skillwiki.workspace import MARKDOWN_SUFFIXES, PARSED_SUFFIXES

WEIGHT = 0.15
LINK_KINDS = ("inline", "reference", "wikilink")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@lru_cache(maxsize=1)
def _not_key() -> re.Pattern[str]:
    """What a key leaves out: all but ASCII digits, lower-case letters and CJK. Compiled on
    first use, not on import: a class of CJK ranges is slow to compile, and a query or a
    status, which only weighs references (boost), never needs it."""
    return re.compile(r"[^0-9a-z\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")


def key(name: str) -> str:
    """A name as references are matched: lower case, letters and digits only (`Git-Rebase`,
    `git_rebase` and `gitrebase` are one)."""
    return _not_key().sub("", name.lower())


@lru_cache(maxsize=1 << 16)
def names(path: str, title: str) -> tuple[str, ...]:
    """The keys an article (path below wiki/) is referred to by: its path, its file name
    without the suffix, its title."""
    stem = path.rpartition("/")[2].split(".", 1)[0]
    found = [f"p:{path}", *(f"k:{k}" for k in (key(stem), key(title)) if k)]
    return tuple(dict.fromkeys(found))


def refs(
    links: Iterable[tuple[str, str]], mentions: Iterable[str], path: str, title: str
) -> tuple[str, ...]:
    """The keys the article at `path` (below wiki/) refers to, its own names left out,
    sorted: `links` are (kind, target) as the article holds them, `mentions` the names its
    inline code spans start with (markdown.Outline)."""
    found: set[str] = set()
    for kind, target in links:
        if kind == "wikilink":
            name = key(target.split("|", 1)[0].split("#", 1)[0])
            if name:
                found.add(f"k:{name}")
        elif kind in LINK_KINDS:
            article = _linked_article(path, target)
            if article is not None:
                found.add(f"p:{article}")
            elif (page := _page_named(target)) is not None:
                found.add(f"k:{page}")
    found.update(f"k:{k}" for k in map(key, mentions) if k)
    return tuple(sorted(found - set(names(path, title))))


def relative_target(rel: str, target: str) -> tuple[str, str, str, str] | None:
    """A link target as seen from the file at `rel` (a path in a tree): the path it reaches
    from the tree's root, the path as written, the mark (`#`, `?` or none) and what follows
    it. None for an anchor, an absolute path or a URL."""
    if not target or target.startswith(("#", "/")) or _SCHEME.match(target):
        return None
    path, sep, fragment = target, "", ""
    for mark in ("#", "?"):
        if mark in target:
            path, sep, fragment = target.partition(mark)
            break
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(path)))
    return resolved, path, sep, fragment


def _linked_article(path: str, target: str) -> str | None:
    """The article a relative link from `path` reaches, if it reaches one inside wiki/."""
    found = relative_target(path, target)
    if found is None:
        return None
    resolved = found[0]
    if resolved.startswith("../") or resolved in ("..", "."):
        return None
    if PurePosixPath(resolved).suffix.lower() not in MARKDOWN_SUFFIXES:
        return None
    return resolved


def _page_named(target: str) -> str | None:
    """The name a link to a page of the same site gives where it reaches no article by its
    path: a site address (`/en/guides/content-collections/`, `../deploy/netlify/`,
    `ch03-02-data-types.html`, `/docs/tar.md`) names the page by its last part, as a site
    serves a page from its file's name. None for a URL of another site, an anchor, a file that
    is not a page (`logo.svg`, `notes.txt`), a relative Markdown file outside the wiki (an
    article's raw source), and a last part that names its folder's page (`index`, `README`)."""
    if not target or target[0] == "#" or target.startswith("//") or _SCHEME.match(target):
        return None
    path = target.split("#", 1)[0].split("?", 1)[0].rstrip("/")
    last = unquote(path.rpartition("/")[2])
    stem, dot, suffix = last.rpartition(".")
    if dot and stem:
        kind = suffix.lower()
        if kind not in _ADDRESS_SUFFIXES and not (path[:1] == "/" and kind in _MARKDOWN_NAMES):
            return None
        last = stem
    name = key(last)
    return None if not name or name in _FOLDER_PAGES else name


# What a page's address ends in; a site path may name the Markdown file too (`/docs/tar.md`).
_ADDRESS_SUFFIXES = frozenset({"html", "htm"})
_MARKDOWN_NAMES = frozenset(suffix.lstrip(".") for suffix in PARSED_SUFFIXES)
# File names that stand for their folder's page.
_FOLDER_PAGES = frozenset({"index", "readme", "introduction", "overview"})


def boost(inbound: int) -> float:
    """What an article's BM25 is multiplied by, for this many referring articles."""
    return 1.0 + WEIGHT * math.log1p(inbound)
