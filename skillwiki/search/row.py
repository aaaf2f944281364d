"""One article read as the search index holds it: catalog fields and the indexed columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import body_of, decode, read_tags, split
from skillwiki.kinds import Status
from skillwiki.search import heading_cache, semantic, sentences
from skillwiki.search.text import indexed


class ArticleRow(NamedTuple):
    """One article as the index sees it: catalog fields and the five indexed column values
    (schema.FTS_COLUMNS), normalised as the index reads text."""

    title: str
    type: str
    status: str
    tags: str  # lower-cased, joined by \x1f
    values: tuple[str, ...]
    refs: tuple[str, ...] = ()  # what it refers to (references.refs)
    text: str = ""  # what of it a semantic vector is made of (semantic.article_text)
    prose: tuple[str, ...] = ()  # what of it the sentence encoder reads (sentences.passages)


class ArticleToRead(NamedTuple):
    """Where an article is, and what is already known of it, for `read_row`."""

    path: Path
    rel: str  # below wiki/
    entry: str | None = None  # its index.json entry as JSON: its frontmatter, not read again
    headings: heading_cache.ArticleHeadings | None = (
        None  # what compile found in it, if it wrote it
    )
    embedded: tuple[str, ...] = ("text", "prose")  # the fields of ArticleRow a vector is made of


def read_row(article: ArticleToRead) -> ArticleRow | None:
    """Read one article as the index sees it; None where it cannot be read or parsed. Runs
    in a worker process when there are many, so it takes one picklable argument.

    Its headings and references are those compile found (heading_cache) when found for this
    very body, else parsed.
    """
    fields = _fields(article.path, article.entry)
    if fields is None:
        return None
    meta, title, body = fields
    tags = read_tags(meta.get("tags")) or []
    summary = f"{meta.get('summary') or ''} {meta.get('prevention_rule') or ''}"
    found = heading_cache.for_body(article.headings, body)
    if found is None:
        found = heading_cache.read_article(body, article.rel, title)
    heads, refs = found
    columns = (title, " ".join(tags), " ".join(heads), summary, body)
    return ArticleRow(
        title=title,
        type=str(meta.get("type") or "document"),
        status=str(meta.get("status") or Status.ACTIVE),
        tags="\x1f".join(tag.lower() for tag in tags),
        values=tuple(indexed(str(column)) for column in columns),
        refs=refs,
        text=_semantic_text(title, meta, body) if "text" in article.embedded else "",
        prose=_prose(title, summary.strip(), body) if "prose" in article.embedded else (),
    )


def _semantic_text(title: str, meta: dict[str, Any], body: str) -> str:
    """What the article's semantic vector is made of; empty when the extra is not installed."""
    if not semantic.available():
        return ""
    return semantic.article_text(title, str(meta.get("summary") or ""), body)


def _prose(title: str, summary: str, body: str) -> tuple[str, ...]:
    """What the sentence encoder reads of the article, a text a vector (`summary`: with a
    lesson's prevention rule); none when it is not installed."""
    if not sentences.available():
        return ()
    return sentences.passages(title, summary, body)


def _fields(path: Path, entry: str | None = None) -> tuple[dict[str, Any], str, str] | None:
    """Return (frontmatter, title, body); the frontmatter from `entry` when it is given."""
    try:
        text = decode(path.read_bytes(), path, 1 << 40)
        if entry is not None:
            meta = json.loads(entry)
            return meta, str(meta.get("title") or path.stem), body_of(text)
        document = split(text, path)
    except (OSError, InputError, ValueError):
        return None
    title = str(document.meta.get("title") or path.stem)
    return document.meta, title, document.body
