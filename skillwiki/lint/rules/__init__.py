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
    sw010_index,
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
    ("SW010", sw010_index.check),
)
