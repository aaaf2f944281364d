"""SW009: two lessons in one category whose tags mostly overlap.

Rules are left out: a rule takes the tags and category of the lessons it was consolidated
from by design, and is never merged with one.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.kinds import RETIRED, Kind
from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity
from skillwiki.memory.lessons import jaccard


def check(ctx: LintContext) -> Iterator[Finding]:
    threshold = ctx.config.lint.near_duplicate_jaccard
    seen: list[File] = []
    for file in ctx.lessons():
        category = file.meta.get("category")
        tags = file.meta.get("tags")
        if not category or not isinstance(tags, list) or file.meta.get("status") in RETIRED:
            continue
        if file.meta.get("kind") == Kind.RULE:
            continue
        for other in seen:
            if other.meta.get("category") != category:
                continue
            similarity = jaccard(tags, other.meta.get("tags") or [])  # type: ignore[arg-type]
            if similarity >= threshold:
                yield Finding(
                    file.path,
                    file.key_line("tags"),
                    1,
                    RULE.id,
                    Severity.WARNING,
                    f"near-duplicate of {other.path} (category {category!r}, tag similarity "
                    f"{similarity:.2f}); merge the two lessons",
                )
                break
        seen.append(file)


RULE = Rule(
    "SW009",
    "near-duplicate-lessons",
    "Two lessons in one category with mostly equal tags",
    "Merge them into one lesson (`skillwiki maintain` plans it).",
    Severity.WARNING,
    check,
)
