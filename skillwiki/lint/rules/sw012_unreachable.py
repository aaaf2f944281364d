"""SW012: an article that no link reaches, from index.md or any other article."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from urllib.parse import unquote

from skillwiki.lint.model import Finding, LintContext, Rule, Severity


def check(ctx: LintContext) -> Iterator[Finding]:
    reached: set[str] = set()
    titles = {
        " ".join(str(file.meta.get("title", "")).split()).lower(): rel
        for rel, file in ctx.articles.items()
    }
    index = next((file for file in ctx.others if file.path == ".wiki/index.md"), None)
    if index is not None:
        reached.update(_targets(index.facts.links, "", titles, from_index=True))
    for rel, file in ctx.articles.items():
        reached.update(
            target for target in _targets(file.facts.links, rel, titles) if target != rel
        )
    for rel, file in ctx.articles.items():
        if rel not in reached:
            yield Finding(
                file.path,
                1,
                1,
                RULE.id,
                Severity.WARNING,
                "no link reaches this article from index.md or another article; "
                "run 'skillwiki compile' to refresh the index, or link to it",
            )


def _targets(
    links: list[tuple[str, str, int, int]],
    rel: str,
    titles: dict[str, str],
    from_index: bool = False,
) -> Iterator[str]:
    for kind, target, _, _ in links:
        if kind == "wikilink":
            name = target.split("|", 1)[0].partition("#")[0].strip()
            found = titles.get(" ".join(name.split()).lower())
            yield found or (name if name.endswith(".md") else name + ".md")
            continue
        path = unquote(target.partition("#")[0].partition("?")[0])
        if not path or ":" in path.split("/")[0]:
            continue
        base = "" if from_index else posixpath.join("wiki", posixpath.dirname(rel))
        resolved = posixpath.normpath(posixpath.join(base, path))
        if resolved.startswith("wiki/"):
            yield resolved.removeprefix("wiki/")


RULE = Rule(
    "SW012",
    "unreachable-article",
    "Article no link reaches",
    "Run `skillwiki compile` to refresh index.md, or link to the article.",
    Severity.WARNING,
    check,
)
