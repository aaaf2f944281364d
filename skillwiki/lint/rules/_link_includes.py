"""The files a page inserts where a template call stands (`[lint.links] includes`: Hugo's
`{{% include "/_common/x.md" %}}`, Jekyll's `{% include x.md %}`), for SW001: the headings
and terms of an included file are anchors of the page that includes it, and a link written
in an included file may be resolved from that page."""

from __future__ import annotations

import posixpath
import re

from skillwiki.lint.model import LintContext
from skillwiki.lint.rules._link_targets import OUTSIDE, Targets
from skillwiki.markdown.anchors import numbered_ids

_EXPRESSION = re.compile(r"\{\{[^}]*\}\}")  # a Liquid or Go template expression in a path
DEPTH = 8  # how deep includes within includes are followed


class Includes:
    """Which articles each article includes and is included by, found once for a lint."""

    def __init__(self, ctx: LintContext, targets: Targets) -> None:
        self.ctx = ctx
        self.targets = targets
        self.settings = ctx.config.lint.links
        self.names = frozenset(self.settings.includes)
        self._included: dict[str, list[tuple[int, str]]] = {}
        self._including: dict[str, list[str]] | None = None
        self._anchors: dict[str, list[str]] = {}

    def included(self, rel: str) -> list[tuple[int, str]]:
        """The articles the article `rel` includes, each after the line of its call, in order."""
        found = self._included.get(rel)
        if found is None:
            found = self._included[rel] = []
            file = self.ctx.articles.get(rel)
            for name, argument, line in file.facts.calls if file and self.names else ():
                article = self.resolve(rel, argument) if name in self.names else None
                if article is not None and article != rel:
                    found.append((line, article))
        return found

    def resolve(self, rel: str, argument: str) -> str | None:
        """The article an include call of the article `rel` names: from the page's folder
        (Hugo's Page.GetPage, Jekyll's include_relative), then from `include_root` (or
        `root`); an expression in the path (`{{ page.version.version }}`) stands for each
        folder name of the page's path in turn. None: no article."""
        path = argument.strip()
        settings = self.settings
        base = posixpath.normpath(settings.include_root or settings.root or ".")
        starts = [base] if path.startswith("/") else [posixpath.dirname(rel), base]
        folders = posixpath.dirname(rel).split("/") if "{{" in path else [""]
        for folder in folders:
            written = _EXPRESSION.sub(folder, path).lstrip("/")
            for start in starts:
                wiki_rel = posixpath.normpath(posixpath.join(start, written))
                if wiki_rel.startswith("../"):
                    continue
                found = self.targets.find(wiki_rel, self.targets.root)
                if found is not None and found != OUTSIDE and found in self.ctx.articles:
                    return found
        return None

    def including(self, rel: str) -> list[str]:
        """The articles that include the article `rel`, directly or through others, nearest
        first, each once."""
        if self._including is None:
            self._including = {}
            for page in sorted(self.ctx.articles) if self.names else ():
                for _, article in self.included(page):
                    self._including.setdefault(article, []).append(page)
        pages: list[str] = []
        level = [rel]
        for _ in range(DEPTH):
            level = [p for item in level for p in self._including.get(item, ()) if p not in pages]
            level = list(dict.fromkeys(level))
            pages += [page for page in level if page != rel]
            if not level:
                break
        return pages

    def unserved(self, rel: str) -> bool:
        """Whether the article `rel` lies under `include_root` (Jekyll's `_includes`): a file
        there is shown only where a page includes it."""
        base = self.settings.include_root
        return bool(base) and rel.startswith(posixpath.normpath(base) + "/")

    def anchors(self, rel: str) -> list[str]:
        """The anchors of the article `rel` (none if there is no such article), with those
        of the articles it includes, and, where `term_anchors` says the site gives definition
        terms ids, its headings' and terms' ids numbered together, included ones in place."""
        found = self._anchors.get(rel)
        if found is None:
            found = self._anchors[rel] = self._gathered(rel)
        return found

    def patterns(self, rel: str) -> list[tuple[str, ...]]:
        """The anchors, in pieces, of the headings that hold template syntax, of the article
        `rel` and of the articles it includes (markdown.Outline.anchor_patterns)."""
        pages = [rel, *(article for _, article in self.included(rel))]
        files = [self.ctx.articles.get(page) for page in pages]
        return [pattern for file in files if file for pattern in file.facts.anchor_patterns]

    def _gathered(self, rel: str) -> list[str]:
        file = self.ctx.articles.get(rel)
        if file is None:
            return []
        anchors = list(file.facts.anchors)
        seen = {rel}
        pending = [article for _, article in self.included(rel)]
        while pending:  # included articles' own anchors, each once
            article = pending.pop()
            if article not in seen and article in self.ctx.articles:
                seen.add(article)
                anchors += self.ctx.articles[article].facts.anchors
                pending += [inner for _, inner in self.included(article)]
        if self.settings.term_anchors:
            anchors += numbered_ids(self._named(rel, 0))
        return anchors

    def _named(self, rel: str, depth: int) -> list[str]:
        """The ids before numbering of the headings and terms of the article `rel`, with
        those of the files it includes where their calls stand."""
        file = self.ctx.articles.get(rel)
        if file is None:
            return []
        calls = self.included(rel) if depth < DEPTH else []
        named: list[str] = []
        position = 0
        for line, name in file.facts.named:
            while position < len(calls) and calls[position][0] < line:
                named += self._named(calls[position][1], depth + 1)
                position += 1
            named.append(name)
        for _, article in calls[position:]:
            named += self._named(article, depth + 1)
        return named
