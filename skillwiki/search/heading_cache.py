"""The headings (and references) of articles compile just wrote, handed to the search index.

The search index weighs an article's headings; finding them means parsing the article. A
compile has just parsed its raw file and knows them (article.Rendered.headings), so after a
bulk compile it leaves them in `.cache/headings.marshal`, each with the fingerprint of the
article body it belongs to; the index build that follows takes them instead of parsing
thousands of articles again. An entry whose fingerprint no longer matches the body (a hand
edit) is ignored, and the article parsed. A few articles are not worth the file: below
`MIN_ARTICLES` nothing is written or read.
"""

from __future__ import annotations

import marshal
from collections.abc import Collection, Mapping
from pathlib import Path

from skillwiki import fsio
from skillwiki.fingerprint import matches
from skillwiki.workspace import Workspace

FORMAT = 4  # 3: a code span refers to the names it starts with; 4: Liquid comments hide headings
MIN_ARTICLES = 50
# The body's fingerprint, its headings below the title, what it refers to (references.refs).
ArticleHeadings = tuple[str, tuple[str, ...], tuple[str, ...]]


def path_of(ws: Workspace) -> Path:
    return ws.cache / "headings.marshal"


def load(ws: Workspace) -> dict[str, ArticleHeadings]:
    """Headings by article (wiki-relative path); empty if the file is missing or damaged."""
    try:
        with open(path_of(ws), "rb") as handle:
            data = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    known = data.get("articles")
    return known if isinstance(known, dict) else {}


def save(ws: Workspace, made: Mapping[str, ArticleHeadings], alive: Collection[str]) -> None:
    """Add the headings of the articles just written; drop those of articles gone."""
    if len(made) < MIN_ARTICLES:
        return
    alive = alive if isinstance(alive, set | frozenset) else set(alive)
    known = {rel: value for rel, value in load(ws).items() if rel in alive}
    known.update(made)
    data = {"format": FORMAT, "articles": dict(sorted(known.items()))}
    fsio.atomic_write(path_of(ws), marshal.dumps(data), durable=False)


def read_article(body: str, path: str, title: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Parse an article's body for what the index takes from it: its headings below the title, and
    what it refers to (`path` below wiki/ and `title` are the article's own)."""
    from skillwiki import markdown
    from skillwiki.markdown import references

    outline = markdown.analyze(body)
    headings = tuple(heading.text for heading in outline.headings if heading.level > 1)
    links = [(link.kind, link.target) for link in outline.links]
    mentions = [word for word, _ in outline.mentions]
    return headings, references.refs(links, mentions, path, title)


def for_body(
    entry: ArticleHeadings | None, body: str
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The headings and references of a cache `entry`, if it was made for this very body;
    None for another body (a hand edit since) or an entry that is not one (a damaged file)."""
    if entry is None or not isinstance(entry, tuple) or len(entry) != 3:
        return None
    stored, headings, refs = entry
    if not isinstance(stored, str) or not matches(body.encode(), stored):
        return None
    for strings in (headings, refs):
        if not isinstance(strings, tuple) or not all(isinstance(item, str) for item in strings):
            return None
    return headings, refs
