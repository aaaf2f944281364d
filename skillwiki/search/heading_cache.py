"""Each article's outline, as compile parsed it: its headings and what it refers to, in
`.wiki/outline.json`, handed to the search index.

The search index weighs an article's headings and counts the references between articles;
finding them means parsing the article. A compile has just parsed its raw file and knows
them (article.Rendered.headings). After a compile that wrote many articles (MIN_ARTICLES or
more: the first compile, the ingest of a folder, a new compiler version) they are kept in
`outline.json`, each with the fingerprint of the article body it belongs to. The file is
derived and committed with the articles, as index.json is: an index built from scratch (a
fresh clone's first query, or after `.cache/` was deleted) takes them from it instead of
parsing thousands of articles again. An entry whose fingerprint no longer matches the body
(an article compiled again since, a hand edit) is ignored, and that article parsed: a small
compile leaves the file as it is, so that a change to one page rewrites no file of the size
of the wiki. A bulk compile adds the entries of what it wrote, drops those of articles gone
and makes those of articles that have none; `skillwiki compile` and `ingest` make the file
again, from the articles as they are, where it is missing.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path

from skillwiki import fsio, parallel
from skillwiki.fingerprint import fingerprint, matches
from skillwiki.workspace import Workspace

VERSION = 2  # of outline.json (2: a link to a site path refers to the page it names):
# another version's file is not read
MIN_ARTICLES = 50  # articles to index at once before the file is worth reading
# The body's fingerprint, its headings below the title, what it refers to (references.refs).
ArticleHeadings = tuple[str, tuple[str, ...], tuple[str, ...]]


def path_of(ws: Workspace) -> Path:
    return ws.dot / "outline.json"


def load(ws: Workspace) -> dict[str, ArticleHeadings]:
    """Outlines by article (wiki-relative path); empty if the file is missing or damaged, and
    without any entry that is not one."""
    try:
        data = json.loads(path_of(ws).read_bytes())
    except (OSError, ValueError):
        return {}
    known = (
        data.get("articles") if isinstance(data, dict) and data.get("version") == VERSION else {}
    )
    if not isinstance(known, dict):
        return {}
    found = {}
    for rel, entry in known.items():
        if (
            isinstance(entry, list)
            and len(entry) == 3
            and all(isinstance(x, list) for x in entry[1:])
        ):
            found[rel] = (entry[0], tuple(entry[1]), tuple(entry[2]))
    return found


def save(
    ws: Workspace, made: Mapping[str, ArticleHeadings], alive: Collection[str], algorithm: str
) -> None:
    """Keep the outlines of the articles just written (`made`), drop those of articles gone,
    and make those of the `alive` articles that have none; write the file if it changed
    (remove it when no article is left)."""
    alive = alive if isinstance(alive, set | frozenset) else set(alive)
    known = {rel: value for rel, value in load(ws).items() if rel in alive}
    known.update(made)
    missing = sorted(alive - known.keys())
    jobs = [(str(ws.wiki / rel), rel, algorithm) for rel in missing]
    known.update(
        (rel, entry)
        for rel, entry in zip(missing, parallel.imap(of_article, jobs), strict=True)
        if entry
    )
    path = path_of(ws)
    if not known:
        fsio.remove_file(path)
        return
    data = render(known)
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    fsio.atomic_write(path, data)


def render(known: Mapping[str, ArticleHeadings]) -> bytes:
    """outline.json's bytes: one article a line, by path, so that a change to one article
    changes one line of the file."""
    lines = [
        f"{json.dumps(rel, ensure_ascii=False)}: {json.dumps(entry, ensure_ascii=False)}"
        for rel, entry in sorted(known.items())
    ]
    body = ",\n".join(lines)
    return f'{{"version": {VERSION}, "articles": {{\n{body}\n}}}}\n'.encode()


def of_article(job: tuple[str, str, str]) -> ArticleHeadings | None:
    """An article's outline, from the article as it is on disk (in a worker, if many); None
    if it cannot be read."""
    from skillwiki.errors import InputError
    from skillwiki.frontmatter.documents import decode, split

    path, rel, algorithm = job
    try:
        with open(path, "rb") as handle:
            document = split(decode(handle.read(), path, 1 << 40), path)
    except (OSError, InputError):
        return None
    title = str(document.meta.get("title") or Path(path).stem)  # as the index reads it
    headings, refs = read_article(document.body, rel, title)
    return (fingerprint(document.body.encode(), algorithm), headings, refs)


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
