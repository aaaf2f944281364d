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
from skillwiki.config import Config, link_pattern
from skillwiki.errors import InputError
from skillwiki.lint.model import File, Finding, LintContext, Read, Rule, Severity
from skillwiki.lint.rules._link_includes import Includes
from skillwiki.lint.rules._link_targets import (
    ELSEWHERE,
    OUTSIDE,
    Step,
    Targets,
    as_written,
    mounted_under,
)
from skillwiki.workspace import PARSED_SUFFIXES, Workspace, suffix

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
_TEMPLATE = ("{{", "{%", "}}", "%}")  # template syntax is never a link
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
        self.targets = Targets(ctx)
        self.looked = self.targets.looked  # files outside .wiki/ that links were resolved against
        self.inside = self.targets.inside
        self.includes = Includes(ctx, self.targets)
        # Each in time linear in the target's length (config.link_pattern).
        self.ignore = [m for pattern in ctx.config.lint.links.ignore for m in link_pattern(pattern)]

    def skipped(self, kind: str, target: str) -> bool:
        """Whether a link is not checked: a definition (no link uses it: CommonMark renders
        nothing of it), template syntax, or a target the settings ignore."""
        return (
            kind == "definition"
            or any(mark in target for mark in _TEMPLATE)
            or self.ignored(target)
        )

    def ignored(self, target: str) -> bool:
        """Whether `[lint.links] ignore` names a target: as the raw file writes it (what a
        finding's `target` shows), or as compile rewrote it in the article."""
        return any(m.match(target) for m in self.ignore)

    def problem(self, rel: str, kind: str, target: str) -> str | Broken | None:
        """What is wrong with a link of the article `rel` (None: nothing)."""
        if kind == "wikilink":
            return _wikilink(self, target, rel)
        return _relative(self, target, rel)


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
        if written is not None and written != target and links.ignored(written):
            continue
        if (written or target).removeprefix("#") in links.labels:
            continue  # a MyST target, named as the raw file writes it
        if isinstance(problem, Broken):  # said of the link as the raw file writes it
            absent = _absent(links, file, written) if problem.article is None else None
            if absent is not None and links.ctx.config.lint.links.repository_files:
                continue  # the file is there: the site serves it, article or not
            problem = problem.said(written or target, absent)
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

    found = _raw_file(ctx, article)
    if found is None:
        return {}
    raw_rel, raw = found
    origin = raw.meta.get("origin")
    origin = origin if isinstance(origin, str) else None
    from skillwiki.lint.facts import raw_links

    try:
        data = (ctx.ws.raw / raw_rel).read_bytes()
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


def _raw_file(ctx: LintContext, article: File) -> tuple[str, File] | None:
    """The raw file an article was compiled from (its first source) and its raw-relative
    path, or None (a hand-written article, or its raw file is gone)."""
    listed = article.meta.get("sources")
    raw_path = listed[0] if isinstance(listed, list) and listed else None
    if not isinstance(raw_path, str):
        return None
    raw_rel = raw_path.removeprefix("raw/")
    raw = ctx.raw.get(raw_rel)
    return None if raw is None else (raw_rel, raw)


def _absent(links: _Links, article: File, written: str | None) -> str | None:
    """Why a relative link from `article` finds no article, where more can be said than that
    nothing is there: the raw file it names is there but compile refuses it (or has not
    compiled it yet), or the repository file it names, from where the raw file came from,
    is one ingest refuses (or never ingested). None: nothing is there, as far as lint sees."""
    ctx = links.ctx
    found = _raw_file(ctx, article)
    path = unquote((written or "").partition("#")[0].partition("?")[0])
    if found is None or not path or path.startswith("/") or _SCHEME.match(path):
        return None
    raw_rel, raw = found
    in_raw = posixpath.normpath(posixpath.join(posixpath.dirname(raw_rel), path))
    if in_raw in ctx.raw:
        from skillwiki.compiler import refusal

        why = refusal(ctx.ws, ctx.config, in_raw)
        if why is None:
            return f".wiki/raw/{in_raw} has no article yet; run 'skillwiki compile'"
        return f"compile refuses .wiki/raw/{in_raw}, so it has no article: {why}"
    origin = raw.meta.get("origin")
    if not isinstance(origin, str) or not origin or origin == "-" or posixpath.isabs(origin):
        return None
    return _not_ingested(links, posixpath.normpath(posixpath.join(posixpath.dirname(origin), path)))


def _not_ingested(links: _Links, in_repo: str) -> str | None:
    """Why the repository file `in_repo` (relative to the root) that a link names has no
    article: ingest refuses it, or it was never ingested; None where it is no file of a kind
    ingest takes, or not there, or out of the workspace. The file looked for is added to
    `links.looked`: its change makes lint look again."""
    if in_repo.startswith("../") or suffix(in_repo) not in TEXT_SUFFIXES:
        return None  # ingest never makes an article of it: the link was not to one
    on_disk = os.path.join(links.roots[0], in_repo)
    if not links.inside.holds(on_disk):
        return None
    links.looked.add(on_disk)
    if not os.path.isfile(on_disk):
        return None
    why = _ingest_refusal(links, in_repo, on_disk)
    if why is None:
        return f"{in_repo} was never ingested; ingest it, or fix the link in the raw file"
    return f"ingest refuses {in_repo}, so it has no article: {why}"


def _ingest_refusal(links: _Links, rel: str, on_disk: str) -> str | None:
    """Why ingest refuses the repository file `rel` (at `on_disk`), or None: what ingest
    asks of a file, too large, not UTF-8 text, its frontmatter or its note unusable, asked
    again of it as it is now (ingest keeps no record of what it refused)."""
    from skillwiki.compiler import refusal_of
    from skillwiki.frontmatter.documents import check_note, check_size, decode, split

    config = links.ctx.config
    try:
        check_size(os.stat(on_disk).st_size, rel, config.max_file_bytes)
        with open(on_disk, "rb") as file:
            data = file.read()
        why = refusal_of(config, rel, data)
        if why is None:
            text = decode(data, rel, config.max_file_bytes)
            if suffix(rel) in PARSED_SUFFIXES:
                document = split(text, rel)
                check_note(document.meta, document.body, rel)
            else:
                check_note({}, text, rel)
    except InputError as exc:
        return exc.detail
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return why


def _wikilink(links: _Links, target: str, rel: str) -> str | None:
    """What is wrong with a wikilink of the article `rel`: no article by that title or path,
    or none of its headings (or block ids) is the one named."""
    ctx, titles = links.ctx, links.titles
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
    anchor = heading if block else markdown.slug(heading.strip())
    if heading and anchor not in links.includes.anchors(found):
        what = "block" if block else "heading"
        return f"broken wikilink [[{target}]]: wiki/{found} has no {what} '{heading}'"
    return None


class Broken(NamedTuple):
    """A broken relative link: its target is missing (`article` None), or the article it
    reaches has no heading for its fragment."""

    article: str | None
    fragment: str

    def said(self, target: str, absent: str | None = None) -> str:
        """The finding's message, naming the link's target as `target`; for a missing target,
        `absent` says why, where more is known than that nothing is there (_absent)."""
        if self.article is None:
            if absent is not None:
                return f"broken link to {target}: {absent}"
            path = unquote(target.partition("#")[0].partition("?")[0])
            return f"broken link to {target}: {path} does not exist; fix the link in the raw file"
        return f"broken anchor in {target}: wiki/{self.article} has no heading for #{self.fragment}"


def _relative(
    links: _Links, target: str, rel: str, steps: list[Step] | None = None
) -> str | Broken | None:
    """What is wrong with a link that is not a wikilink: a message for an anchor of this
    article; for a link to another file, what the message is made of (compile may have
    rewritten the target, and the message names it as the raw file writes it). A link of a
    file that pages include (`includes`) is also looked for from each of them, as the site
    shows it there. Each look for the file is added to `steps` where given (lint
    --explain-links)."""
    problem = _relative_from(links, target, rel, steps)
    if problem is None or not links.includes.names or _SCHEME.match(target):
        return problem
    # the pages the site shows it on: an include that only other unserved ones include is none
    pages = [page for page in links.includes.including(rel) if not links.includes.unserved(page)]
    if not pages and links.includes.unserved(rel):
        return None  # an include no page includes: the site shows it nowhere
    path, query = target.partition("#")[0], target[len(target.partition("#")[0]) :]
    if path and not path.startswith("/"):  # as the file writes it, from the including page
        bare = path.partition("?")[0]
        path = as_written(links.roots, posixpath.dirname(rel), bare) + path[len(bare) :]
    for page in pages:
        if steps is not None:
            steps.append(Step("included by", (page,), page, True))
        if _relative_from(links, path + query, page, steps) is None:
            return None
    return problem


def _relative_from(
    links: _Links, target: str, rel: str, steps: list[Step] | None
) -> str | Broken | None:
    """What is wrong with a link that is not a wikilink, written in the article `rel`."""
    ctx = links.ctx
    if not target or _SCHEME.match(target):
        return None
    path, _, fragment = target.partition("#")
    path = unquote(path.partition("?")[0])
    if not path:
        if fragment and not links.includes.answers(rel, fragment):
            return f"broken anchor #{fragment}: this article has no such heading"
        return None
    found = _reach(links, path, rel, steps)
    if found == ELSEWHERE:
        return None  # another site's page on the same host: not lint's to tell
    if found == OUTSIDE:
        return f"link to {target} leads outside the workspace; lint looks only inside it"
    if found is None:
        return Broken(None, fragment)
    if fragment and found in ctx.articles and not links.includes.answers(found, fragment):
        return Broken(found, fragment)
    return None


def _reach(links: _Links, path: str, rel: str, steps: list[Step] | None) -> str | None:
    """The article or file a link's path reaches from the article `rel`: from the site's root
    and then each folder served there for a path from the root, else from the article's
    folder; OUTSIDE for one out of the workspace, ELSEWHERE for another site's page."""
    settings = links.ctx.config.lint.links
    starts = _starts(links, path, rel, steps is not None)
    if starts is None:
        return ELSEWHERE
    for number, (where, start, written, under) in enumerate(starts):
        wiki_rel = posixpath.normpath(posixpath.join(start, written))
        used = number == 0 or path.startswith("/") or settings.relative_from_root
        if steps is not None:
            steps.append(Step(where if used else "relative_from_root", (start,), wiki_rel, used))
        found = links.targets.find(wiki_rel, under, steps)
        if found is not None and used:
            return found
    return None


def _starts(
    links: _Links, path: str, rel: str, explaining: bool
) -> list[tuple[str, str, str, str]] | None:
    """Where a link's path is looked for, in order: the setting that says so, the folder, the
    path below it, and the folder on disk that holds it; None for a path from the root under
    none of `mounts` (another site's). A page-relative path is looked for from `root` too
    with `relative_from_root` (and, `explaining`, to say what that would find)."""
    settings = links.ctx.config.lint.links
    if path.startswith("/") and settings.mounts:
        mounted = mounted_under(settings.mounts, path)
        if mounted is None:
            return None
        prefix, folders = mounted
        return [("mount", folder, path[len(prefix) :], links.roots[0]) for folder in folders]
    if path.startswith("/"):
        below = path.lstrip("/")
        starts = [("root", settings.root, below, links.roots[0])]
        return starts + [("static", folder, below, links.roots[0]) for folder in settings.static]
    starts = [("folder", posixpath.dirname(rel), path, links.roots[1])]
    below_folder = _below(links, posixpath.dirname(rel), path)
    if below_folder is not None and (settings.relative_from_root or explaining):
        starts.append(("root", settings.root, below_folder, links.roots[0]))
    return starts


def _below(links: _Links, folder: str, path: str) -> str | None:
    """A relative link's path from its article's `folder` as the raw file writes it, where it
    stays below that folder (`methods/page/date/`), else None: what `relative_from_root`
    looks for from `root` too. Compile points a link that leaves the wiki at the
    repository's file (`../../content/en/x`); that is undone here."""
    below = as_written(links.roots, folder, path)
    return None if below == ".." or below.startswith("../") else below


class Explanation(NamedTuple):
    """How lint looked for the target of a SW001 finding: each setting's look, in order."""

    finding: Finding
    steps: list[Step]


def explain(ws: Workspace, config: Config, findings: list[Finding]) -> list[Explanation]:
    """For each SW001 finding of a link that is not a wikilink, every look for its target:
    from where (`root`, each of `static`, or the article's folder), as written, as `html`
    and `directories` name pages, `case_insensitive`, the `fallback` language, each with
    what it found, the looks of settings left off among them (what switching one on would
    find)."""
    from skillwiki.compiler import make_plan
    from skillwiki.lint.model import load_context

    ctx = load_context(ws, config, make_plan(ws, config))
    links = _Links(ctx)
    wiki = ws.wiki.relative_to(ws.root).as_posix() + "/"
    explained: list[Explanation] = []
    for finding in findings:
        file = ctx.articles.get(finding.path.removeprefix(wiki))
        if finding.rule != RULE.id or file is None or not finding.path.startswith(wiki):
            continue
        for kind, target, line, column in file.facts.links:
            if (line, column) == (finding.line, finding.column) and kind != "wikilink":
                steps: list[Step] = []
                _relative(links, target, finding.path.removeprefix(wiki), steps)
                explained.append(Explanation(finding, steps))
                break
    return explained


RULE = Rule(
    "SW001",
    "broken-link",
    "Broken link, wikilink or anchor",
    "Fix the link in the raw file (or ingest its target), then run `skillwiki compile`.",
    Severity.ERROR,
    check,
)
