"""recall: the lessons for an agent about to start a task, as a block for its prompt (SPEC 7)."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from skillwiki import fsio
from skillwiki.config import Config
from skillwiki.errors import Conflict, OutsideWorkspace
from skillwiki.evidence import Lesson, confidence, load_lessons, mute_reason
from skillwiki.workspace import Workspace, outside_of

HEADER = (
    "## Lessons learned (skillwiki)\n"
    "Past failures in this project that concern this task. Do not repeat them.\n"
)
START_MARKER = "<!-- skillwiki:recall -->"
END_MARKER = "<!-- /skillwiki:recall -->"
SEVERITY_BONUS = {"CRITICAL": 0.2, "HIGH": 0.15, "MEDIUM": 0.05, "LOW": 0.0}
TASK_WEIGHT = 0.5


@dataclass(frozen=True)
class Considered:
    """One lesson recall looked at: its score, the parts of it, and whether it made the block."""

    id: str
    title: str
    severity: str
    score: float
    parts: dict[str, float]
    included: bool
    reason: str


@dataclass(frozen=True)
class Recalled:
    block: str
    lessons: list[Considered] = field(default_factory=list)

    @property
    def included(self) -> list[str]:
        return [lesson.id for lesson in self.lessons if lesson.included]


@dataclass(frozen=True)
class Request:
    agent: str | None = None
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    task: str | None = None
    budget: int | None = None


def recall(
    ws: Workspace, config: Config, request: Request, on: date, task_scores: dict[str, float]
) -> Recalled:
    """Score every lesson, then fill the block best first within the budget and entry limit.

    `task_scores` maps lesson ids to the relevance of `request.task` (0 to 1), from search.
    """
    budget = request.budget or config.recall.budget
    scored: list[tuple[float, str, Lesson, dict[str, float]]] = []
    lessons: list[Considered] = []
    for lesson in load_lessons(ws, config).values():
        reason = _excluded(lesson, request, config, on)
        parts = _parts(lesson, request, config, on, task_scores)
        score = round(
            sum(v for k, v in parts.items() if k != "confidence") * parts["confidence"], 4
        )
        if reason is None and score <= 0:
            reason = "nothing ties it to this agent or task"
        if reason is not None:
            lessons.append(
                Considered(lesson.id, lesson.title, lesson.severity, score, parts, False, reason)
            )
        else:
            scored.append((score, lesson.id, lesson, parts))
    scored.sort(key=lambda item: (-item[0], item[1]))
    block = HEADER
    taken = 0
    for score, lesson_id, lesson, parts in scored:
        entry = f"\n- [{lesson.severity}] {_one_line(lesson.title)}\n  Prevention: {lesson.rule}\n"
        if taken >= config.recall.max_entries:
            reason, included = f"beyond recall.max_entries ({config.recall.max_entries})", False
        elif len(block) + len(entry) > budget:
            reason, included = f"would not fit in the budget of {budget} characters", False
        else:
            block += entry
            taken += 1
            reason, included = "included", True
        lessons.append(
            Considered(lesson_id, lesson.title, lesson.severity, score, parts, included, reason)
        )
    lessons.sort(key=lambda item: (not item.included, -item.score, item.id))
    return Recalled(block if taken else "", lessons)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _excluded(lesson: Lesson, request: Request, config: Config, on: date) -> str | None:
    if lesson.status != "active":
        return f"status {lesson.status}: only active lessons are recalled"
    agents = lesson.strings("agents")
    if lesson.text("scope") == "targeted" and request.agent and request.agent not in agents:
        return f"targeted at other agents ({', '.join(agents) or 'none'})"
    return mute_reason(lesson, config, on)


def _parts(
    lesson: Lesson, request: Request, config: Config, on: date, task_scores: dict[str, float]
) -> dict[str, float]:
    parts = {
        "scope": 0.3 if lesson.text("scope", "global") == "global" else 0.0,
        "agent": 0.5 if request.agent and request.agent in lesson.strings("agents") else 0.0,
        "tags": round(0.3 * _tag_overlap(request.tags, lesson.strings("tags")), 4),
        "paths": 0.4 if _paths_match(request.paths, lesson.strings("paths")) else 0.0,
        "severity": SEVERITY_BONUS.get(lesson.severity, 0.0),
        "task": round(TASK_WEIGHT * task_scores.get(lesson.id, 0.0), 4),
        "confidence": round(confidence(lesson.evidence, on, config.recall.half_life_days), 4),
    }
    return parts


def _tag_overlap(wanted: Sequence[str], tags: Sequence[str]) -> float:
    if not wanted:
        return 0.0
    have = [tag.lower() for tag in tags]
    hits = sum(any(w.lower() in t or t in w.lower() for t in have) for w in wanted)
    return hits / len(wanted)


def _paths_match(given: Sequence[str], entries: Sequence[str]) -> bool:
    files = [entry.rpartition("=")[0] or entry for entry in entries]
    for pattern in given:
        prefix = pattern.rstrip("/") + "/"
        for file in files:
            if file == pattern or file.startswith(prefix) or fnmatch.fnmatchcase(file, pattern):
                return True
    return False


def write_target(ws: Workspace, path: Path) -> Path:
    """The file `recall --write PATH` changes: PATH inside the workspace, or, when PATH is a
    symlink (CLAUDE.md -> AGENTS.md), the file it leads to, which must be inside too; the
    link stays a link."""
    if os.path.islink(path):
        outside_of(os.path.realpath(ws.root), str(path), str(path))
        return Path(os.path.realpath(path))
    if not ws.holds(path):
        raise OutsideWorkspace(path, f"is outside the workspace {ws.root}; name a file in it")
    return path


def write_block(path: Path, block: str, attempts: int = 20) -> bool:
    """Put the block between the recall markers of an instruction file; return if it changed.

    Every byte outside the markers stays as it was; without markers they are added at the end.
    The markers are the first end marker with a start marker before it (after any earlier end
    marker): a start or end marker that the file's own text mentions is left alone, and the
    block never holds one (a lesson quoting a marker is neutralised), so no write can take in
    a user's lines or leave part of an old block behind. The file is replaced only if it still
    holds what was read: a line someone appends meanwhile makes the write start again.
    """
    block = neutralise_markers(block)
    for _ in range(attempts):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        new = _with_block(data, block.encode())
        if new == data:
            return False
        if fsio.replace_if_unchanged(path, data, new):
            return True
    raise Conflict(f"{path} kept changing while the block was written; try again")


def neutralise_markers(text: str) -> str:
    """`text` with any recall marker in it made inert (so it cannot end or start a block)."""
    return text.replace("skillwiki:recall", "skillwiki recall")


def _with_block(data: bytes, inner_block: bytes) -> bytes:
    start, end = START_MARKER.encode(), END_MARKER.encode()
    inner = b"\n" + inner_block
    searched = 0
    while (finish := data.find(end, searched)) >= 0:
        begin = data.rfind(start, searched, finish)
        if begin >= 0:
            return data[: begin + len(start)] + inner + data[finish:]
        searched = finish + len(end)  # an end marker the text mentions: not ours
    gap = b"" if not data else (b"\n" if data.endswith(b"\n") else b"\n\n")
    return data + gap + start + inner + end + b"\n"
