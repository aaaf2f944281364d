"""suggest: read an agent run's feedback and say whether a lesson should be proposed (SPEC 7)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from skillwiki.config import SuggestConfig
from skillwiki.errors import InputError
from skillwiki.kinds import Severity, Trigger
from skillwiki.memory import clients
from skillwiki.memory.lessons import TEMPLATE_TEXT, LessonInput, build_body
from skillwiki.secrets import redact

SUMMARY_LIMIT = 180
MAX_SUMMARIES = 3
MAX_TOOL_CALLS = 10_000
SEVERITY = {
    Trigger.REPLAN: Severity.MEDIUM,
    Trigger.CONSECUTIVE_TOOL_FAILURES: Severity.HIGH,
    Trigger.REPEATED_TOOL_FAILURES: Severity.HIGH,
    Trigger.RETRIES: Severity.MEDIUM,
    Trigger.COST_OVERRUN: Severity.MEDIUM,
    Trigger.LOW_CONFIDENCE: Severity.LOW,
    Trigger.REJECTED: Severity.MEDIUM,
}
_NUMBERS = ("replans", "max_consecutive_tool_failures", "max_repeated_tool_failures", "retries")
_FLOATS = ("cost_usd", "max_cost_usd", "confidence")
FEEDBACK_KEYS = frozenset({*_NUMBERS, *_FLOATS, "task", "agent", "tool_calls", "rejected"})
Number = int | float


@dataclass(frozen=True)
class ToolCall:
    tool: str
    success: bool
    error: str  # empty when none was given


@dataclass(frozen=True)
class Run:
    """An agent run's feedback, checked: what suggest reads."""

    task: str = ""
    agent: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    replans: int = 0
    retries: int = 0
    # Given by the agent, or else counted from tool_calls.
    max_consecutive_tool_failures: int | None = None
    max_repeated_tool_failures: int | None = None
    cost_usd: Number | None = None
    max_cost_usd: Number | None = None
    confidence: Number | None = None
    rejected: bool = False

    @property
    def failed(self) -> list[ToolCall]:
        return [call for call in self.tool_calls if not call.success]

    @property
    def consecutive_failures(self) -> int:
        if self.max_consecutive_tool_failures is not None:
            return self.max_consecutive_tool_failures
        longest = run = 0
        for call in self.tool_calls:
            run = 0 if call.success else run + 1
            longest = max(longest, run)
        return longest

    @property
    def repeated_failures(self) -> int:
        if self.max_repeated_tool_failures is not None:
            return self.max_repeated_tool_failures
        keys = Counter((call.tool, call.error[:80]) for call in self.failed)
        return max(keys.values(), default=0)


@dataclass(frozen=True)
class Proposal:
    """The lesson suggest proposes: what it says of the run, and `lesson`, the record-lesson
    fields that record it (each face renders them: the CLI as a command line)."""

    trigger: Trigger
    replan_count: int
    failed_tool_count: int
    failed_tools: list[str]
    error_summaries: list[str]
    proposed_title: str
    proposed_summary: str
    proposed_lesson: str
    proposed_prevention_rule: str  # a draft, made from the failure: check it before recording
    to_fill_in: list[str]  # what the agent (with the user) must write before the lesson counts
    lesson: LessonInput


def parse(text: str, where: str) -> Run:
    """Parse and check the feedback JSON; anything malformed is an InputError naming it."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(where, f"not valid JSON ({exc}); pass the run's feedback object") from None
    except RecursionError:
        raise InputError(where, "nested too deep to be a run's feedback object") from None
    return read_run(data, where)


def read_run(data: object, where: str) -> Run:
    """Check a feedback object and read it into a Run."""
    if not isinstance(data, dict):
        raise InputError(where, "the feedback must be a JSON object")
    if clients.is_hook_payload(data):
        data = clients.feedback_of(data, where, MAX_TOOL_CALLS)
    elif data and not data.keys() & FEEDBACK_KEYS:
        raise InputError(
            where,
            f"no feedback field in it ({', '.join(sorted(data)[:5])}); expected some of "
            f"{', '.join(sorted(FEEDBACK_KEYS))}, or a Claude Code, Codex or Cursor hook payload",
        )
    calls = data.get("tool_calls", [])
    problem = _scalar_problem(data) or _calls_problem(calls)
    if problem:
        raise InputError(where, problem)
    return Run(
        task=data.get("task") or "",
        agent=data.get("agent") or "",
        tool_calls=tuple(  # a call that reports an error failed, unless it says otherwise
            ToolCall(
                call.get("tool", ""),
                call.get("success", not call.get("error")),
                call.get("error") or "",
            )
            for call in calls
        ),
        replans=data.get("replans", 0),
        retries=data.get("retries", 0),
        max_consecutive_tool_failures=data.get("max_consecutive_tool_failures"),
        max_repeated_tool_failures=data.get("max_repeated_tool_failures"),
        cost_usd=data.get("cost_usd"),
        max_cost_usd=data.get("max_cost_usd"),
        confidence=data.get("confidence"),
        rejected=data.get("rejected", False),
    )


def _scalar_problem(data: dict[str, Any]) -> str | None:
    for key in _NUMBERS:
        value = data.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"'{key}' must be a whole number of 0 or more"
    for key in _FLOATS:
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            return f"'{key}' must be a number"
    for key in ("task", "agent"):
        if not isinstance(data.get(key, ""), str):
            return f"'{key}' must be a string"
    if not isinstance(data.get("rejected", False), bool):
        return "'rejected' must be true or false"
    return None


def _calls_problem(calls: Any) -> str | None:
    if not isinstance(calls, list):
        return "'tool_calls' must be a list"
    if len(calls) > MAX_TOOL_CALLS:
        return f"'tool_calls' has {len(calls)} entries; at most {MAX_TOOL_CALLS}"
    for number, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("tool", ""), str):
            return f"tool_calls[{number}] must be an object with a string 'tool'"
        if not isinstance(call.get("success", True), bool):
            return f"tool_calls[{number}].success must be true or false"
        if not isinstance(call.get("error") or "", str):
            return f"tool_calls[{number}].error must be a string"
    return None


def trigger_of(run: Run, config: SuggestConfig) -> Trigger | None:
    """Return the first trigger that holds, in SPEC order, or None."""
    cost, budget, confidence = run.cost_usd, run.max_cost_usd, run.confidence
    consecutive = run.consecutive_failures
    checks = (
        (Trigger.REPLAN, run.replans >= config.replans),
        (Trigger.CONSECUTIVE_TOOL_FAILURES, consecutive >= config.consecutive_failures),
        (Trigger.REPEATED_TOOL_FAILURES, run.repeated_failures >= config.repeated_failures),
        (Trigger.RETRIES, run.retries >= config.retries),
        (
            Trigger.COST_OVERRUN,
            cost is not None and budget is not None and cost > config.cost_factor * budget,
        ),
        (
            Trigger.LOW_CONFIDENCE,
            confidence is not None and config.confidence_low <= confidence < config.confidence_high,
        ),
        (Trigger.REJECTED, run.rejected),
    )
    return next((trigger for trigger, holds in checks if holds), None)


def suggest(run: Run, config: SuggestConfig) -> Proposal | None:
    """Return the lesson to propose for this run, or None when no trigger holds."""
    trigger = trigger_of(run, config)
    if trigger is None:
        return None
    failed = run.failed
    failed_tools = sorted({_clean(call.tool) for call in failed if call.tool})
    summaries = error_summaries(failed)
    task = _clean(run.task or "agent run")
    title = f"{trigger}: {task}"
    summary = redact(_summary(trigger, run, failed, failed_tools, task))[0]
    rule = redact(_draft_rule(trigger, run, failed))[0]
    lesson = LessonInput(
        title=title,
        summary=summary,
        what_happened=_happened(summary, summaries),
        # What the agent, with the user, still has to write: as the placeholders they are.
        root_cause=TEMPLATE_TEXT["Root Cause"],
        optimization=TEMPLATE_TEXT["Optimization"],
        trigger=trigger.value,
        severity=SEVERITY[trigger].value,
        agents=(_clean(run.agent),) if run.agent else (),
        tags=tuple(failed_tools[:5]),
        prevention_rule=rule,  # Next Time is made from it
    )
    body = build_body(lesson)
    return Proposal(
        trigger,
        run.replans,
        len(failed),
        failed_tools,
        summaries,
        title,
        summary,
        body,
        rule,
        TO_FILL_IN,
        lesson,
    )


TO_FILL_IN = [
    "--root-cause (root_cause): why it happened, the cause and not the symptom",
    "--optimization (optimization): what was changed so that it cannot happen again",
    "--prevention-rule (prevention_rule): check the draft; recall shows it to other agents, "
    "and it is the Next Time section",
    "recorded as it is, the lesson stays a candidate that recall never shows",
]


def _happened(summary: str, summaries: list[str]) -> str:
    """What Happened: the summary, then the errors the failed calls reported."""
    errors = ["", "Errors:", *(f"- {line}" for line in summaries)] if summaries else []
    return "\n".join([summary, *errors])


# What to check first, by the kind of error a failed call reported (the first that matches).
_CHECKS = (
    (
        ("permission", "denied", "not allowed", "forbidden", "403"),
        "its permissions",
    ),
    (("401", "unauthorized", "token", "credential", "auth"), "its credentials"),
    (("not found", "no such", "does not exist", "404", "enoent"), "that the path or name exists"),
    (("timeout", "timed out"), "the timeout and whether the service is up"),
    (("429", "rate limit", "too many requests"), "the rate limit, and back off before retrying"),
    (("syntax", "parse", "invalid", "malformed", "schema"), "the input against what it expects"),
)


def _draft_rule(trigger: Trigger, run: Run, failed: list[ToolCall]) -> str:
    """A first prevention rule from what failed: the tool, the kind of error, what to check."""
    if failed:
        tool = _clean(failed[0].tool) or "the tool"
        text = " ".join(call.error.lower() for call in failed)
        check = next(
            (check for words, check in _CHECKS if any(word in text for word in words)),
            "the error of the first failure before calling it again",
        )
        return f"Before calling {tool}, check {check}."
    task = _clean(run.task or "the task")
    drafts = {
        Trigger.REPLAN: f"Before starting '{task}', list its steps and what each needs.",
        Trigger.RETRIES: f"In '{task}', find why the first attempt failed before retrying.",
        Trigger.COST_OVERRUN: f"Before '{task}', estimate its cost against the budget.",
        Trigger.LOW_CONFIDENCE: f"In '{task}', say what is uncertain and check it first.",
    }
    return drafts.get(trigger, f"Before finishing '{task}', check the result against the request.")


def error_summaries(failed: list[ToolCall]) -> list[str]:
    """Up to three distinct `tool: error` lines, whitespace collapsed, secrets redacted."""
    found: list[str] = []
    for call in failed:
        # Redacted before its lines are joined: a key's lines are how it is recognised.
        text = _clean(f"{call.tool}: {call.error or 'failed'}")
        if len(text) > SUMMARY_LIMIT:
            text = text[: SUMMARY_LIMIT - 1].rstrip() + "…"
        if text not in found:
            found.append(text)
        if len(found) == MAX_SUMMARIES:
            break
    return found


def _clean(value: object) -> str:
    """A value of the agent's run as it may be shown: secrets redacted, then on one line."""
    return " ".join(redact(str(value))[0].split())


def _summary(
    trigger: Trigger, run: Run, failed: list[ToolCall], tools: list[str], task: str
) -> str:
    on = f" ({', '.join(tools)})" if tools else ""
    match trigger:
        case Trigger.REPLAN:
            what = f"the run replanned {run.replans} time(s)"
        case Trigger.CONSECUTIVE_TOOL_FAILURES | Trigger.REPEATED_TOOL_FAILURES:
            what = f"{len(failed)} tool call(s) failed{on}"
        case Trigger.RETRIES:
            what = f"the run needed {run.retries} retries"
        case Trigger.COST_OVERRUN:
            what = f"the run cost ${run.cost_usd} against a budget of ${run.max_cost_usd}"
        case Trigger.LOW_CONFIDENCE:
            what = f"the run ended with low confidence ({run.confidence})"
        case _:
            what = "a reviewer rejected the result"
    return f"While running '{task}', {what}."
