"""SW001: a link in an article whose target does not exist."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from typing import NamedTuple
from urllib.parse import unquote

from skillwiki import markdown
from skillwiki.compiler.article import TEXT_SUFFIXES
from skillwiki.config import link_pattern
from skillwiki.lint.model import File, Finding, LintContext, Read, Rule, Severity
from skillwiki.workspace import PARSED_SUFFIXES, article_rel, within

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
_TEMPLATE = ("{{", "{%", "}}", "%}")  # template syntax is never a link
_INDEX_PAGES = ("index", "_index", "README")
_PAGE_SUFFIXES = (".md", *sorted(PARSED_SUFFIXES - {".md"}))
_FILE_KIND = re.compile(r"\.[A-Za-z0-9]{1,5}$")  # a name that ends in a file's suffix
_ARTICLE_KINDS = tuple(sorted(TEXT_SUFFIXES))  # the files that ingest makes articles of
LinkFacts = tuple[str, str, int, int]  # kind, target, line, column


def check(ctx: LintContext) -> Iterator[Finding | Read]:
    """A finding for each broken link, wikilink or anchor of an article, then each file outside
    .wiki/ that links were resolved against (its change makes lint look again)."""
    links = _Links(ctx)
    for rel, file in ctx.articles.items():
        yield from _findings(links, rel, file)
    yield from (Read(path) for path in sorted(links.looked))


class _Links:
    """What the links of every article are checked against, made once for a lint."""

    def __init__(self, ctx: LintContext) -> None:
        self.ctx = ctx
        self.titles = _titles(ctx)
        # MyST targets (`(name)=`): Sphinx resolves `[text](name)` and `(#name)` from any page
        self.labels = {label for file in ctx.articles.values() for label in file.facts.labels}
        self.roots = (ctx.ws.root.as_posix(), ctx.ws.wiki.as_posix())
        # Each in time linear in the target's length (config.link_pattern).
        self.ignore = [m for pattern in ctx.config.lint.links.ignore for m in link_pattern(pattern)]
        self.looked: set[str] = set()  # files outside .wiki/ that links were resolved against
        self.inside = _Inside(os.path.realpath(ctx.ws.root))

    def skipped(self, kind: str, target: str) -> bool:
        """Whether a link is not checked: a definition (no link uses it: CommonMark renders
        nothing of it), template syntax, or a target the settings ignore."""
        return (
            kind == "definition"
            or any(mark in target for mark in _TEMPLATE)
            or any(m.match(target) for m in self.ignore)
        )

    def problem(self, rel: str, kind: str, target: str) -> str | Broken | None:
        """What is wrong with a link of the article `rel` (None: nothing)."""
        if kind == "wikilink":
            return _wikilink(self.ctx, target, rel, self.titles)
        return _relative(self.ctx, target, rel, self.roots, self.looked, self.inside)


def _findings(links: _Links, rel: str, file: File) -> Iterator[Finding]:
    """The broken links of one article, each named as the raw file writes it when compile
    rewrote it."""
    sources = None
    for link in file.facts.links:
        kind, target, line, column = link
        if links.skipped(kind, target):
            continue
        problem = links.problem(rel, kind, target)
        if not problem:
            continue
        sources = _raw_links(links.ctx, file) if sources is None else sources
        source, written = sources.get(link, (None, None))
        if (written or target).removeprefix("#") in links.labels:
            continue  # a MyST target, named as the raw file writes it
        if isinstance(problem, Broken):  # said of the link as the raw file writes it
            problem = problem.said(written or target)
        yield Finding(file.path, line, column, RULE.id, Severity.ERROR, problem, source, written)


def _titles(ctx: LintContext) -> dict[str, str]:
    """The article each wikilink name leads to: titles first, then the aliases an article
    lists (`aliases`, as Obsidian has them), lower case and spaced once."""
    titles: dict[str, str] = {}
    for rel, file in ctx.articles.items():
        title = file.meta.get("title")
        if isinstance(title, str):
            titles.setdefault(" ".join(title.split()).lower(), rel)
    for rel, file in ctx.articles.items():
        aliases = file.meta.get("aliases")
        listed = [aliases] if isinstance(aliases, str) else aliases
        for alias in listed if isinstance(listed, list) else ():
            if isinstance(alias, str):
                titles.setdefault(" ".join(alias.split()).lower(), rel)
    return titles


def _raw_links(ctx: LintContext, article: File) -> dict[LinkFacts, tuple[tuple[str, int], str]]:
    """Pair an article's links with the raw file's links they were compiled from.

    Compile rewrites targets, drops a leading H1 and adds a Sources link: the links are paired
    in order, a raw link with the article link its rewritten target equals.
    """
    from skillwiki.compiler.article import rewrite_target

    listed = article.meta.get("sources")
    raw_path = listed[0] if isinstance(listed, list) and listed else None
    raw = ctx.raw.get(raw_path.removeprefix("raw/")) if isinstance(raw_path, str) else None
    if raw is None or not isinstance(raw_path, str):
        return {}
    raw_rel = raw_path.removeprefix("raw/")
    origin = raw.meta.get("origin")
    origin = origin if isinstance(origin, str) else None
    from skillwiki.lint.facts import raw_links

    try:
        data = (ctx.ws.dot / raw_path).read_bytes()
    except OSError:
        return {}
    pending = raw_links(raw.path, data)
    paired: dict[LinkFacts, tuple[tuple[str, int], str]] = {}
    for link in article.facts.links:
        for index, (kind, target, line, _) in enumerate(pending):
            written = target if kind == "wikilink" else rewrite_target(raw_rel, target, origin)
            if kind == link[0] and written == link[1]:
                paired[link] = ((raw.path, line), target)
                del pending[: index + 1]
                break
    return paired


def _anchors(ctx: LintContext, rel: str) -> list[str]:
    """The anchors of the article `rel` (none if there is no such article)."""
    file = ctx.articles.get(rel)
    return file.facts.anchors if file else []


def _wikilink(ctx: LintContext, target: str, rel: str, titles: dict[str, str]) -> str | None:
    """What is wrong with a wikilink of the article `rel`: no article by that title or path,
    or none of its headings (or block ids) is the one named."""
    name, _, heading = target.split("|", 1)[0].partition("#")
    name = name.strip()
    if _FILE_KIND.search(name) and not name.lower().endswith(_ARTICLE_KINDS):
        return None  # an image or a PDF (`![[diagram.png]]`): never an article, not checked
    found: str | None = rel if not name else titles.get(" ".join(name.split()).lower())
    for candidate in (name, name + ".md", posixpath.join(posixpath.dirname(rel), name + ".md")):
        if found is None and candidate in ctx.articles:
            found = candidate
    if found is None:
        return f"broken wikilink [[{target}]]: no article has that title or path"
    block = heading.startswith("^")  # Obsidian's block id, kept as written among the anchors
    if heading and (heading if block else markdown.slug(heading)) not in _anchors(ctx, found):
        what = "block" if block else "heading"
        return f"broken wikilink [[{target}]]: wiki/{found} has no {what} '{heading}'"
    return None


class Broken(NamedTuple):
    """A broken relative link: its target is missing (`article` None), or the article it
    reaches has no heading for its fragment."""

    article: str | None
    fragment: str

    def said(self, target: str) -> str:
        """The finding's message, naming the link's target as `target`."""
        if self.article is None:
            path = unquote(target.partition("#")[0].partition("?")[0])
            return f"broken link to {target}: {path} does not exist; fix the link in the raw file"
        return f"broken anchor in {target}: wiki/{self.article} has no heading for #{self.fragment}"


class _Inside:
    """Whether paths lie inside the workspace once `..` and symlinks are resolved; each
    folder resolved once (a tree's links share a few)."""

    def __init__(self, real_root: str) -> None:
        self.real_root = real_root
        self.folders: dict[str, str] = {}

    def holds(self, path: str) -> bool:
        """Whether `path` is inside the workspace."""
        folder, name = os.path.split(path)
        real = self.folders.get(folder)
        if real is None:
            real = self.folders[folder] = os.path.realpath(folder)
        if not within(real, self.real_root):
            return False
        # The folder is inside: a look at the name there tells nothing of outside.
        placed = os.path.join(real, name)
        return not os.path.islink(placed) or within(os.path.realpath(placed), self.real_root)


def _relative(
    ctx: LintContext,
    target: str,
    rel: str,
    roots: tuple[str, str],
    looked: set[str],
    inside: _Inside,
) -> str | Broken | None:
    """What is wrong with a link that is not a wikilink: a message for an anchor of this
    article; for a link to another file, what the message is made of (compile may have
    rewritten the target, and the message names it as the raw file writes it)."""
    if not target or _SCHEME.match(target):
        return None
    path, _, fragment = target.partition("#")
    path = unquote(path.partition("?")[0])
    if not path:
        if fragment and fragment not in _anchors(ctx, rel):
            return f"broken anchor #{fragment}: this article has no such heading"
        return None
    settings = ctx.config.lint.links
    if path.startswith("/"):  # from the site's root, then from each folder served there
        starts, under = [settings.root, *settings.static], roots[0]
    else:
        starts, under = [posixpath.dirname(rel)], roots[1]
    for start in starts:
        wiki_rel = posixpath.normpath(posixpath.join(start, path.lstrip("/")))
        found = _find(ctx, wiki_rel, posixpath.normpath(f"{under}/{wiki_rel}"), looked, inside)
        if found is not None:
            break
    if found == OUTSIDE:
        return f"link to {target} leads outside the workspace; lint looks only inside it"
    if found is None:
        return Broken(None, fragment)
    if fragment and found in ctx.articles and fragment not in _anchors(ctx, found):
        return Broken(found, fragment)
    return None


# What _find says of a link that leads out of the workspace: whether anything is there is
# not lint's to tell (a link to ../../etc/passwd would say whether that file exists).
OUTSIDE = "\0outside"


def _find(
    ctx: LintContext, wiki_rel: str, resolved: str, looked: set[str], inside: _Inside
) -> str | None:
    """The article (wiki-relative) or the file on disk a link reaches, under the settings;
    each file looked for on disk is added to `looked`; OUTSIDE for a file out of the
    workspace (by `..`, or a symlink), whatever is there."""
    settings = ctx.config.lint.links
    names = [(wiki_rel, resolved)]
    if settings.html and wiki_rel.endswith((".html", ".htm")):
        names += _pages(wiki_rel.rpartition(".")[0], resolved.rpartition(".")[0])
        names += _pages(wiki_rel, resolved)  # x.html.md (Middleman)
    if settings.directories:
        bare = (wiki_rel.rstrip("/"), resolved.rstrip("/"))
        names += _pages(*bare)
        for page in _INDEX_PAGES:
            names += _pages(f"{bare[0]}/{page}", f"{bare[1]}/{page}")
    for article, _ in names:
        if article in ctx.articles:
            return article
    for article, on_disk in names:
        if not inside.holds(on_disk):
            return OUTSIDE
        looked.add(on_disk)
        if os.path.exists(on_disk):
            return article
    return None


def _pages(wiki_rel: str, resolved: str) -> list[tuple[str, str]]:
    """The article and the file on disk of a page named without its suffix, for each suffix
    a page may have (`.mdx`: Astro, Docusaurus)."""
    return [(article_rel(wiki_rel + kind), resolved + kind) for kind in _PAGE_SUFFIXES]


RULE = Rule(
    "SW001",
    "broken-link",
    "Broken link, wikilink or anchor",
    "Fix the link in the raw file (or ingest its target), then run `skillwiki compile`.",
    Severity.ERROR,
    check,
)
