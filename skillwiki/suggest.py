"""suggest: read an agent run's feedback and say whether a lesson should be proposed (SPEC 7)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from skillwiki.config import SuggestConfig
from skillwiki.errors import InputError
from skillwiki.lessons import SECTIONS, TEMPLATE_TEXT
from skillwiki.secrets import redact

SUMMARY_LIMIT = 180
MAX_SUMMARIES = 3
MAX_TOOL_CALLS = 10_000
SEVERITY = {
    "replan": "MEDIUM",
    "consecutive_tool_failures": "HIGH",
    "repeated_tool_failures": "HIGH",
    "retries": "MEDIUM",
    "cost_overrun": "MEDIUM",
    "low_confidence": "LOW",
    "rejected": "MEDIUM",
}
_NUMBERS = ("replans", "max_consecutive_tool_failures", "max_repeated_tool_failures", "retries")
_FLOATS = ("cost_usd", "max_cost_usd", "confidence")


def parse(text: str, where: str) -> dict[str, Any]:
    """Parse and check the feedback JSON; anything malformed is an InputError naming it."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(where, f"not valid JSON ({exc}); pass the run's feedback object") from None
    if not isinstance(data, dict):
        raise InputError(where, "the feedback must be a JSON object")
    problem = _scalar_problem(data) or _calls_problem(data.get("tool_calls", []))
    if problem:
        raise InputError(where, problem)
    return data


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


def _failures(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [call for call in calls if call.get("success") is False]


def _longest_failure_run(calls: list[dict[str, Any]]) -> int:
    longest = run = 0
    for call in calls:
        run = run + 1 if call.get("success") is False else 0
        longest = max(longest, run)
    return longest


def _repeats(calls: list[dict[str, Any]]) -> int:
    keys = Counter(
        (call.get("tool", ""), str(call.get("error") or "")[:80]) for call in _failures(calls)
    )
    return max(keys.values(), default=0)


def trigger_of(data: dict[str, Any], config: SuggestConfig) -> str | None:
    """Return the first trigger that holds, in SPEC order, or None."""
    calls = data.get("tool_calls", [])
    consecutive = data.get("max_consecutive_tool_failures", _longest_failure_run(calls))
    repeated = data.get("max_repeated_tool_failures", _repeats(calls))
    cost, budget = data.get("cost_usd"), data.get("max_cost_usd")
    confidence = data.get("confidence")
    checks = (
        ("replan", data.get("replans", 0) >= config.replans),
        ("consecutive_tool_failures", consecutive >= config.consecutive_failures),
        ("repeated_tool_failures", repeated >= config.repeated_failures),
        ("retries", data.get("retries", 0) >= config.retries),
        (
            "cost_overrun",
            cost is not None and budget is not None and cost > config.cost_factor * budget,
        ),
        (
            "low_confidence",
            confidence is not None and config.confidence_low <= confidence < config.confidence_high,
        ),
        ("rejected", data.get("rejected") is True),
    )
    return next((name for name, holds in checks if holds), None)


def suggest(data: dict[str, Any], config: SuggestConfig) -> dict[str, Any]:
    """Return SPEC 7's answer: {"suggest": false} or the proposal and the command to run."""
    trigger = trigger_of(data, config)
    if trigger is None:
        return {"suggest": False}
    calls = data.get("tool_calls", [])
    failed = _failures(calls)
    failed_tools = sorted({_clean(call.get("tool", "")) for call in failed if call.get("tool")})
    summaries = error_summaries(failed)
    task = _clean(data.get("task") or "agent run")
    title = f"{trigger}: {task}"
    summary = redact(_summary(trigger, data, failed, failed_tools, task))[0]
    body = _body(trigger, summary, summaries)
    command = [
        "skillwiki",
        "record-lesson",
        "--title",
        title,
        "--summary",
        summary,
        "--trigger",
        trigger,
        "--severity",
        SEVERITY[trigger],
        "--body",
        body,
    ]
    if data.get("agent"):
        command += ["--agent", _clean(data["agent"])]
    for tool in failed_tools[:5]:
        command += ["--tag", tool]
    return {
        "suggest": True,
        "trigger": trigger,
        "replan_count": data.get("replans", 0),
        "failed_tool_count": len(failed),
        "failed_tools": failed_tools,
        "error_summaries": summaries,
        "proposed_title": title,
        "proposed_summary": summary,
        "proposed_lesson": body,
        "command": command,
    }


def error_summaries(failed: list[dict[str, Any]]) -> list[str]:
    """Up to three distinct `tool: error` lines, whitespace collapsed, secrets redacted."""
    found: list[str] = []
    for call in failed:
        # Redacted before its lines are joined: a key's lines are how it is recognised.
        text = _clean(f"{call.get('tool', '')}: {call.get('error') or 'failed'}")
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
    trigger: str, data: dict[str, Any], failed: list[dict[str, Any]], tools: list[str], task: str
) -> str:
    on = f" ({', '.join(tools)})" if tools else ""
    match trigger:
        case "replan":
            what = f"the run replanned {data.get('replans', 0)} time(s)"
        case "consecutive_tool_failures" | "repeated_tool_failures":
            what = f"{len(failed)} tool call(s) failed{on}"
        case "retries":
            what = f"the run needed {data.get('retries', 0)} retries"
        case "cost_overrun":
            cost, budget = data.get("cost_usd"), data.get("max_cost_usd")
            what = f"the run cost ${cost} against a budget of ${budget}"
        case "low_confidence":
            what = f"the run ended with low confidence ({data.get('confidence')})"
        case _:
            what = "a reviewer rejected the result"
    return f"While running '{task}', {what}."


def _body(trigger: str, summary: str, summaries: list[str]) -> str:
    happened = [summary, "", f"Trigger: {trigger}."]
    if summaries:
        happened += ["", "Errors:", *(f"- {line}" for line in summaries)]
    sections = {
        "What Happened": "\n".join(happened),
        "Root Cause": TEMPLATE_TEXT["Root Cause"],
        "Optimization": TEMPLATE_TEXT["Optimization"],
        "Next Time": TEMPLATE_TEXT["Next Time"],
    }
    return "\n\n".join(f"## {name}\n\n{sections[name]}" for name in SECTIONS) + "\n"
