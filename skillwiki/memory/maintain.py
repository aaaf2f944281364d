"""maintain: the lessons' lifecycle (archive the unused, merge near-duplicates, name the proven)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from skillwiki import fsio
from skillwiki.config import Config, MaintainConfig
from skillwiki.kinds import RETIRED, Severity, Status
from skillwiki.memory import usage
from skillwiki.memory.consolidate import Due, Proposal, due, proposals
from skillwiki.memory.lessons import jaccard
from skillwiki.memory.store import Lesson, load_lessons, rewrite
from skillwiki.workspace import Workspace

ACTIVE = Status.ACTIVE
MINOR = (Severity.LOW, Severity.MEDIUM)  # archived when unused
SEVERE = (Severity.HIGH, Severity.CRITICAL)  # promoted when proven


@dataclass(frozen=True)
class Action:
    """One planned change: archive, supersede, or promote (listed only)."""

    kind: str  # "archive" | "supersede" | "promote"
    id: str
    reason: str
    into: str | None = None  # supersede: the newer lesson


@dataclass(frozen=True)
class Plan:
    """What maintain would do (`actions`), the rules it proposes from lessons that share a
    cause (recorded only by record-rule), and whether consolidation is due."""

    actions: list[Action]
    proposals: list[Proposal]
    due: Due


def plan(ws: Workspace, config: Config, on: date) -> list[Action]:
    """Work out what maintain would do; changes nothing."""
    return full_plan(ws, config, on).actions


def full_plan(ws: Workspace, config: Config, on: date) -> Plan:
    """The actions, the proposed rules and whether consolidation is due; changes nothing.
    A lesson in a proposed rule's group is not also superseded pairwise: the rule is the
    merge."""
    settings = config.maintain
    everything = load_lessons(ws, config).values()
    lessons = [lesson for lesson in everything if lesson.status == ACTIVE]
    held = _held(everything, on, config.rules.review_days)
    hits = usage.load(ws, on)
    archive = _archives(
        [lesson for lesson in lessons if not lesson.is_rule], hits, on, settings.archive_after_days
    )
    archived = {action.id for action in archive}
    ordered = sorted(
        (lesson for lesson in lessons if lesson.id not in archived),
        key=lambda lesson: (lesson.created or date.min, lesson.id),
    )
    proposed = proposals(ordered, config.rules, held)
    grouped = {lesson_id for proposal in proposed for lesson_id in proposal.lessons}
    single = [lesson for lesson in ordered if lesson.id not in grouped and not lesson.is_rule]
    actions = [
        *archive,
        *_supersessions(single, settings.dedupe_jaccard),
        *_promotions(ordered, hits, on, settings),
    ]
    return Plan(actions, proposed, due(ws, config.rules, on, len(proposed)))


def _held(everything: Iterable[Lesson], on: date, window: int) -> set[str]:
    """The lessons no rule is proposed from: those of each rule that `_holds` them."""
    return {
        lesson_id
        for rule in everything
        if rule.is_rule and _holds(rule, on, window)
        for lesson_id in rule.evidence_ids
    }


def _holds(rule: Lesson, on: date, window: int) -> bool:
    """Whether a rule keeps its lessons from being proposed again: while it is not retired,
    and for a review window after it was (the same group is not proposed the day after it
    was rejected)."""
    if rule.status not in RETIRED:
        return True
    try:
        decided = date.fromisoformat(str(rule.meta.get("decided_on", ""))[:10])
    except ValueError:
        return False
    return (on - decided).days < window


def _archives(
    lessons: list[Lesson], hits: dict[str, usage.Usage], on: date, after_days: int
) -> list[Action]:
    """Lessons of low or medium severity that recall has not printed for `after_days`."""
    actions = []
    for lesson in lessons:
        last = _last_hit(lesson, hits)
        idle = (on - last).days if last else None
        if lesson.severity in MINOR and idle is not None and idle >= after_days:
            reason = f"{lesson.severity}, no recall for {idle} days"
            actions.append(Action("archive", lesson.id, reason))
    return actions


def _supersessions(ordered: list[Lesson], threshold: float) -> list[Action]:
    """Each lesson superseded by the first newer one of its category with tags this alike."""
    actions = []
    superseded: set[str] = set()
    for index, older in enumerate(ordered):
        category = older.text("category")
        if not category:
            continue
        for newer in ordered[index + 1 :]:
            if newer.text("category") != category or newer.id in superseded:
                continue
            similarity = jaccard(older.strings("tags"), newer.strings("tags"))
            if similarity > threshold:
                reason = f"category {category!r}, tag similarity {similarity:.2f}"
                actions.append(Action("supersede", older.id, reason, into=newer.id))
                superseded.add(older.id)
                break
    return actions


def _promotions(
    ordered: list[Lesson], hits: dict[str, usage.Usage], on: date, settings: MaintainConfig
) -> list[Action]:
    """Severe lessons recalled often over a long time: candidates for a documented practice."""
    actions = []
    for lesson in ordered:
        count = hits.get(lesson.id, usage.NONE).count
        age = (on - lesson.created).days if lesson.created else 0
        if (
            count > settings.promote_hits
            and lesson.severity in SEVERE
            and age > settings.promote_min_age_days
        ):
            reason = f"recalled {count} times over {age} days: make this a documented practice"
            actions.append(Action("promote", lesson.id, reason))
    return actions


def _last_hit(lesson: Lesson, hits: dict[str, usage.Usage]) -> date | None:
    last = hits.get(lesson.id, usage.NONE).last
    if last:
        try:
            return date.fromisoformat(last[:10])
        except ValueError:
            pass
    return lesson.created


@dataclass(frozen=True)
class Applied:
    done: list[Action]  # the actions carried out
    rolled_up: int  # lessons whose recalls on this clone went into usage.log


def apply(ws: Workspace, config: Config, actions: list[Action]) -> Applied:
    """Under the lock: roll this clone's recall hits up into usage.log (committed, so that the
    next clone's maintain sees them), then carry out the archive and supersede actions."""
    done = []
    with fsio.workspace_lock(ws, config.lock_timeout):
        rolled = usage.roll_up(ws)
        if rolled:
            fsio.append_log(ws, "maintain usage", f"{rolled} lessons -> usage.log")
        lessons = load_lessons(ws, config)
        for action in actions:
            lesson = lessons.get(action.id)
            if lesson is None or lesson.status != ACTIVE:
                continue
            meta = dict(lesson.meta)
            if action.kind == "archive":
                meta["status"] = Status.ARCHIVED.value
                meta["archived_reason"] = action.reason
                rewrite(ws, config, lesson, meta, lesson.body, "maintain archive")
            elif action.kind == "supersede" and action.into in lessons:
                _merge_into(ws, config, lessons[action.into], lesson)
                lessons = load_lessons(ws, config)
                meta["status"] = Status.SUPERSEDED.value
                meta["superseded_by"] = action.into
                rewrite(ws, config, lesson, meta, lesson.body, "maintain supersede")
            else:
                continue
            done.append(action)
    return Applied(done, rolled)


def _merge_into(ws: Workspace, config: Config, newer: Lesson, older: Lesson) -> None:
    meta = dict(newer.meta)
    for key in ("tags", "agents"):
        merged = list(dict.fromkeys([*newer.strings(key), *older.strings(key)]))
        if merged != newer.strings(key):
            meta[key] = merged
    if meta != newer.meta:
        rewrite(ws, config, newer, meta, newer.body, "maintain merge")
