"""The lint rules, one module each; RULES is their explicit, ordered list."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from skillwiki.lint.model import Finding, LintContext
from skillwiki.lint.rules import (
    sw001_links,
    sw002_stale,
    sw003_uncompiled,
    sw004_orphan,
    sw005_edited,
    sw006_frontmatter,
    sw007_lessons,
    sw008_duplicates,
    sw009_near_duplicates,
    sw010_index,
    sw011_secrets,
    sw012_unreachable,
    sw013_lesson_paths,
)

Rule = Callable[[LintContext], Iterator[Finding]]

RULES: tuple[tuple[str, Rule], ...] = (
    ("SW001", sw001_links.check),
    ("SW002", sw002_stale.check),
    ("SW003", sw003_uncompiled.check),
    ("SW004", sw004_orphan.check),
    ("SW005", sw005_edited.check),
    ("SW006", sw006_frontmatter.check),
    ("SW007", sw007_lessons.check),
    ("SW008", sw008_duplicates.check),
    ("SW009", sw009_near_duplicates.check),
    ("SW010", sw010_index.check),
    ("SW011", sw011_secrets.check),
    ("SW012", sw012_unreachable.check),
    ("SW013", sw013_lesson_paths.check),
)


# (id, name, short description, help) of each rule: for SARIF and for documentation.
RULE_INFO: tuple[tuple[str, str, str, str], ...] = (
    (
        "SW001",
        "broken-link",
        "Broken link, wikilink or anchor",
        "Fix the link in the raw file (or ingest its target), then run `skillwiki compile`.",
    ),
    (
        "SW002",
        "stale-article",
        "Article older than its source",
        "Run `skillwiki compile` (or any query) to recompile it.",
    ),
    ("SW003", "uncompiled-source", "Raw file never compiled", "Run `skillwiki compile`."),
    (
        "SW004",
        "orphan-article",
        "Article whose source is gone",
        "Run `skillwiki compile` to remove it, or restore its raw file.",
    ),
    (
        "SW005",
        "hand-edited-article",
        "Compiled article edited by hand",
        "Move the change into the raw file, then `skillwiki compile --force`.",
    ),
    (
        "SW006",
        "bad-frontmatter",
        "Frontmatter missing, unparsable or incomplete",
        "Fix the YAML block at the top of the file; keys and types are in the README.",
    ),
    (
        "SW007",
        "incomplete-lesson",
        "Lesson section missing, unfilled, or unknown value",
        "Give the lesson all four sections and known severity, scope, status and trigger.",
    ),
    ("SW008", "duplicate", "Duplicate lesson id or article title", "Rename one of the two."),
    (
        "SW009",
        "near-duplicate-lessons",
        "Two lessons in one category with mostly equal tags",
        "Merge them into one lesson (`skillwiki maintain` plans it).",
    ),
    ("SW010", "stale-index", "index.md or index.json out of date", "Run `skillwiki compile`."),
    (
        "SW011",
        "secret",
        "Credential in a wiki file",
        "Remove it from the raw file, recompile, and rotate the credential.",
    ),
    (
        "SW012",
        "unreachable-article",
        "Article no link reaches",
        "Run `skillwiki compile` to refresh index.md, or link to the article.",
    ),
    (
        "SW013",
        "lesson-paths-changed",
        "Lesson about files that changed or vanished",
        "Check that the lesson still holds, then record it again with --path.",
    ),
)
