"""Review: a rule in conflict with new evidence, and how it is decided.

Review. A rule goes to `reviewing` when it fails again after being recalled, or when a new
lesson on its condition (the same condition as at least half of its lessons: a file, or a
category and a tag, or tags alike) gives an action that does not restate the rule's. It
stays in recall, the conflicting lesson shown beside it, until `review --accept/--reject` or
its outcomes decide: once `rules.review_days` have passed with `rules.min_support` outcomes
since it went to review, a helped share of at least a half makes it active again and less
makes it retired. A rule decided less than `rules.review_days` ago does not go back to
review: no rule flips within one window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from skillwiki import fsio, secrets
from skillwiki.config import Config
from skillwiki.frontmatter.documents import join
from skillwiki.kinds import Outcome, Status
from skillwiki.memory.confidence import confidence_of
from skillwiki.memory.consolidate import action_similarity, negated, same_condition
from skillwiki.memory.rules import numbers, restoring, superseding, with_lessons, write_rules
from skillwiki.memory.store import Evidence, Lesson, load_lessons
from skillwiki.workspace import Workspace


def _in_window(meta: Mapping[str, Any], key: str, on: date, config: Config) -> bool:
    """Whether `on` is within rules.review_days of the date in `key` (no date: not within)."""
    try:
        since = date.fromisoformat(str(meta.get(key, ""))[:10])
    except ValueError:
        return False
    return (on - since).days < config.rules.review_days


def to_review(
    meta: dict[str, Any], reason: str, on: date, config: Config, conflict: str | None = None
) -> bool:
    """Put a rule's frontmatter in review, with why (and the conflicting lesson); False when
    it was decided within the review window and so stays as it is."""
    if meta.get("status") == Status.REVIEWING:
        if conflict and conflict not in meta.get("conflicts", []):
            meta["conflicts"] = [*meta.get("conflicts", []), conflict]
        return True
    if meta.get("status") != Status.ACTIVE or _in_window(meta, "decided_on", on, config):
        return False
    meta["status"] = Status.REVIEWING.value
    meta["review"] = reason
    meta["reviewing_since"] = on.isoformat()
    if conflict:
        meta["conflicts"] = [conflict]
    return True


# The word similarity at which a lesson's action restates a rule's (see conflicts_with).
RESTATED = 0.5


def conflicts_with(
    new: Lesson, rule: Lesson, lessons: Mapping[str, Lesson], config: Config
) -> bool:
    """Whether a new lesson is on the rule's condition (the same condition as at least half
    of the rule's lessons) with an action that does not restate the rule's.

    Lessons of one cause word one action in many ways, and words alone cannot tell two
    wordings from two actions: so any such lesson that is not a restatement (half its words
    the rule's, and a "never" or "not" on both or neither) puts the rule in review. Either it
    says something else, or the rule did not prevent the failure it records; each is for a
    person, or the rule's outcomes, to decide."""
    members = [lessons[item] for item in rule.evidence_ids if item in lessons]
    threshold = config.rules.similarity
    tied = sum(same_condition(new, member, threshold) for member in members)
    if not members or tied * 2 < len(members):
        return False
    then = rule.text("then")
    return action_similarity(new.rule, then) < RESTATED or negated(new.rule) != negated(then)


def note_conflicts(ws: Workspace, config: Config, lesson_id: str, on: date) -> list[str]:
    """Put in review each active rule that the lesson just recorded contradicts; return their
    ids. Under the workspace lock."""
    changed: list[str] = []
    with fsio.workspace_lock(ws, config.lock_timeout):
        lessons = load_lessons(ws, config)
        new = lessons.get(lesson_id)
        if new is None or new.is_rule or new.status != Status.ACTIVE:
            return []
        items = []
        for rule in lessons.values():
            if not rule.is_rule or rule.status not in (Status.ACTIVE, Status.REVIEWING):
                continue
            if not conflicts_with(new, rule, lessons, config):
                continue
            meta = dict(rule.meta)
            reason = f"lesson {new.id} on the same condition says: {new.rule}"
            if to_review(meta, reason, on, config, conflict=new.id) and meta != rule.meta:
                items.append((rule.path, join(meta, rule.body).encode()))
                changed.append(rule.id)
        if items:
            write_rules(ws, config, items, "rule review")
    return changed


@dataclass(frozen=True)
class AfterOutcome:
    """A rule's frontmatter after an outcome line, whether the outcome put it in review, and
    whether it decided the review (None: not decided), with the lessons it was in conflict
    with (for `settle`)."""

    meta: dict[str, Any]
    flagged: bool
    stands: bool | None
    conflicts: tuple[str, ...]


def after_outcome(
    config: Config,
    rule: Lesson,
    meta: dict[str, Any],
    body_evidence: Sequence[Evidence],
    lessons: Mapping[str, Lesson],
    outcome: str,
    recalled: bool,
    on: date,
) -> AfterOutcome:
    """A rule after an outcome line (its body's evidence now `body_evidence`): in review after
    failing again once recalled; decided by its outcomes once a review window has passed; its
    numbers brought up to date. The caller writes it, then `settle`s a decided review."""
    flagged = False
    stands = None
    conflicts = tuple(rule.strings("conflicts"))
    if outcome == Outcome.FAILED_AGAIN and recalled:
        flagged = to_review(
            meta, f"failed again after being recalled ({on.isoformat()})", on, config
        )
    if meta.get("status") == Status.REVIEWING and not flagged:
        stands = _verdict(meta, body_evidence, on, config)
        if stands is not None:
            meta = _decided(meta, stands, on, "outcomes since the review began")
    updated = Lesson(rule.id, rule.path, meta, rule.body, tuple(body_evidence))
    meta |= numbers(confidence_of(updated, lessons, on, config), on)
    return AfterOutcome(meta, flagged, stands, conflicts)


def _verdict(
    meta: Mapping[str, Any], pieces: Sequence[Evidence], on: date, config: Config
) -> bool | None:
    """What a rule's own outcomes since its review began say, once the window has passed:
    True (it stands), False (retire it), None (not yet)."""
    try:
        since = date.fromisoformat(str(meta.get("reviewing_since", ""))[:10])
    except ValueError:
        return None
    if (on - since).days < config.rules.review_days:
        return None
    recent = [piece for piece in pieces if since <= piece.day <= on]
    if len(recent) < config.rules.min_support:
        return None
    helped = sum(piece.outcome == Outcome.HELPED for piece in recent)
    return helped * 2 >= len(recent)


def _decided(meta: Mapping[str, Any], stands: bool, on: date, by: str) -> dict[str, Any]:
    """A rule's frontmatter once its review is decided: active, or retired."""
    decided = {
        key: value
        for key, value in meta.items()
        if key not in ("review", "reviewing_since", "conflicts")
    }
    decided["status"] = (Status.ACTIVE if stands else Status.RETIRED).value
    decided["decided_on"] = on.isoformat()
    if not stands:
        decided["retired_reason"] = by
    return decided


def decide(
    ws: Workspace, config: Config, rule: Lesson, accept: bool, reason: str | None, on: date
) -> str:
    """review --accept/--reject of a rule (the caller holds the lock), then `settle`: accepted,
    it is active; rejected, it is retired. Returns its status."""
    lessons = load_lessons(ws, config)
    why = " ".join(secrets.redact(reason or "rejected in review")[0].split())
    meta = _decided(rule.meta, accept, on, why)
    meta |= numbers(confidence_of(rule, lessons, on, config), on)
    write_rules(
        ws,
        config,
        [(rule.path, join(meta, rule.body).encode())],
        "review accept" if accept else "review reject",
    )
    settle(ws, config, rule.id, accept, tuple(rule.strings("conflicts")))
    return str(meta["status"])


def settle(
    ws: Workspace, config: Config, rule_id: str, stands: bool, conflicts: Sequence[str]
) -> None:
    """What a decided rule does to its lessons (the caller holds the lock): one that stands
    takes the lessons it was in conflict with into its evidence and stands for all of them
    (each live one superseded by it); a retired one gives its lessons back (active again)."""
    lessons = load_lessons(ws, config)
    rule = lessons[rule_id]
    if not stands:
        items = restoring(rule_id, lessons)
    else:
        ids = list(dict.fromkeys([*rule.evidence_ids, *conflicts]))
        named = [lessons[item] for item in ids if item in lessons and not lessons[item].is_rule]
        meta = dict(rule.meta) | {"evidence": ids}
        body = with_lessons(rule.body, rule.text("when"), rule.text("then"), named)
        live = [lesson for lesson in named if lesson.status in (Status.ACTIVE, Status.CANDIDATE)]
        items = superseding(rule_id, live)
        if (meta, body) != (rule.meta, rule.body):
            items.insert(0, (rule.path, join(meta, body).encode()))
    if items:
        write_rules(ws, config, items, "review settle")


def refresh(ws: Workspace, config: Config, lesson_id: str, on: date) -> None:
    """Bring the numbers of each rule made from the lesson up to date (the caller holds the
    lock, and has just added the lesson's outcome)."""
    lessons = load_lessons(ws, config)
    items = []
    for rule in lessons.values():
        if rule.is_rule and lesson_id in rule.evidence_ids:
            meta = dict(rule.meta) | numbers(confidence_of(rule, lessons, on, config), on)
            if meta != rule.meta:
                items.append((rule.path, join(meta, rule.body).encode()))
    if items:
        write_rules(ws, config, items, "rule confidence")
