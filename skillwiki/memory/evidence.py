"""What the memory loop learns of a lesson after it is recorded: evidence and confidence,
and review (status changes made by a person)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from skillwiki import clock, fsio
from skillwiki.config import Config
from skillwiki.errors import InputError
from skillwiki.fingerprint import expect, fingerprint
from skillwiki.kinds import Outcome, Status, values
from skillwiki.memory import usage
from skillwiki.memory.confidence import dated, weighted
from skillwiki.memory.lessons import unfinished
from skillwiki.memory.store import (
    EVIDENCE_HEADING,
    Evidence,
    Lesson,
    find,
    load_lessons,
    parse_evidence,
    rewrite,
)
from skillwiki.workspace import Workspace


def today() -> date:
    return clock.today()


def confidence(evidence: tuple[Evidence, ...], on: date, half_life_days: float) -> float:
    """(weighted helped + 1) / (weighted total + 2), each piece weighted 0.5^(age / half-life)."""
    helped, total = weighted(evidence, on, half_life_days)
    return (helped + 1.0) / (total + 2.0)


MUTE_AFTER = 3  # pieces of evidence before low confidence mutes a lesson


def mute_reason(lesson: Lesson, config: Config, on: date) -> str | None:
    """Say why evidence mutes the lesson (low confidence after enough evidence), or None."""
    value = confidence(lesson.evidence, on, config.recall.half_life_days)
    pieces = len(dated(lesson.evidence, on))
    if pieces >= MUTE_AFTER and value < config.recall.min_confidence:
        return (
            f"low confidence {value:.2f} after {pieces} pieces of evidence "
            f"(recall.min_confidence {config.recall.min_confidence})"
        )
    return None


@dataclass(frozen=True)
class FeedbackResult:
    id: str
    outcome: str
    confidence: float
    evidence: int
    flagged: bool  # a lesson flagged for review, or a rule put in review
    fingerprint: str  # of the lesson's raw file now: what --expect-fingerprint compares
    status: str  # the lesson's or rule's status now
    decided: bool = False  # this outcome decided a rule's review (now active or retired)


def feedback(
    ws: Workspace,
    config: Config,
    lesson_id: str,
    outcome: str,
    note: str | None,
    on: date,
    expected: str | None = None,
) -> FeedbackResult:
    """Append a dated evidence line to the lesson; failed-again after a recall flags it."""
    if outcome not in values(Outcome):
        raise InputError(None, f"--outcome {outcome!r} is not one of {', '.join(Outcome)}")
    from skillwiki.secrets import redact

    clean = " ".join(redact(note)[0].split()) if note else ""
    from skillwiki.memory import review

    with fsio.workspace_lock(ws, config.lock_timeout):
        lessons = load_lessons(ws, config)
        lesson = find(ws, config, lesson_id, lessons)
        expect(lesson.path, expected, ws.rel(lesson.path))
        line = f"- {on.isoformat()} {outcome}" + (f": {clean}" if clean else "")
        body = add_evidence(lesson.body, line)
        evidence = parse_evidence(body)
        meta = dict(lesson.meta)
        recalled = usage.load(ws, on).get(lesson_id, usage.NONE).count > 0
        settled = None
        if lesson.is_rule:
            settled = review.after_outcome(
                config, lesson, meta, evidence, lessons, outcome, recalled, on
            )
            meta, flagged = settled.meta, settled.flagged
            value = float(meta["confidence"])
        else:
            flagged = outcome == Outcome.FAILED_AGAIN and recalled
            if flagged:
                meta["review"] = f"failed again after being recalled ({on.isoformat()})"
            value = round(confidence(evidence, on, config.recall.half_life_days), 4)
        rewrite(ws, config, lesson, meta, body, f"feedback {outcome}")
        if settled is not None and settled.stands is not None:
            review.settle(ws, config, lesson_id, settled.stands, settled.conflicts)
        if not lesson.is_rule:
            review.refresh(ws, config, lesson_id, on)
    current = fingerprint(lesson.path.read_bytes(), config.fingerprint)
    status = str(meta.get("status") or Status.ACTIVE)
    decided = settled is not None and settled.stands is not None
    return FeedbackResult(
        lesson_id, outcome, value, len(evidence), flagged, current, status, decided
    )


def add_evidence(body: str, line: str) -> str:
    """Add a line to the `## Evidence` section, creating it at the end if needed."""
    lines = body.rstrip("\n").split("\n")
    try:
        start = next(n for n, text in enumerate(lines) if text.strip() == EVIDENCE_HEADING)
    except StopIteration:
        return "\n".join([*lines, "", EVIDENCE_HEADING, "", line]) + "\n"
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("## ")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return "\n".join([*lines[:end], line, *lines[end:]]) + "\n"


@dataclass(frozen=True)
class Pending:
    """A lesson that waits for a person: a candidate, or one flagged for review."""

    id: str
    title: str
    severity: str
    status: str
    age_days: int | None
    evidence: int
    reason: str


def pending_review(ws: Workspace, config: Config, on: date) -> list[Pending]:
    found = []
    for lesson in load_lessons(ws, config).values():
        flag = lesson.text("review")
        if lesson.status not in (Status.CANDIDATE, Status.REVIEWING) and not flag:
            continue
        age = (on - lesson.created).days if lesson.created else None
        missing = [] if lesson.is_rule else unfinished(lesson.body, lesson.text("prevention_rule"))
        kind = f"rule from {len(lesson.evidence_ids)} lessons" if lesson.is_rule else "lesson"
        reason = flag or (
            f"unfinished: {', '.join(missing)}" if missing else f"new {kind}, waiting for review"
        )
        found.append(
            Pending(
                lesson.id,
                lesson.title,
                lesson.severity,
                lesson.status,
                age,
                len(lesson.evidence),
                reason,
            )
        )
    return found


def decide(ws: Workspace, config: Config, lesson_id: str, accept: bool, reason: str | None) -> str:
    """Accept (-> active) or reject (-> archived, with the reason) a lesson; return its status."""
    with fsio.workspace_lock(ws, config.lock_timeout):
        lesson = find(ws, config, lesson_id)
        if lesson.is_rule:
            from skillwiki.memory import review

            return review.decide(ws, config, lesson, accept, reason, today())
        missing = unfinished(lesson.body, lesson.text("prevention_rule")) if accept else []
        if missing:  # recall would show a placeholder, or the failure itself, as the rule
            raise InputError(
                ws.rel(lesson.path),
                f"cannot be accepted while unfinished: {', '.join(missing)}; fill it in first",
            )
        meta = dict(lesson.meta)
        meta.pop("review", None)
        meta["status"] = (Status.ACTIVE if accept else Status.ARCHIVED).value
        if not accept:
            from skillwiki.secrets import redact

            meta["archived_reason"] = " ".join(redact(reason or "rejected in review")[0].split())
        rewrite(
            ws, config, lesson, meta, lesson.body, "review accept" if accept else "review reject"
        )
    return str(meta["status"])
