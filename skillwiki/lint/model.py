"""Findings and the parsed view of a workspace that lint rules read."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any

from skillwiki.compiler import Plan
from skillwiki.config import Config
from skillwiki.documents import Document, decode, split
from skillwiki.errors import InputError
from skillwiki.workspace import Workspace


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the workspace root
    line: int
    column: int
    rule: str
    severity: Severity
    message: str


@dataclass
class ParsedFile:
    """One file as lint sees it: its text, and its document or why it could not be parsed."""

    path: str  # relative to the workspace root
    text: str
    document: Document | None
    error: str | None

    @cached_property
    def body_offset(self) -> int:
        """Return how many lines precede the body (the frontmatter block)."""
        if self.document is None:
            return 0
        return self.text[: len(self.text) - len(self.document.body)].count("\n")

    def key_line(self, key: str) -> int:
        """Return the 1-based line of a top-level frontmatter key (1 when it is absent)."""
        match = re.search(rf"^{re.escape(key)}\s*:", self.text, re.MULTILINE)
        return self.text[: match.start()].count("\n") + 1 if match else 1

    @property
    def meta(self) -> dict[str, Any]:
        return self.document.meta if self.document else {}


def parse_file(ws: Workspace, path: Path, max_bytes: int) -> ParsedFile:
    """Read and parse one file; problems are recorded, not raised."""
    rel = ws.rel(path)
    try:
        text = decode(path.read_bytes(), rel, max_bytes)
    except (OSError, InputError) as exc:
        message = exc.message if isinstance(exc, InputError) else str(exc)
        return ParsedFile(rel, "", None, message)
    try:
        return ParsedFile(rel, text, split(text, rel), None)
    except InputError as exc:
        return ParsedFile(rel, text, None, exc.message)


@dataclass
class LintContext:
    """Everything the rules look at, each file parsed once."""

    ws: Workspace
    config: Config
    plan: Plan

    @cached_property
    def raw(self) -> dict[str, ParsedFile]:
        return self._parse(self.ws.raw, self.plan.raw_stats)

    @cached_property
    def articles(self) -> dict[str, ParsedFile]:
        return self._parse(self.ws.wiki, self.plan.wiki_stats)

    def _parse(self, root: Path, rels: dict[str, Any]) -> dict[str, ParsedFile]:
        return {
            rel: parse_file(self.ws, root / rel, self.config.max_file_bytes) for rel in sorted(rels)
        }

    def lessons(self) -> list[ParsedFile]:
        """Return the raw files that are lessons (by type, or by living in raw/lessons/)."""
        return [
            parsed
            for rel, parsed in self.raw.items()
            if parsed.meta.get("type") == "lesson" or rel.startswith("lessons/")
        ]
