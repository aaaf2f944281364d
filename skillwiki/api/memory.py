"""The memory loop's reads: recall (the lessons for a task) and suggest (whether a run calls
for a lesson). Each answer is a frozen value with one JSON form, as in skillwiki.api.reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from skillwiki.api.reads import Opened, opened_notices

if TYPE_CHECKING:
    from skillwiki.config import SuggestConfig
    from skillwiki.memory.lessons import LessonInput
    from skillwiki.memory.recall import Recalled
    from skillwiki.memory.suggest import Proposal


@dataclass(frozen=True)
class RecallAnswer:
    """The block of lessons to keep in mind before a task, and each lesson considered."""

    recalled: Recalled
    notices: tuple[str, ...] = ()

    @property
    def block(self) -> str:
        return self.recalled.block

    @property
    def included(self) -> list[str]:
        """The ids of the lessons the block shows."""
        return self.recalled.included

    def to_json(self) -> dict[str, Any]:
        """`recall --json`: the block, and each lesson considered with its score."""
        lessons = [asdict(item) for item in self.recalled.lessons]
        return {"block": self.recalled.block, "lessons": lessons}


def recall(
    wiki: Opened,
    *,
    agent: str | None = None,
    tags: Sequence[str] = (),
    paths: Sequence[str] = (),
    task: str | None = None,
    budget: int | None = None,
    skip: frozenset[str] = frozenset(),
    paths_only: bool = False,
    count: bool = True,
) -> RecallAnswer:
    """Recall the active lessons that concern a task, best first, within the budget.

    `skip`: lessons already shown (in this agent session); `paths_only`: only lessons about
    `paths`. With `count`, each lesson shown is counted a recall hit (maintain reads them);
    a caller that counts in its own way (a hook, once per session) turns it off.
    """
    from skillwiki import clock
    from skillwiki.memory import usage
    from skillwiki.memory.recall import Request, recall_for_task

    request = Request(agent, tuple(tags), tuple(paths), task, budget, skip, paths_only)
    recalled = recall_for_task(wiki.ws, wiki.config, request, wiki.index)
    if count:
        usage.count(wiki.ws, recalled.included, clock.stamp())
    return RecallAnswer(recalled, opened_notices(wiki))


@dataclass(frozen=True)
class SuggestAnswer:
    """Whether a run calls for a lesson: None, or the proposed lesson as data."""

    proposal: Proposal | None

    def to_json(self, *, arguments: bool = False) -> dict[str, Any]:
        """suggest's answer (SPEC 7): `{"suggest": false}`, or the proposal with `command`,
        the record-lesson command line that records it once the user agrees. With
        `arguments` (a face that can call record_lesson itself: the MCP server), also
        `record_lesson`, the arguments of that call."""
        proposal = self.proposal
        if proposal is None:
            return {"suggest": False}
        said = {field.name: getattr(proposal, field.name) for field in fields(proposal)}
        said.pop("lesson")
        command = record_lesson_command(proposal.lesson)
        answer = {"suggest": True, **said, "trigger": proposal.trigger.value, "command": command}
        if arguments:
            answer["record_lesson"] = record_lesson_fields(proposal.lesson)
        return answer


def suggest(
    feedback: str | dict[str, Any], config: SuggestConfig, *, where: str = "feedback"
) -> SuggestAnswer:
    """Say whether a run's feedback calls for a lesson; never writes.

    `feedback` is the run's feedback object (or a client's hook payload), or its JSON text;
    `where` names it in an error.
    """
    from skillwiki.memory.suggest import parse, read_run
    from skillwiki.memory.suggest import suggest as propose

    run = parse(feedback, where) if isinstance(feedback, str) else read_run(feedback, where)
    return SuggestAnswer(propose(run, config))


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
