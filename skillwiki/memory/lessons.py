"""Lessons: the four-section template, recording one safely, and what makes two the same."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillwiki import clock, fsio, secrets
from skillwiki.config import Config
from skillwiki.documents import MAX_SUMMARY, MAX_TAGS, MAX_TITLE, join
from skillwiki.errors import InputError
from skillwiki.fingerprint import expect, fingerprint
from skillwiki.memory.kinds import Scope, Severity, Status, Trigger, values
from skillwiki.memory.store import LESSONS_DIR, load_lessons
from skillwiki.names import slugify
from skillwiki.workspace import Workspace

SECTIONS = ("What Happened", "Root Cause", "Optimization", "Next Time")
# Guidance text that record-lesson puts into sections it was not given; lint reads it as
# "not yet filled in".
TEMPLATE_TEXT = {
    "Root Cause": "_Not yet filled in: why did it happen? Name the cause, not the symptom._",
    "Optimization": "_Not yet filled in: what was changed so that it cannot happen again?_",
    "Next Time": "- _Not yet filled in: the check to make before this happens again._",
}


@dataclass(frozen=True)
class LessonInput:
    title: str
    summary: str
    body: str | None = None
    trigger: str = Trigger.MANUAL
    severity: str = Severity.MEDIUM
    scope: str | None = None
    agents: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    category: str | None = None
    prevention_rule: str | None = None
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Recorded:
    id: str
    path: str  # relative to the workspace root
    status: str
    created: bool
    similar: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)  # what keeps it a candidate


def unfinished(body: str, prevention_rule: str | None) -> list[str]:
    """What a lesson still lacks before recall may show it: each section that holds the
    template's guidance text, and a prevention rule (else recall would show its summary, the
    failure itself, as the thing to do)."""
    found = [
        name
        for name, text in sections(body).items()
        if name in TEMPLATE_TEXT and TEMPLATE_TEXT[name].strip("-_ ")[:20] in text
    ]
    if not (prevention_rule or "").strip():
        found.append("prevention rule")
    return found


def sections(body: str) -> dict[str, str]:
    """Return the text under each `## ` heading of a lesson body (the first of each name).

    One pass over the lines, no backtracking: a line of thousands of spaces costs its length.
    """
    found: dict[str, str] = {}
    name: str | None = None
    start = offset = 0
    for line in body.splitlines(keepends=True):
        title = _section_title(line)
        if title is not None:
            if name is not None:
                found.setdefault(name, body[start:offset].strip())
            name, start = title, offset + len(line)
        offset += len(line)
    if name is not None:
        found.setdefault(name, body[start:].strip())
    return found


def _section_title(line: str) -> str | None:
    """The title of an ATX `## ` heading line (closing #s dropped), else None."""
    if not line.startswith("##") or line[2:3] not in (" ", "\t"):
        return None
    title = line[3:].strip()
    closed = title.rstrip("#")
    if closed != title and (not closed or closed[-1] in " \t"):
        title = closed.rstrip()
    return title or None


def build_body(lesson: LessonInput) -> str:
    """Return the four-section body: a complete given body is kept as written."""
    given = (lesson.body or "").strip()
    if given and all(name in sections(given) for name in SECTIONS):
        return given + "\n"
    happened = given or lesson.summary.strip()
    next_time = (
        f"- {lesson.prevention_rule.strip()}"
        if lesson.prevention_rule
        else TEMPLATE_TEXT["Next Time"]
    )
    parts = [
        f"## What Happened\n\n{happened}\n\nTrigger: {lesson.trigger}.",
        f"## Root Cause\n\n{TEMPLATE_TEXT['Root Cause']}",
        f"## Optimization\n\n{TEMPLATE_TEXT['Optimization']}",
        f"## Next Time\n\n{next_time}",
    ]
    return "\n\n".join(parts) + "\n"


def validate(lesson: LessonInput) -> None:
    """Refuse unknown enum values and empty required text, naming the option."""
    choices = (
        ("--trigger", lesson.trigger, values(Trigger)),
        ("--severity", lesson.severity, values(Severity)),
        ("--scope", lesson.scope, values(Scope)),
    )
    for option, value, allowed in choices:
        if value is not None and value not in allowed:
            raise InputError(None, f"{option} {value!r} is not one of {', '.join(allowed)}")
    for option, text, limit in (
        ("--title", lesson.title, MAX_TITLE),
        ("--summary", lesson.summary, MAX_SUMMARY),
    ):
        if not text.strip():
            raise InputError(None, f"{option} must not be empty")
        if len(text) > limit:
            raise InputError(None, f"{option} is {len(text)} characters; at most {limit}")
    if len(lesson.tags) > MAX_TAGS:
        raise InputError(None, f"{len(lesson.tags)} --tag options; at most {MAX_TAGS}")
    if lesson.scope == Scope.TARGETED and not lesson.agents:
        raise InputError(None, "--scope targeted needs at least one --agent")


def record(
    ws: Workspace,
    config: Config,
    lesson: LessonInput,
    today: str | None = None,
    *,
    dedupe: bool = False,
    expected: str | None = None,
) -> Recorded:
    """Write the lesson into raw/lessons/ under the workspace lock (the caller compiles).

    With `dedupe`, a near-duplicate of an existing lesson is not written: the answer names
    the existing lessons instead (record evidence on them with `feedback`). `expected` is the
    fingerprint of index.json as the caller read it: if the catalog changed since, nothing is
    written (the agent should look for the lesson again).
    """
    validate(lesson)
    lesson, redacted = _redacted(lesson)
    paths = [_path_fingerprint(ws, config, given) for given in lesson.paths]
    body = build_body(lesson)
    created = today or clock.today().isoformat()
    with fsio.workspace_lock(ws, config.lock_timeout):
        expect(ws.index_json, expected, ws.rel(ws.index_json))
        existing = load_lessons(ws, config)
        for lesson_id, known in existing.items():
            same_title = known.meta.get("title") == " ".join(lesson.title.split())
            if same_title and known.body.strip() == body.strip():
                rel = ws.rel(known.path)
                return Recorded(lesson_id, rel, known.status, False, [], redacted)
        taken = {path.stem for path in (ws.raw / LESSONS_DIR).glob("*.md")}  # parsed or not
        lesson_id = _free_id(existing.keys() | taken, f"{created}-{slugify(lesson.title)}")
        missing = unfinished(body, lesson.prevention_rule)
        waits = config.lessons.require_review or bool(missing)
        status = (Status.CANDIDATE if waits else Status.ACTIVE).value
        meta = _meta(lesson, lesson_id, status, created, paths)
        similar = [other for other, known in existing.items() if _similar(meta, known.meta)]
        if dedupe and similar:
            first = existing[similar[0]]
            return Recorded(first.id, ws.rel(first.path), first.status, False, similar, redacted)
        target = ws.raw / LESSONS_DIR / f"{lesson_id}.md"
        line = f"{lesson_id} -> raw/{LESSONS_DIR}/{lesson_id}.md"
        fsio.write_many(  # logged before it is in place: no lesson without its log line
            [(target, join(meta, body).encode())],
            only_changed=False,
            before_rename=lambda _: fsio.append_log(ws, "record-lesson", line),
        )
    return Recorded(lesson_id, ws.rel(target), status, True, similar, redacted, missing)


def _redacted(lesson: LessonInput) -> tuple[LessonInput, list[str]]:
    kinds: list[str] = []

    def clean(text: str | None) -> str | None:
        if text is None:
            return None
        cleaned, found = secrets.redact(text)
        kinds.extend(found)
        return cleaned

    result = LessonInput(
        title=clean(lesson.title) or "",
        summary=clean(lesson.summary) or "",
        body=clean(lesson.body),
        trigger=lesson.trigger,
        severity=lesson.severity,
        scope=lesson.scope,
        agents=tuple(clean(agent) or "" for agent in lesson.agents),
        tags=tuple(clean(tag) or "" for tag in lesson.tags),
        category=clean(lesson.category),
        prevention_rule=clean(lesson.prevention_rule),
        paths=lesson.paths,
    )
    return result, sorted(set(kinds))


def _meta(
    lesson: LessonInput, lesson_id: str, status: str, created: str, paths: Sequence[str]
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "type": "lesson",
        "id": lesson_id,
        "title": " ".join(lesson.title.split()),
        "summary": " ".join(lesson.summary.split()),
        "trigger": lesson.trigger,
        "severity": lesson.severity,
        "scope": lesson.scope or (Scope.TARGETED if lesson.agents else Scope.GLOBAL).value,
        "agents": list(dict.fromkeys(lesson.agents)),
        "tags": list(dict.fromkeys(lesson.tags)),
    }
    if lesson.category:
        meta["category"] = lesson.category
    if lesson.prevention_rule:
        meta["prevention_rule"] = " ".join(lesson.prevention_rule.split())
    if paths:
        meta["paths"] = list(paths)
    meta["status"] = status
    meta["created"] = created
    return meta


def _path_fingerprint(ws: Workspace, config: Config, given: str) -> str:
    path = (Path.cwd() / given).resolve()  # `..` and symlinks resolved: where it really is
    if not path.is_file():
        raise InputError(given, "--path names no file; give a file the lesson is about")
    if not ws.holds(path):
        raise InputError(given, "--path must name a file inside the workspace")
    return f"{ws.rel(path)}={fingerprint(path.read_bytes(), config.fingerprint)}"


def _free_id(existing: Collection[str], base: str) -> str:
    """`base`, or `base-2`, `base-3`...: the first that no lesson file has (a hand-edited one
    whose frontmatter no longer parses included: it is never written over)."""
    if base not in existing:
        return base
    number = 2
    while f"{base}-{number}" in existing:
        number += 1
    return f"{base}-{number}"


def _similar(new: dict[str, Any], old: dict[str, Any], threshold: float = 0.6) -> bool:
    if str(old.get("title", "")).lower() == str(new["title"]).lower():
        return True
    if new.get("category") is None or old.get("category") != new.get("category"):
        return False
    return jaccard(new.get("tags") or [], old.get("tags") or []) >= threshold


def jaccard(left: Sequence[Any], right: Sequence[Any]) -> float:
    """Return the Jaccard similarity of two tag lists (case-insensitive); 0 when both are empty."""
    a = {str(item).lower() for item in left}
    b = {str(item).lower() for item in right}
    return len(a & b) / len(a | b) if a | b else 0.0
