"""Lesson files in raw/lessons/: the one loader, and the one way to rewrite a lesson."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from skillwiki import fsio
from skillwiki.config import Config
from skillwiki.errors import InputError, NotFound
from skillwiki.frontmatter.documents import decode, join, split
from skillwiki.kinds import Kind, Outcome, Severity, Status
from skillwiki.workspace import Workspace

LESSONS_DIR = "lessons"
EVIDENCE_HEADING = "## Evidence"
_EVIDENCE = re.compile(rf"^- ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}) ({'|'.join(Outcome)})\b:?\s*(.*)$")


@dataclass(frozen=True)
class Evidence:
    day: date
    outcome: str
    note: str


@dataclass(frozen=True)
class Lesson:
    """One raw lesson with the fields the memory loop reads."""

    id: str
    path: Path
    meta: dict[str, Any]
    body: str
    evidence: tuple[Evidence, ...] = field(default=())

    def text(self, key: str, default: str = "") -> str:
        value = self.meta.get(key)
        return value if isinstance(value, str) else default

    def strings(self, key: str) -> list[str]:
        value = self.meta.get(key)
        if isinstance(value, str):
            return [value]
        return [str(item) for item in value] if isinstance(value, list) else []

    @property
    def title(self) -> str:
        return self.text("title", self.id)

    @property
    def severity(self) -> str:
        return self.text("severity", Severity.MEDIUM)

    @property
    def status(self) -> str:
        return self.text("status", Status.ACTIVE)

    @property
    def is_rule(self) -> bool:
        """Whether this is a rule (`kind: rule`), consolidated from the lessons of `evidence`."""
        return self.meta.get("kind") == Kind.RULE

    @property
    def rule(self) -> str:
        """The line recall shows: a rule's "When <condition>: <action>.", a lesson's
        prevention rule, else its summary."""
        if self.is_rule:
            return when_then(self.text("when"), self.text("then"))
        return " ".join((self.text("prevention_rule") or self.text("summary")).split())

    @property
    def evidence_ids(self) -> list[str]:
        """A rule's lessons, as its `evidence:` names them (none for a lesson)."""
        return self.strings("evidence") if self.is_rule else []

    @property
    def created(self) -> date | None:
        try:
            return date.fromisoformat(str(self.meta.get("created", ""))[:10])
        except ValueError:
            return None


def when_then(condition: str, action: str) -> str:
    """A rule as recall shows it: "When <condition>: <action>." on one line."""
    condition = " ".join(condition.split()).rstrip(".:")
    action = " ".join(action.split())
    if condition[:5].casefold() == "when ":
        condition = condition[5:]
    return f"When {condition}: {action}" + ("" if action.endswith((".", "!", "?")) else ".")


def load_lessons(ws: Workspace, config: Config) -> dict[str, Lesson]:
    """Return every readable lesson in raw/lessons/, by id (the file name)."""
    found: dict[str, Lesson] = {}
    folder = ws.raw / LESSONS_DIR
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
        try:
            document = split(decode(path.read_bytes(), path, config.max_file_bytes), path)
        except InputError:
            continue
        if document.meta.get("type") not in (None, "lesson"):
            continue
        found[path.stem] = Lesson(
            path.stem, path, document.meta, document.body, parse_evidence(document.body)
        )
    return found


def find(
    ws: Workspace, config: Config, lesson_id: str, lessons: dict[str, Lesson] | None = None
) -> Lesson:
    """The lesson (or rule) `lesson_id`, from `lessons` when the caller loaded them."""
    lessons = load_lessons(ws, config) if lessons is None else lessons
    if lesson_id not in lessons:
        raise NotFound(f"no lesson with id {lesson_id!r}; list them with: skillwiki review")
    return lessons[lesson_id]


def parse_evidence(body: str) -> tuple[Evidence, ...]:
    """Read the `- YYYY-MM-DD outcome: note` lines of the `## Evidence` section."""
    found = []
    inside = False
    for line in body.splitlines():
        if line.startswith("## "):
            inside = line.strip() == EVIDENCE_HEADING
            continue
        match = _EVIDENCE.match(line.strip()) if inside else None
        if match:
            try:
                day = date.fromisoformat(match.group(1))
            except ValueError:  # 2024-02-30: not a day; the line is not evidence (lint says so)
                continue
            found.append(Evidence(day, match.group(2), match.group(3).strip()))
    return tuple(found)


def rewrite(
    ws: Workspace, config: Config, lesson: Lesson, meta: dict[str, Any], body: str, log: str
) -> None:
    """Write a lesson's raw file with new frontmatter and body (the caller holds the lock).

    A lesson compile would refuse (a NUL byte in a note, over max_file_bytes once evidence is
    added) is refused before anything is written: written, every later compile would fail.
    """
    from skillwiki.compiler import refusal_of

    rel = f"{LESSONS_DIR}/{lesson.path.name}"
    data = join(meta, body).encode()
    problem = refusal_of(config, rel, data)
    if problem is not None:
        raise InputError(
            f".wiki/raw/{rel}", f"the lesson cannot be changed, compile would refuse it: {problem}"
        )
    line = f"{lesson.id} -> raw/{rel}"
    fsio.write_many(  # logged before it is in place: no change without its log line
        [(lesson.path, data)],
        only_changed=False,
        before_rename=lambda _: fsio.append_log(ws, log, line),
    )
