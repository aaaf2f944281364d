"""SW001: a link in an article whose target does not exist."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from urllib.parse import unquote

from skillwiki import markdown
from skillwiki.lint.model import Finding, LintContext, ParsedFile, Severity

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def check(ctx: LintContext) -> Iterator[Finding]:
    anchors = _Anchors(ctx)
    titles = {
        " ".join(str(parsed.meta.get("title", "")).split()).lower(): rel
        for rel, parsed in ctx.articles.items()
        if parsed.document
    }
    for rel, parsed in ctx.articles.items():
        if parsed.document is None:
            continue
        for link in markdown.links(parsed.document.body):
            problem = (
                _wikilink(link.target, rel, titles, ctx, anchors)
                if link.kind == "wikilink"
                else _relative(ctx, link.target, rel, anchors)
            )
            if problem:
                line = parsed.body_offset + link.line
                yield Finding(parsed.path, line, link.column, "SW001", Severity.ERROR, problem)


class _Anchors:
    """The GitHub-style anchors of each article, computed once per article."""

    def __init__(self, ctx: LintContext) -> None:
        self._ctx = ctx
        self._known: dict[str, set[str]] = {}

    def of(self, rel: str) -> set[str]:
        if rel not in self._known:
            parsed: ParsedFile | None = self._ctx.articles.get(rel)
            body = parsed.document.body if parsed and parsed.document else ""
            self._known[rel] = github_anchors(
                h.text for h in markdown.headings(markdown.parse(body))
            )
        return self._known[rel]


def github_anchors(headings: Iterator[str] | list[str]) -> set[str]:
    """Return the anchors GitHub gives these headings, with -1, -2 for repeats."""
    seen: dict[str, int] = {}
    found = set()
    for heading in headings:
        base = markdown.slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def _wikilink(
    target: str, rel: str, titles: dict[str, str], ctx: LintContext, anchors: _Anchors
) -> str | None:
    name, _, heading = target.split("|", 1)[0].partition("#")
    name = name.strip()
    if not name:
        found: str | None = rel
    else:
        found = titles.get(" ".join(name.split()).lower())
        for candidate in (name, name + ".md", posixpath.join(posixpath.dirname(rel), name + ".md")):
            if found is None and candidate in ctx.articles:
                found = candidate
    if found is None:
        return f"broken wikilink [[{target}]]: no article has that title or path"
    if heading and markdown.slug(heading) not in anchors.of(found):
        return f"broken wikilink [[{target}]]: wiki/{found} has no heading '{heading}'"
    return None


def _relative(ctx: LintContext, target: str, rel: str, anchors: _Anchors) -> str | None:
    if not target or _SCHEME.match(target):
        return None
    path, _, fragment = target.partition("#")
    path = unquote(path.partition("?")[0])
    if not path:
        if fragment and fragment not in anchors.of(rel):
            return f"broken anchor #{fragment}: this article has no such heading"
        return None
    base = ctx.ws.root if path.startswith("/") else ctx.ws.wiki / posixpath.dirname(rel)
    resolved = posixpath.normpath(posixpath.join(base.as_posix(), path.lstrip("/")))
    if not posixpath.exists(resolved):
        return f"broken link to {target}: {path} does not exist; fix the link in the raw file"
    wiki_rel = posixpath.relpath(resolved, ctx.ws.wiki.as_posix())
    if fragment and wiki_rel in ctx.articles and fragment not in anchors.of(wiki_rel):
        return f"broken anchor in {target}: wiki/{wiki_rel} has no heading for #{fragment}"
    return None
