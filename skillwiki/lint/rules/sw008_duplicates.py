"""SW008: two lessons with one id, or two articles with one title.

A versioned or translated tree holds each page once per version or language (`v23.1/install.md`,
`v23.2/install.md`; tldr's `pages/common/tar.md`, `pages.de/common/tar.md`). The folders named
by `[lint] copies` are such copies of one another: pages at one path below them are one page
here, so the title they share is no duplicate, and a title two pages share is reported once,
at the first copy that has it.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity
from skillwiki.search.copies import page_of  # what search takes for copies too


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _duplicates([(file, file.path) for file in ctx.lessons()], "id", "lesson id")
    copies = ctx.config.lint.copies
    articles = [(file, page_of(rel, copies)) for rel, file in sorted(ctx.articles.items())]
    yield from _duplicates(articles, "title", "article title")


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
