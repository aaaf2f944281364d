"""The files a page inserts where a template call stands (`[lint.links] includes`: Hugo's
`{{% include "/_common/x.md" %}}`, Jekyll's `{% include x.md %}`), for SW001: the headings
and terms of an included file are anchors of the page that includes it, and a link written
in an included file may be resolved from that page."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from skillwiki.lint.model import LintContext
from skillwiki.lint.rules._link_targets import OUTSIDE, Targets
from skillwiki.markdown.anchors import numbered_ids

# a Liquid or Go template expression in a path, and the variable it names, if one alone
_EXPRESSION = re.compile(r"\{\{-?[ \t]*([^}]*?)[ \t]*-?\}\}")
_VARIABLE = re.compile(r"[A-Za-z_][\w-]*(?:\.[\w-]+)*")  # `x`, `page.version.version`
_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")  # an include of a URL, not of a file
_ANY = "\0"  # in a path: any text within one name
DEPTH = 8  # how deep includes within includes (and variables within variables) are followed
GLOB_LIMIT = 500  # how many files an include with a value not known may name


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
        self._opaque: dict[str, bool] = {}
        self._children: dict[str, set[str]] | None = None  # folder -> names of articles in it

    def included(self, rel: str) -> list[tuple[int, str]]:
        """The articles the article `rel` includes, each after the line of its call, in order."""
        found = self._included.get(rel)
        if found is None:
            found = self._included[rel] = []
            file = self.ctx.articles.get(rel)
            for name, argument, line in file.facts.calls if file and self.names else ():
                articles = self.resolve(rel, argument, line) if name in self.names else []
                found += [(line, article) for article in articles if article != rel]
        return found

    def resolve(self, rel: str, argument: str, line: int = 0) -> list[str]:
        """The articles an include call of the article `rel` on `line` names: from the page's
        folder (Hugo's Page.GetPage, Jekyll's include_relative), then from `include_root` (or
        `root`). An expression in the path (`{{ x }}`) stands for its value where the page
        says it (`page.x`: its frontmatter; a variable it assigns before the call, as
        written); one not known, for each folder name of the page's path in turn
        (`{{ page.version.version }}` in v24.1/install.md), else for any text within one
        name: a loop's variable includes each file it may name (at most GLOB_LIMIT)."""
        path = self.expanded(rel, argument.strip(), line)
        base = posixpath.normpath(self.settings.include_root or self.settings.root or ".")
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
                    return [found]
        if "{{" not in path or _EXPRESSION.fullmatch(path.rpartition("/")[2]):
            return []  # a file's name that is all unknown names any file: none is said
        pattern = _EXPRESSION.sub(_ANY, path).lstrip("/")
        for start in starts:
            found_all = self._matching(posixpath.normpath(posixpath.join(start, pattern)))
            if found_all:
                return found_all
        return []

    def expanded(self, rel: str, path: str, line: int, depth: int = 0) -> str:
        """`path` with each expression whose value the page `rel` says put in its place: a
        `page.` variable from its frontmatter, or a Liquid variable it sets before `line`
        (its value expanded in turn); the others kept as written."""
        file = self.ctx.articles.get(rel)
        if file is None or "{{" not in path or depth >= DEPTH:
            return path

        def value(expression: re.Match[str]) -> str:
            name = expression[1]
            if not _VARIABLE.fullmatch(name):
                return expression[0]  # a filter's result (`{{ x | downcase }}`): not known
            if name.startswith("page."):
                known: object = file.meta
                for key in name.split(".")[1:]:
                    known = known.get(key) if isinstance(known, dict) else None
                return known if isinstance(known, str) and "{" not in known else expression[0]
            values = [v for n, v, at in file.facts.variables if n == name and at <= line]
            if not values or values[-1] == "{{ }}":
                return expression[0]
            return self.expanded(rel, values[-1], line, depth + 1)

        return _EXPRESSION.sub(value, path)

    def _matching(self, pattern: str) -> list[str]:
        """The articles whose wiki-relative path `pattern` names, `_ANY` standing for any
        text within one name, in order (at most GLOB_LIMIT)."""
        if self._children is None:
            self._children = {}
            for article in self.ctx.articles:
                folder, _, name = article.rpartition("/")
                while True:
                    self._children.setdefault(folder, set()).add(name)
                    if not folder:
                        break
                    folder, _, name = folder.rpartition("/")
        level = [""]
        for part in pattern.split("/"):
            if _ANY not in part:
                level = [
                    f"{f}/{part}".lstrip("/") for f in level if part in self._children.get(f, ())
                ]
                continue
            wild = re.compile(".*".join(re.escape(piece) for piece in part.split(_ANY)))
            level = [
                f"{folder}/{name}".lstrip("/")
                for folder in level
                for name in sorted(self._children.get(folder, ()))
                if wild.fullmatch(name)
            ][:GLOB_LIMIT]
        return [article for article in level if article in self.ctx.articles]

    def opaque(self, rel: str) -> bool:
        """Whether the article `rel`, or one it includes, inserts a file from an address
        (`{% remote_include https://... %}`): a page whose headings lint cannot know."""
        found = self._opaque.get(rel) if self.names else False
        if found is None:
            found = self._opaque[rel] = any(
                name in self.names and _ADDRESS.match(argument)
                for article in self._closure(rel)
                for name, argument, _ in self.ctx.articles[article].facts.calls
            )
        return found

    def _closure(self, rel: str) -> list[str]:
        """The article `rel` and the articles it includes, directly or not, each once."""
        if rel not in self.ctx.articles:
            return []
        seen = [rel]
        pending = [article for _, article in self.included(rel)]
        while pending:
            article = pending.pop()
            if article not in seen and article in self.ctx.articles:
                seen.append(article)
                pending += [inner for _, inner in self.included(article)]
        return seen

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

    def answers(self, rel: str, fragment: str) -> bool:
        """Whether the article `rel` answers a link's `#fragment`: as written, or
        percent-decoded (`#caf%C3%A9` reaches the heading Café), as a browser looks for both;
        or a heading that holds template syntax may (its anchor's pieces, in order, with any
        text between); or any may where the page inserts a file from an address (`opaque`)."""
        anchors = self.anchors(rel)
        if fragment in anchors or ("%" in fragment and unquote(fragment) in anchors):
            return True
        if any(_fits(pieces, fragment) for pieces in self.patterns(rel)):
            return True
        return self.opaque(rel)

    def patterns(self, rel: str) -> list[tuple[str, ...]]:
        """The anchors, in pieces, of the headings that hold template syntax, of the article
        `rel` and of the articles it includes (markdown.Outline.anchor_patterns)."""
        pages = [rel, *(article for _, article in self.included(rel))]
        files = [self.ctx.articles.get(page) for page in pages]
        return [pattern for file in files if file for pattern in file.facts.anchor_patterns]

    def _gathered(self, rel: str) -> list[str]:
        anchors = [
            anchor
            for article in self._closure(rel)
            for anchor in self.ctx.articles[article].facts.anchors
        ]
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


def _fits(pieces: tuple[str, ...], fragment: str) -> bool:
    """Whether `fragment` is the pieces in order with any text between them."""
    first, *middle, last = pieces
    if len(fragment) < len(first) + len(last) or not fragment.startswith(first):
        return False
    if not fragment.endswith(last):
        return False
    at, end = len(first), len(fragment) - len(last)
    for piece in middle:
        at = fragment.find(piece, at, end)
        if at < 0:
            return False
        at += len(piece)
    return True
