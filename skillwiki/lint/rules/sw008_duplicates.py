"""SW008: two lessons with one id, or two articles with one title."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _duplicates(ctx.lessons(), "id", "lesson id")
    yield from _duplicates(list(ctx.articles.values()), "title", "article title")


def _duplicates(files: list[File], key: str, what: str) -> Iterator[Finding]:
    first: dict[str, str] = {}
    for file in files:
        value = file.meta.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        normal = " ".join(value.split()).lower()
        if normal in first:
            yield Finding(
                file.path,
                file.key_line(key),
                1,
                RULE.id,
                Severity.ERROR,
                f"duplicate {what} {value!r}, also used by {first[normal]}; make it unique",
            )
        else:
            first[normal] = file.path


RULE = Rule(
    "SW008",
    "duplicate",
    "Duplicate lesson id or article title",
    "Rename one of the two.",
    Severity.ERROR,
    check,
)
