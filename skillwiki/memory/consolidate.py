"""Consolidation: from lessons that share a cause to one rule. Finds the groups, drafts each
group's rule from the lessons' own fields, and says when consolidation is due. It proposes
only: a rule is written by record-rule, once a person or an agent agrees (see rules.py).

How a group is formed. Two active lessons share a cause when they name a common file
(`paths`), or have the same category and a tag in common, or their tags are alike, or their
prevention rules are: the Jaccard similarity of their tags, or of their prevention rules'
words, at least `rules.similarity`. A group is a lesson and every lesson that shares a cause
with it, then each other lesson that shares a cause with at least half of those: the lesson
with the most such ties is taken first (the older on a tie), then the next among those left,
while a group still has `rules.min_lessons` lessons. Each lesson is in one group at most;
none is in a group by a chain of lessons alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from skillwiki.config import RulesConfig
from skillwiki.kinds import Scope, Severity, Status, Trigger
from skillwiki.memory.lessons import jaccard
from skillwiki.memory.store import Lesson
from skillwiki.workspace import Workspace

MAX_LINE = 300  # characters of a rule's condition or action: one line
MAX_DRAFT_TAGS = 4
_WORD = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")
# Words that say nothing of a cause or an action.
_STOP = frozenset(
    "a an the and or but if then than that this these those to of in on at by for from with"
    " without into onto before after when while is are be been was were it its it's as not no"
    " do does did done can could should would must may might will every each any all some"
    " use using used make sure always never check verify".split()
)
# A lesson's trigger as a condition's words.
_TRIGGER_WORDS: dict[str, str] = {
    Trigger.REPLAN: "a plan had to be redone",
    Trigger.CONSECUTIVE_TOOL_FAILURES: "tool calls fail in a row",
    Trigger.REPEATED_TOOL_FAILURES: "the same tool call keeps failing",
    Trigger.RETRIES: "a step is retried",
    Trigger.COST_OVERRUN: "a run costs more than planned",
    Trigger.LOW_CONFIDENCE: "the agent is unsure",
    Trigger.REJECTED: "a reviewer rejects the work",
}
_SEVERITY_ORDER = tuple(Severity)


@dataclass(frozen=True)
class RuleInput:
    """A rule to record: its condition and action, the lessons it comes from, and the fields
    it files under. A field left None is taken from the lessons (see `draft`)."""

    when: str
    then: str
    evidence: tuple[str, ...]
    title: str | None = None
    summary: str | None = None
    severity: str | None = None
    scope: str | None = None
    agents: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    category: str | None = None


@lru_cache(maxsize=4096)
def words(text: str) -> frozenset[str]:
    """The words of `text` that can tell two causes or actions apart: lower case, a plural's
    `s` dropped (`tests` is `test`). Kept for the texts seen last: grouping compares every
    pair of lessons."""
    return frozenset(
        _singular(word)
        for word in _WORD.findall(text.casefold())
        if word not in _STOP and len(word) > 1
    )


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


# Words that turn an action into its opposite ("never freeze the clock").
_NEGATIONS = re.compile(r"\b(?:never|not|no|don't|dont|do not|avoid|cannot|can't|stop)\b")


def negated(action: str) -> bool:
    """Whether an action says what not to do."""
    return _NEGATIONS.search(action.casefold().replace("\u2019", "'")) is not None


def files(lesson: Lesson) -> set[str]:
    """The files a lesson names in `paths`, without their fingerprints."""
    return {entry.rpartition("=")[0] or entry for entry in lesson.strings("paths")}


def alike(first: Lesson, second: Lesson, threshold: float) -> bool:
    """Whether two lessons share a cause: the same condition, or prevention rules at least
    `threshold` alike (Jaccard of their words)."""
    if same_condition(first, second, threshold):
        return True
    return action_similarity(first.rule, second.rule) >= threshold


def same_condition(first: Lesson, second: Lesson, threshold: float) -> bool:
    """Whether two lessons are about the same condition: a common file, a category and a tag
    in common, or tags at least `threshold` alike (Jaccard)."""
    if files(first) & files(second):
        return True
    tags = first.strings("tags"), second.strings("tags")
    category = first.text("category").casefold()
    if category and category == second.text("category").casefold() and jaccard(*tags) > 0:
        return True
    return jaccard(*tags) >= threshold


def action_similarity(first: str, second: str) -> float:
    """The Jaccard similarity of two actions' words (0 when either has none)."""
    left, right = words(first), words(second)
    return len(left & right) / len(left | right) if left and right else 0.0


def groups(lessons: Sequence[Lesson], settings: RulesConfig) -> list[list[Lesson]]:
    """The groups of lessons that share a cause (see the module's docstring), largest first,
    each oldest first."""
    ordered = sorted(lessons, key=_age_key)
    ties = {
        lesson.id: {
            other.id
            for other in ordered
            if other.id != lesson.id and alike(lesson, other, settings.similarity)
        }
        for lesson in ordered
    }
    left = {lesson.id for lesson in ordered}
    found: list[list[Lesson]] = []
    while True:
        centre = max(ordered, key=lambda item: _centre_key(item, ties, left), default=None)
        if centre is None or centre.id not in left:
            break
        members = {centre.id} | (ties[centre.id] & left)
        if len(members) < settings.min_lessons:
            break
        # Then each lesson left that shares a cause with at least half of the group.
        members |= {
            lesson.id
            for lesson in ordered
            if lesson.id in left - members and len(ties[lesson.id] & members) * 2 >= len(members)
        }
        found.append([lesson for lesson in ordered if lesson.id in members])
        left -= members
    return found


def _centre_key(lesson: Lesson, ties: dict[str, set[str]], left: set[str]) -> tuple[int, ...]:
    """Which lesson to take as a group's centre: one still left, with the most ties to those
    left, the oldest on a tie (max picks the first of equals in age order)."""
    if lesson.id not in left:
        return (0, 0)
    return (1, len(ties[lesson.id] & left))


def _age_key(lesson: Lesson) -> tuple[date, str]:
    return (lesson.created or date.min, lesson.id)


@dataclass(frozen=True)
class _Common:
    """What most lessons of a group share: tags and category (in at least half), files (in
    two or more), trigger (in at least half)."""

    tags: list[str]
    category: str | None
    files: list[str]
    trigger: str | None

    @classmethod
    def of(cls, lessons: Sequence[Lesson]) -> _Common:
        half = (len(lessons) + 1) // 2
        categories = [[lesson.text("category")] for lesson in lessons]
        triggers = [[lesson.text("trigger")] for lesson in lessons]
        return cls(
            _shared([lesson.strings("tags") for lesson in lessons], half)[:MAX_DRAFT_TAGS],
            next(iter(_shared(categories, half)), None),
            _shared([sorted(files(lesson)) for lesson in lessons], 2)[:3],
            next(iter(_shared(triggers, half)), None),
        )


def draft(lessons: Sequence[Lesson]) -> RuleInput:
    """A rule drafted from the lessons' own fields: as its action the prevention rule most
    typical of them (see `_central_action`), as its condition what most of them share
    (agents, tags, category, files, trigger); the highest severity; targeted at their agents
    when every lesson is."""
    then = _shortened(_central_action(lessons), MAX_LINE)
    common = _Common.of(lessons)
    targeted = all(lesson.text("scope") == Scope.TARGETED for lesson in lessons)
    agents = list(dict.fromkeys(agent for lesson in lessons for agent in lesson.strings("agents")))
    agents = agents if targeted else []
    titles = "; ".join(lesson.title for lesson in lessons)
    return RuleInput(
        when=_shortened(_condition(agents, common), MAX_LINE),
        then=then,
        evidence=tuple(lesson.id for lesson in lessons),
        title=title_for(then),
        summary=_shortened(f"Consolidated from {len(lessons)} lessons: {titles}", 200),
        severity=max((lesson.severity for lesson in lessons), key=_severity_rank),
        scope=(Scope.TARGETED if agents else Scope.GLOBAL).value,
        agents=tuple(agents),
        tags=tuple(common.tags),
        category=common.category,
    )


def title_for(action: str) -> str:
    """A rule's title made from its action: capitalised, without its full stop, shortened."""
    line = " ".join(action.split()).rstrip(".")
    return _shortened(line[:1].upper() + line[1:], 120)


def _central_action(lessons: Sequence[Lesson]) -> str:
    """The prevention rule whose words the others share most: the highest mean share of the
    group's rules holding each of its words (the first such, oldest first). A rule of the
    cause's common words wins over one that names a single case."""
    rules = [lesson.rule for lesson in lessons]
    held = [words(rule) for rule in rules]
    counts = Counter(word for group in held for word in group)

    def typical(index: int) -> float:
        found = held[index]
        return sum(counts[word] for word in found) / len(found) if found else 0.0

    best = max(range(len(rules)), key=typical)
    return rules[best].rstrip(".")


def _shared(lists: Sequence[Sequence[str]], least: int) -> list[str]:
    """The items (case aside, as first spelled) in at least `least` of the lists, the most
    common first."""
    counts: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for items in lists:
        for item in dict.fromkeys(item.casefold() for item in items if item):
            counts[item] += 1
        for item in items:
            spelled.setdefault(item.casefold(), item)
    return [spelled[key] for key, count in counts.most_common() if count >= max(least, 1)]


def _condition(agents: Sequence[str], common: _Common) -> str:
    """A condition in words: who, on what, where, after what."""
    who = " or ".join(agents) if agents else "an agent"
    text = f"{who} works on {', '.join(common.tags) or common.category or 'this'}"
    tags = {tag.casefold() for tag in common.tags}
    if common.category and tags and common.category.casefold() not in tags:
        text += f" ({common.category})"
    if common.files:
        text += f" in {', '.join(common.files)}"
    said = _TRIGGER_WORDS.get(common.trigger) if common.trigger else None
    return f"{text} and {said}" if said else text


def _severity_rank(severity: str) -> int:
    return _SEVERITY_ORDER.index(Severity(severity)) if severity in _SEVERITY_ORDER else 1


def _shortened(text: str, limit: int) -> str:
    """`text` on one line, cut at a word to at most `limit` characters (ending in "…")."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


@dataclass(frozen=True)
class Proposal:
    """A rule maintain proposes: the group's lessons, why they are one, and the draft."""

    lessons: tuple[str, ...]
    reason: str
    draft: RuleInput

    def arguments(self) -> dict[str, Any]:
        """The record-rule fields that record the draft, by the names the MCP tool takes."""
        draft = self.draft
        given: dict[str, Any] = {"when": draft.when, "then": draft.then}
        given["evidence"] = list(draft.evidence)
        for name in ("title", "summary", "severity", "scope", "category"):
            value = getattr(draft, name)
            if value:
                given[name] = value
        if draft.agents:
            given["agent"] = list(draft.agents)
        if draft.tags:
            given["tag"] = list(draft.tags)
        return given

    def command(self) -> list[str]:
        """The `skillwiki record-rule` command line that records the draft."""
        command = ["skillwiki", "record-rule"]
        for name, value in self.arguments().items():
            for item in value if isinstance(value, list) else [value]:
                command += ["--" + name.replace("_", "-"), item]
        return command

    def to_json(self) -> dict[str, Any]:
        return {
            "lessons": list(self.lessons),
            "reason": self.reason,
            "rule": self.arguments(),
            "command": self.command(),
        }


def proposals(
    lessons: Sequence[Lesson], settings: RulesConfig, held: Collection[str] = ()
) -> list[Proposal]:
    """One proposed rule for each group of the active lessons, leaving out rules, lessons of
    an unknown kind and those `held` (the evidence of a rule not retired: a candidate's
    lessons stay active until it is accepted)."""
    pool = [
        lesson
        for lesson in lessons
        if not lesson.is_rule
        and lesson.status == Status.ACTIVE
        and lesson.text("kind") in ("", "lesson")
        and lesson.id not in held
    ]
    found = []
    for group in groups(pool, settings):
        found.append(Proposal(tuple(lesson.id for lesson in group), _why(group), draft(group)))
    return found


def _why(group: Sequence[Lesson]) -> str:
    """How the group is one: what its lessons share."""
    common = _Common.of(group)
    parts = [f"{len(group)} lessons"]
    if common.tags:
        parts.append(f"tags {', '.join(common.tags)}")
    if common.files:
        parts.append(f"files {', '.join(common.files)}")
    if common.category:
        parts.append(f"category {common.category}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Due:
    """Whether consolidation is due, and why: what is new since the last consolidation (the
    last record-rule or maintain --apply in log.md)."""

    due: bool
    reason: str
    since: str | None  # the time of the last consolidation, None if there was none
    new_lessons: int
    feedback: int

    def to_json(self) -> dict[str, Any]:
        return {
            "due": self.due,
            "reason": self.reason,
            "since": self.since,
            "new_lessons": self.new_lessons,
            "feedback": self.feedback,
        }


# The log.md operations that consolidate, and those that count as new evidence since.
_CONSOLIDATED = ("record-rule", "maintain")
_NEW_LESSON = "record-lesson"
_FEEDBACK = "feedback"


def due(ws: Workspace, settings: RulesConfig, on: date, proposed: int) -> Due:
    """Whether consolidation is due on `on`: `rules.due_lessons` lessons recorded or
    `rules.due_feedback` feedback lines since the last consolidation, or `rules.due_days`
    days since it with anything new; and in each case a rule to propose (`proposed`)."""
    since, lessons, feedback, first = _since_last(ws)
    start = since or first
    days = (on - _day(start)).days if start else 0
    reasons = []
    if lessons >= settings.due_lessons:
        reasons.append(f"{lessons} lessons recorded")
    if feedback >= settings.due_feedback:
        reasons.append(f"{feedback} feedback lines")
    if (lessons or feedback) and days >= settings.due_days:
        reasons.append(f"{days} days")
    when = "since the last consolidation" if since else "and no consolidation yet"
    if not reasons:
        reason = f"{lessons} lessons and {feedback} feedback lines {when}: not due"
    elif not proposed:
        reason = f"{' and '.join(reasons)} {when}, but no lessons share a cause"
    else:
        reason = f"{' and '.join(reasons)} {when}; {proposed} rule(s) to propose"
    return Due(bool(reasons) and proposed > 0, reason, since, lessons, feedback)


def _day(stamp: str) -> date:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).date()


def _since_last(ws: Workspace) -> tuple[str | None, int, int, str | None]:
    """From log.md, newest first: the time of the last consolidation (None: none), the lessons
    recorded and feedback lines since, and the time of the first line read."""
    lessons = feedback = 0
    first: str | None = None
    for stamp, operation in _log_lines_newest_first(ws):
        if operation in _CONSOLIDATED:
            return stamp, lessons, feedback, first
        lessons += operation == _NEW_LESSON
        feedback += operation == _FEEDBACK
        first = stamp
    return None, lessons, feedback, first


_LOG_LINE = re.compile(r"^- (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) (\S+)")
_BLOCK = 64 * 1024


def _log_lines_newest_first(ws: Workspace) -> Iterator[tuple[str, str]]:
    """Each log.md line's time and operation, from the end: read a block at a time, so a long
    log is read only as far back as the last consolidation."""
    try:
        handle = ws.log_md.open("rb")
    except OSError:
        return
    with handle:
        end = handle.seek(0, 2)
        rest = b""
        while end > 0:
            start = max(0, end - _BLOCK)
            handle.seek(start)
            chunk = handle.read(end - start) + rest
            end = start
            lines = chunk.split(b"\n")
            rest = lines.pop(0) if start > 0 else b""
            for raw in reversed(lines):
                match = _LOG_LINE.match(raw.decode("utf-8", "replace"))
                if match:
                    yield match.group(1), match.group(2)
