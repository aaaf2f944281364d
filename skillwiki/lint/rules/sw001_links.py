"""SW001: a link in an article whose target does not exist."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from urllib.parse import unquote

from skillwiki import markdown
from skillwiki.lint.model import Finding, LintContext, Severity

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def check(ctx: LintContext) -> Iterator[Finding]:
    titles: dict[str, str] = {}
    for rel, file in ctx.articles.items():
        title = file.meta.get("title")
        if isinstance(title, str):
            titles.setdefault(" ".join(title.split()).lower(), rel)
    roots = (ctx.ws.root.as_posix(), ctx.ws.wiki.as_posix())
    for rel, file in ctx.articles.items():
        for kind, target, line, column in file.facts.links:
            if kind == "wikilink":
                problem = _wikilink(ctx, target, rel, titles)
            else:
                problem = _relative(ctx, target, rel, roots)
            if problem:
                yield Finding(file.path, line, column, "SW001", Severity.ERROR, problem)


def _anchors(ctx: LintContext, rel: str) -> list[str]:
    file = ctx.articles.get(rel)
    return file.facts.anchors if file else []


def _wikilink(ctx: LintContext, target: str, rel: str, titles: dict[str, str]) -> str | None:
    name, _, heading = target.split("|", 1)[0].partition("#")
    name = name.strip()
    found: str | None = rel if not name else titles.get(" ".join(name.split()).lower())
    for candidate in (name, name + ".md", posixpath.join(posixpath.dirname(rel), name + ".md")):
        if found is None and candidate in ctx.articles:
            found = candidate
    if found is None:
        return f"broken wikilink [[{target}]]: no article has that title or path"
    if heading and markdown.slug(heading) not in _anchors(ctx, found):
        return f"broken wikilink [[{target}]]: wiki/{found} has no heading '{heading}'"
    return None


def _relative(ctx: LintContext, target: str, rel: str, roots: tuple[str, str]) -> str | None:
    if not target or _SCHEME.match(target):
        return None
    path, _, fragment = target.partition("#")
    path = unquote(path.partition("?")[0])
    if not path:
        if fragment and fragment not in _anchors(ctx, rel):
            return f"broken anchor #{fragment}: this article has no such heading"
        return None
    if path.startswith("/"):
        wiki_rel = None
        resolved = posixpath.normpath(roots[0] + path)
    else:
        wiki_rel = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
        resolved = posixpath.normpath(f"{roots[1]}/{wiki_rel}")
    if wiki_rel not in ctx.articles:
        ctx.outside.add(resolved)
    if wiki_rel not in ctx.articles and not os.path.exists(resolved):
        return f"broken link to {target}: {path} does not exist; fix the link in the raw file"
    if fragment and wiki_rel in ctx.articles and fragment not in _anchors(ctx, wiki_rel):
        return f"broken anchor in {target}: wiki/{wiki_rel} has no heading for #{fragment}"
    return None
