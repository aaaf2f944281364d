"""Lessons: the four-section template, recording one safely, and what makes two the same."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillwiki import clock, fsio, secrets
from skillwiki.config import Config
from skillwiki.errors import InputError
from skillwiki.fingerprint import expect, fingerprint
from skillwiki.frontmatter.documents import MAX_SUMMARY, MAX_TAGS, MAX_TITLE, join
from skillwiki.kinds import Scope, Severity, Status, Trigger, values
from skillwiki.memory.store import LESSONS_DIR, load_lessons
from skillwiki.names import folded, slugify
from skillwiki.workspace import Workspace

SECTIONS = ("What Happened", "Root Cause", "Optimization", "Next Time")
# The record-lesson flag (and, with `_` for `-`, the MCP argument) that gives each section.
SECTION_FLAGS = {
    "What Happened": "--what-happened",
    "Root Cause": "--root-cause",
    "Optimization": "--optimization",
    "Next Time": "--next-time",
}
# Guidance text that record-lesson puts into sections it was not given; lint reads it as
# "not yet filled in". Each holds PLACEHOLDER: a section that does is not written yet.
PLACEHOLDER = "Not yet filled in:"
TEMPLATE_TEXT = {
    "Root Cause": f"_{PLACEHOLDER} why did it happen? Name the cause, not the symptom._",
    "Optimization": f"_{PLACEHOLDER} what was changed so that it cannot happen again?_",
    "Next Time": f"- _{PLACEHOLDER} the check to make before this happens again._",
}


@dataclass(frozen=True)
class LessonInput:
    title: str
    summary: str
    body: str | None = None  # What Happened, or a whole body with the sections' headings
    what_happened: str | None = None
    root_cause: str | None = None
    optimization: str | None = None
    next_time: str | None = None
    trigger: str = Trigger.MANUAL
    severity: str = Severity.MEDIUM
    scope: str | None = None
    agents: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    category: str | None = None
    prevention_rule: str | None = None
    paths: tuple[str, ...] = ()

    def given_sections(self) -> dict[str, str]:
        """The sections given by their own flags (blank ones are not given), by name."""
        texts = (self.what_happened, self.root_cause, self.optimization, self.next_time)
        given = zip(SECTIONS, texts, strict=True)
        return {name: text.strip() for name, text in given if text and text.strip()}


def lesson_input(
    title: str,
    summary: str,
    *,
    body: str | None = None,
    what_happened: str | None = None,
    root_cause: str | None = None,
    optimization: str | None = None,
    next_time: str | None = None,
    trigger: str = Trigger.MANUAL,
    severity: str = Severity.MEDIUM,
    scope: str | None = None,
    agent: Sequence[str] | None = None,
    tag: Sequence[str] | None = None,
    category: str | None = None,
    prevention_rule: str | None = None,
    path: Sequence[str] | None = None,
) -> LessonInput:
    """Build the lesson from record-lesson's arguments, as the CLI and the MCP tool name them."""
    return LessonInput(
        title=title,
        summary=summary,
        body=body,
        what_happened=what_happened,
        root_cause=root_cause,
        optimization=optimization,
        next_time=next_time,
        trigger=str(trigger),  # an enum member as the plain string written in frontmatter
        severity=str(severity),
        scope=None if scope is None else str(scope),
        agents=tuple(agent or ()),
        tags=tuple(tag or ()),
        category=category,
        prevention_rule=prevention_rule,
        paths=tuple(path or ()),
    )


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
    template's guidance text (any of it), and a prevention rule (else recall would show its
    summary, the failure itself, as the thing to do)."""
    found: list[str] = []
    for title, text in _cut(body, _headings(body))[1]:
        name = _section_name(title) or title
        if PLACEHOLDER in text and name not in found:
            found.append(name)
    if not (prevention_rule or "").strip():
        found.append("prevention rule")
    return found


def sections(body: str) -> dict[str, str]:
    """Return the text under each `## ` heading of a lesson body (the first of each name)."""
    found: dict[str, str] = {}
    for title, text in _cut(body, _headings(body))[1]:
        found.setdefault(title, text)
    return found


def _headings(body: str) -> list[tuple[str, int, int]]:
    """Each level-2 heading of the body's own blocks: its title, its first line and the line
    after it (0-based). Read by the Markdown reader: a `## ` line in a code fence is code,
    one in a quote or a list item is theirs, and a setext heading spans two lines."""
    from skillwiki.markdown import parser, plain_text, trailing_attrs

    tokens = parser().parse(_lines(body), {"mdx": False})
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2" and token.level == 0 and token.map:
            title = plain_text(tokens[index + 1].children or [])
            attrs = trailing_attrs(title)
            start, after = token.map
            found.append((title if attrs is None else attrs[0], start, after))
    return found


def _cut(body: str, headings: list[tuple[str, int, int]]) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first of `headings`, and each one's title with the text under it
    up to the next one."""
    lines = _lines(body).split("\n")
    preface = "\n".join(lines[: headings[0][1] if headings else len(lines)]).strip()
    parts = []
    for index, (title, _, after) in enumerate(headings):
        end = headings[index + 1][1] if index + 1 < len(headings) else len(lines)
        parts.append((title, "\n".join(lines[after:end]).strip()))
    return preface, parts


def _lines(body: str) -> str:
    """The body with the line ends the Markdown reader counts lines by."""
    return body.replace("\r\n", "\n").replace("\r", "\n")


def _section_name(title: str) -> str | None:
    """The lesson section a heading names (case and spacing aside), else None."""
    wanted = " ".join(title.split()).casefold()
    return next((name for name in SECTIONS if name.casefold() == wanted), None)


def build_body(lesson: LessonInput) -> str:
    """Return the four-section body: each section from its flag, else from the body's heading
    of that name (text before the first goes to What Happened), else the template's guidance.

    A body that is the four sections, in order and each with text, is kept as written. A
    body that names a section twice, or one that its flag gives too, is an InputError.
    """
    given = (lesson.body or "").strip()
    flags = lesson.given_sections()
    # Cut at the lesson's own headings, in any case: other headings stay in their section.
    preface, parts = _cut(given, [head for head in _headings(given) if _section_name(head[0])])
    written = _written(parts, flags)
    if not preface and [title for title, _ in parts] == list(SECTIONS) and all(written.values()):
        return given + "\n"
    if preface and "What Happened" in flags:
        before = " before its first section" if parts else ""
        raise InputError(
            None,
            f"What Happened is given twice, by --what-happened and by --body's text{before}; "
            "give it once",
        )
    texts = _section_texts(lesson, preface, written, flags)
    return "\n\n".join(f"## {name}\n\n{texts[name]}" for name in SECTIONS) + "\n"


def _section_texts(
    lesson: LessonInput, preface: str, written: dict[str, str], flags: dict[str, str]
) -> dict[str, str]:
    """Each section's text: its flag's, else the body's, else the template's guidance (What
    Happened: the body's text before its sections, else the summary; Next Time: the
    prevention rule as a list item). What Happened not written under its own heading ends
    with the trigger."""
    happened = "\n\n".join(text for text in (preface, written.get("What Happened")) if text)
    rule = (lesson.prevention_rule or "").strip()
    texts = {
        "What Happened": happened or lesson.summary.strip(),
        "Root Cause": TEMPLATE_TEXT["Root Cause"],
        "Optimization": TEMPLATE_TEXT["Optimization"],
        "Next Time": f"- {rule}" if rule else TEMPLATE_TEXT["Next Time"],
    }
    texts |= {name: text for name, text in written.items() if text} | flags
    if "What Happened" not in written:  # written by the body under its heading: kept as is
        texts["What Happened"] += f"\n\nTrigger: {lesson.trigger}."
    return texts


def _written(parts: list[tuple[str, str]], flags: dict[str, str]) -> dict[str, str]:
    """The body's sections by their names as SECTIONS spells them; a section named twice,
    or given by its flag too, is an InputError naming both."""
    written: dict[str, str] = {}
    for title, text in parts:
        name = _section_name(title) or title
        if name in written:
            raise InputError(None, f"--body has '## {name}' twice; give each section once")
        if name in flags:
            raise InputError(
                None,
                f"{name} is given twice, by {SECTION_FLAGS[name]} and by --body's "
                f"'## {name}'; give it once",
            )
        written[name] = text
    return written


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
    refuse_blank(("--tag", lesson.tags), ("--agent", lesson.agents), ("--path", lesson.paths))
    if lesson.scope == Scope.TARGETED and not lesson.agents:
        raise InputError(None, "--scope targeted needs at least one --agent")


def refuse_blank(*given: tuple[str, Sequence[str] | None]) -> None:
    """Refuse a repeatable option given a blank value: a tag, agent or path nothing names."""
    for option, items in given:
        if any(not item.strip() for item in items or ()):
            raise InputError(None, f"{option} must not be empty")


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
        folder = ws.raw / LESSONS_DIR
        if os.path.lexists(folder) and not folder.is_dir():
            raise InputError(
                f".wiki/raw/{LESSONS_DIR}", "is not a folder; move it away to record lessons"
            )
        existing = load_lessons(ws, config)
        for lesson_id, known in existing.items():
            same_title = known.meta.get("title") == " ".join(lesson.title.split())
            if same_title and known.body.strip() == body.strip():
                rel = ws.rel(known.path)
                return Recorded(lesson_id, rel, known.status, False, [], redacted)
        lesson_id = free_id(
            existing.keys() | taken_ids(folder), f"{created}-{slugify(lesson.title)}"
        )
        missing = unfinished(body, lesson.prevention_rule)
        waits = config.lessons.require_review or bool(missing)
        status = (Status.CANDIDATE if waits else Status.ACTIVE).value
        meta = _meta(lesson, lesson_id, status, created, paths)
        similar = [  # lessons only: a rule shares its lessons' category and tags by design
            other
            for other, known in existing.items()
            if not known.is_rule and _similar(meta, known.meta)
        ]
        if dedupe and similar:
            first = existing[similar[0]]
            return Recorded(first.id, ws.rel(first.path), first.status, False, similar, redacted)
        target = folder / f"{lesson_id}.md"
        line = f"{lesson_id} -> raw/{LESSONS_DIR}/{lesson_id}.md"
        data = join(meta, body).encode()
        check_compiles(config, f"{LESSONS_DIR}/{lesson_id}.md", data)
        fsio.write_many(  # logged before it is in place: no lesson without its log line
            [(target, data)],
            only_changed=False,
            before_rename=lambda _: fsio.append_log(ws, "record-lesson", line),
        )
    return Recorded(lesson_id, ws.rel(target), status, True, similar, redacted, missing)


def check_compiles(config: Config, raw_rel: str, data: bytes) -> None:
    """Refuse a lesson that compile would refuse (a NUL byte, over max_file_bytes): written,
    it would make every later compile fail. Asked of compile itself, before anything is
    written, for the CLI and the MCP tool alike."""
    from skillwiki.compiler import refusal_of

    problem = refusal_of(config, raw_rel, data)
    if problem is not None:
        raise InputError(None, f"the lesson cannot be recorded, compile would refuse it: {problem}")


def taken_ids(folder: Path) -> set[str]:
    """The lesson ids no new lesson may have: of every name in raw/lessons/ (a hand-edited
    lesson whose frontmatter no longer parses, a file without `.md` whose article would be
    `<id>.md`), folded as a file system that ignores case folds it."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {name[:-3] if name.endswith(".md") else name for name in map(folded, names)}


class Redacting:
    """Redacts secrets from text after text (None stays None), keeping the kinds it found."""

    def __init__(self) -> None:
        self._kinds: set[str] = set()

    def __call__(self, text: str | None) -> str | None:
        if text is None:
            return None
        cleaned, found = secrets.redact(text)
        self._kinds.update(found)
        return cleaned

    @property
    def kinds(self) -> list[str]:
        """The kinds of secret redacted so far, sorted."""
        return sorted(self._kinds)


def _redacted(lesson: LessonInput) -> tuple[LessonInput, list[str]]:
    clean = Redacting()
    result = replace(
        lesson,
        title=clean(lesson.title) or "",
        summary=clean(lesson.summary) or "",
        body=clean(lesson.body),
        what_happened=clean(lesson.what_happened),
        root_cause=clean(lesson.root_cause),
        optimization=clean(lesson.optimization),
        next_time=clean(lesson.next_time),
        agents=tuple(clean(agent) or "" for agent in lesson.agents),
        tags=tuple(clean(tag) or "" for tag in lesson.tags),
        category=clean(lesson.category),
        prevention_rule=clean(lesson.prevention_rule),
    )
    return result, clean.kinds


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


def free_id(existing: Collection[str], base: str) -> str:
    """`base`, or `base-2`, `base-3`...: the first that no lesson file has (a hand-edited one
    whose frontmatter no longer parses included: it is never written over), names compared
    folded (`Retry.md` and `retry.md` are one file on macOS)."""
    taken = {folded(name) for name in existing}
    if folded(base) not in taken:
        return base
    number = 2
    while folded(f"{base}-{number}") in taken:
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
    a, b = {str(item).lower() for item in left}, {str(item).lower() for item in right}
    return len(a & b) / len(a | b) if a | b else 0.0
