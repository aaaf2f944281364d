"""What the faces share: each use-case's answer as one JSON-able value.

The command line prints it for `--json`, the MCP server returns it as the tool's answer, so
the two say the same by construction. Nothing here parses arguments, prints or knows a face:
the faces import this module, never each other. Imports of the core are made inside the
functions, so a face that imports this module at start-up pays for nothing it does not use.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from skillwiki.compiler import Plan
    from skillwiki.config import Config
    from skillwiki.memory.lessons import LessonInput
    from skillwiki.memory.recall import Recalled
    from skillwiki.memory.suggest import Proposal
    from skillwiki.reading import Shown
    from skillwiki.search import Hit
    from skillwiki.workspace import Workspace

LIMIT_MAX = 1000  # the most hits a query shows, from the command line or the MCP server


class ArticleType(StrEnum):
    """What a query may be narrowed to."""

    document = "document"
    lesson = "lesson"


def query_json(text: str, refreshed: int, hits: Sequence[Hit], explain: bool) -> dict[str, Any]:
    """`query --json`: the query, how many articles were compiled first, and the hits."""
    return {
        "query": text,
        "refreshed": refreshed,
        "results": [hit.to_json(explain) for hit in hits],
    }


def show_json(shown: Shown, max_chars: int | None = None) -> dict[str, Any]:
    """`show --json`: the article's path, frontmatter, body, raw file and its fingerprint. With
    `max_chars`, the body is cut there and `truncated` says whether it was."""
    answer: dict[str, Any] = {"path": shown.path, "meta": shown.meta}
    if max_chars is None:
        answer["body"] = shown.body
    else:
        answer["body"] = shown.body[:max_chars]
        answer["truncated"] = len(shown.body) > max_chars
    answer["source"] = shown.source
    answer["fingerprint"] = shown.fingerprint
    return answer


def recall_json(result: Recalled) -> dict[str, Any]:
    """`recall --json`: the block, and each lesson considered with its score."""
    return {"block": result.block, "lessons": [asdict(item) for item in result.lessons]}


def all_fresh(plan: Plan) -> bool:
    """Whether every article is fresh and every raw file can be compiled."""
    from skillwiki.compiler import State

    counts = plan.count()
    return counts[State.FRESH] == sum(counts.values()) and not plan.problems


def status_json(
    ws: Workspace, config: Config, plan: Plan, *, not_fresh: bool = False
) -> dict[str, object]:
    """`status --json`: the totals, each file's state (`not_fresh`: only those not fresh),
    and the raw files that cannot be compiled, with why (all that compile would refuse)."""
    from skillwiki.compiler import State, refused

    counts = plan.count()
    entries = plan.others if not_fresh else plan.entries  # others: sorted, none of them fresh
    return {
        "fresh": all_fresh(plan),
        "catalog": file_fingerprint(ws.index_json, config) if ws.index_json.exists() else "none",
        "totals": {state.value: counts[state] for state in State},
        "files": [
            {
                "article": f".wiki/wiki/{entry.article}",
                "raw": None if entry.raw is None else f".wiki/raw/{entry.raw}",
                "state": entry.state.value,
            }
            for entry in entries
        ],
        "problems": [asdict(problem) for problem in refused(ws, config, plan)],
    }


def file_fingerprint(path: Path, config: Config) -> str:
    """A file's fingerprint, by the workspace's algorithm: what --expect-fingerprint compares."""
    from skillwiki.fingerprint import fingerprint

    return fingerprint(path.read_bytes(), config.fingerprint)


def suggest_json(proposal: Proposal | None) -> dict[str, Any]:
    """suggest's answer (SPEC 7): `{"suggest": false}`, or the proposal with `command`, the
    record-lesson command line that records it once the user agrees."""
    if proposal is None:
        return {"suggest": False}
    said = {field.name: getattr(proposal, field.name) for field in fields(proposal)}
    said.pop("lesson")
    command = record_lesson_command(proposal.lesson)
    return {"suggest": True, **said, "trigger": proposal.trigger.value, "command": command}


# The record-lesson fields a proposal fills, in the order the command line gives them; the
# lists (agent, tag) are repeated flags.
_SECTIONS = ("what_happened", "root_cause", "optimization", "next_time")


def record_lesson_fields(lesson: LessonInput) -> dict[str, Any]:
    """The record-lesson fields that record `lesson`, by the names the MCP tool takes: each
    section given on its own, the lists only when they hold something."""
    given: dict[str, Any] = {"title": lesson.title, "summary": lesson.summary}
    given |= {"trigger": lesson.trigger, "severity": lesson.severity}
    for name in _SECTIONS:
        text = getattr(lesson, name)
        if text and text.strip():
            given[name] = text.strip()
    given["prevention_rule"] = lesson.prevention_rule or ""
    if lesson.agents:
        given["agent"] = list(lesson.agents)
    if lesson.tags:
        given["tag"] = list(lesson.tags)
    return given


def record_lesson_command(lesson: LessonInput) -> list[str]:
    """The `skillwiki record-lesson` command line that records `lesson`: one flag a field, a
    list's flag once for each of its items."""
    command = ["skillwiki", "record-lesson"]
    for name, value in record_lesson_fields(lesson).items():
        flag = "--" + name.replace("_", "-")
        for item in value if isinstance(value, list) else [value]:
            command += [flag, item]
    return command
