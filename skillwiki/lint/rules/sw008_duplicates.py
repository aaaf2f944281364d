"""SW008: two lessons with one id, or two articles with one title.

A versioned or translated tree holds each page once per version or language (`v23.1/install.md`,
`v23.2/install.md`; tldr's `pages/common/tar.md`, `pages.de/common/tar.md`). The folders named
by `[lint] copies` are such copies of one another: pages at one path below them are one page
here, so the title they share is no duplicate, and a title two pages share is reported once,
at the first copy that has it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fnmatch import fnmatchcase

from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity

_COPY = "\x00"  # stands for the copies folder in a page's path: no folder is named so


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _duplicates([(file, file.path) for file in ctx.lessons()], "id", "lesson id")
    copies = ctx.config.lint.copies
    articles = [(file, page_of(rel, copies)) for rel, file in sorted(ctx.articles.items())]
    yield from _duplicates(articles, "title", "article title")


def page_of(rel: str, copies: Sequence[str]) -> str:
    """The page a path below wiki/ is a copy of: the path with each folder whose name matches
    one of the `copies` patterns put as one mark (`docs/v23.1/a.md` and `docs/v23.2/a.md`
    are one page for `v[0-9]*`). Without patterns, every path is its own page."""
    if not copies:
        return rel
    *folders, name = rel.split("/")
    marked = [_COPY if any(fnmatchcase(f, p) for p in copies) else f for f in folders]
    return "/".join([*marked, name])


def _duplicates(files: list[tuple[File, str]], key: str, what: str) -> Iterator[Finding]:
    """A finding for each page (files of one page are its copies) whose `key` another page
    holds too, at its first file to hold it."""
    first: dict[str, tuple[str, str]] = {}  # normalised value -> its first page, and file
    reported: set[tuple[str, str]] = set()  # (value, page) already reported
    for file, page in files:
        value = file.meta.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        normal = " ".join(value.split()).lower()
        owner, path = first.setdefault(normal, (page, file.path))
        if owner == page or (normal, page) in reported:
            continue
        reported.add((normal, page))
        yield Finding(
            file.path,
            file.key_line(key),
            1,
            RULE.id,
            Severity.ERROR,
            f"duplicate {what} {value!r}, also used by {path}; make it unique",
        )


RULE = Rule(
    "SW008",
    "duplicate",
    "Duplicate lesson id or article title",
    "Rename one of the two.",
    Severity.ERROR,
    check,
)
