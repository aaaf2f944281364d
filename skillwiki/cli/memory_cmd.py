"""The agent memory loop: suggest, recall, feedback, review, maintain."""

# No `from __future__ import annotations` here: Typer reads every parameter's annotation each
# time the command starts, and annotations kept as strings are compiled and evaluated first.

import shlex
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.cli import render
from skillwiki.kinds import Outcome

if TYPE_CHECKING:
    from skillwiki.api import RecallAnswer

from skillwiki.cli.common import (
    ExpectOption,
    JsonOption,
    NoCompileOption,
    WorkspaceOption,
    chosen_workspace,
    open_workspace,
    opened,
)


class BlockFormat(StrEnum):
    markdown = "markdown"
    json = "json"


# The most of a feedback object or hook payload suggest reads, as a hook reads at most.
MAX_FEEDBACK = 64 << 20


def register(app: typer.Typer) -> None:
    app.command("suggest")(suggest)
    app.command("recall")(recall)
    app.command("feedback", no_args_is_help=True)(feedback)
    app.command("review")(review)
    app.command("maintain")(maintain)


def suggest(
    ctx: typer.Context,
    source: Annotated[
        str, typer.Argument(metavar="[FILE|-]", help="The run's feedback JSON (- for stdin).")
    ] = "-",
    workspace: WorkspaceOption = None,
) -> None:
    """Say whether an agent run's feedback calls for a lesson; print the record-lesson command.

    Reads JSON such as {"task": "...", "tool_calls": [...], "retries": 2}; prints
    {"suggest": false} or the proposal with "command", the argv to run once the user agrees.
    Never writes.

    Examples:
      skillwiki suggest run-feedback.json
      my-agent --feedback-json | skillwiki suggest -
    """
    from skillwiki import api
    from skillwiki.config import SuggestConfig
    from skillwiki.errors import WorkspaceNotFound

    try:
        config = open_workspace(ctx, workspace)[1].suggest
    except WorkspaceNotFound:
        if chosen_workspace(ctx, workspace) is not None:
            raise
        config = SuggestConfig()  # suggest works outside a workspace, with the defaults
    where = "stdin" if source == "-" else source
    render.print_json(api.suggest(_read_feedback(source, where), config, where=where).to_json())


def _read_feedback(source: str, where: str) -> str:
    """The feedback's text, from the file `source` or stdin (`-`), MAX_FEEDBACK at most."""
    from skillwiki.errors import InputError

    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_FEEDBACK + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_FEEDBACK + 1)
        if len(data) > MAX_FEEDBACK:  # /dev/zero, or a run's whole log: never read it all
            limit = f"is larger than {MAX_FEEDBACK >> 20} MiB"
            raise InputError(where, f"{limit}: not a run's feedback or a hook payload")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(where, f"cannot be read ({exc})") from None


def recall(
    ctx: typer.Context,
    agent: Annotated[str | None, typer.Option(help="The agent about to start.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="A topic of the task (repeatable).")] = None,
    path: Annotated[
        list[str] | None, typer.Option(help="A file or glob the task touches (repeatable).")
    ] = None,
    task: Annotated[str | None, typer.Option(help="The task, in plain words.")] = None,
    budget: Annotated[
        int | None, typer.Option(min=1, help="Most characters in the block (default 1500).")
    ] = None,
    output: Annotated[
        BlockFormat, typer.Option("--format", help="markdown (the block) or json.")
    ] = BlockFormat.markdown,
    as_json: JsonOption = False,
    trace: Annotated[
        bool, typer.Option("--trace", help="Show every lesson's score parts on stderr.")
    ] = False,
    write: Annotated[
        Path | None,
        typer.Option(help="Put the block into this file between skillwiki:recall markers."),
    ] = None,
    no_compile: NoCompileOption = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Print the lessons an agent should see before it starts: a block for its prompt.

    Active lessons and rules (a rule in place of its lessons; one in review with the lesson
    in conflict beside it); scored by scope, agent, tags, paths, severity and task relevance,
    times their confidence; filled by layer (confident rules for every task, then what fits
    the task, then the agent), best first, never over the budget, never an entry cut in half.

    Examples:
      skillwiki recall --agent channel-op --task "publish the weekly digest"
      skillwiki recall --tag allowedTools --format json
      skillwiki recall --agent coder --write AGENTS.md
    """
    from skillwiki import api
    from skillwiki.memory.block import write_block, write_target

    ws, config = open_workspace(ctx, workspace)
    target = None if write is None else write_target(ws, write)
    # With --no-compile, no index is opened: the recall opens what it needs.
    with opened(ws, config, compile_first=not no_compile, with_index=False) as wiki:
        for notice in api.opened_notices(wiki):
            render.warn(notice)
        answer = api.recall(
            wiki, agent=agent, tags=tag or (), paths=path or (), task=task, budget=budget
        )
    if write is not None and target is not None:
        changed = write_block(target, answer.block, paths=tuple(path or ()))
        state = "updated" if changed else "unchanged"
        render.warn_free(f"{state} {write} ({len(answer.included)} lesson(s))")
    _show_recalled(answer, as_json or output is BlockFormat.json, write is None, trace)


def _show_recalled(answer: "RecallAnswer", as_json: bool, block: bool, trace: bool) -> None:
    """Print the block (or the JSON answer), and with --trace each lesson's score on stderr."""
    if as_json:
        render.print_json(answer.to_json())
    elif block:
        render.text(answer.block, nl=False)
    if trace:
        for item in answer.recalled.lessons:
            parts = " ".join(f"{key}={value:g}" for key, value in item.parts.items())
            render.text(f"{item.score:7.4f} {item.id}: {item.reason} [{parts}]", err=True)


def feedback(
    ctx: typer.Context,
    lesson_id: Annotated[str, typer.Argument(metavar="ID", help="The lesson's id.")],
    outcome: Annotated[Outcome, typer.Option(help="helped, not-helped or failed-again.")],
    note: Annotated[str | None, typer.Option(help="What happened, in a line.")] = None,
    expect_fingerprint: ExpectOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record whether a recalled lesson helped: a dated evidence line in the lesson.

    Confidence comes only from evidence (recent evidence counts more); lessons that keep
    failing stop being recalled, and failed-again after a recall flags the lesson for review.

    Examples:
      skillwiki feedback 2026-11-30-telegram-send-missing --outcome helped
      skillwiki feedback 2026-11-30-telegram-send-missing --outcome failed-again --note "new tool"
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    answer = api.feedback(
        ws, config, lesson_id, outcome.value, note=note, expected=expect_fingerprint
    )
    if as_json:
        render.print_json(answer.to_json())
        return
    result = answer.result
    pieces = f"{result.evidence} piece{'s' if result.evidence != 1 else ''} of evidence"
    render.echo(
        f"recorded {result.outcome} for {result.id}: confidence {result.confidence:.2f} ({pieces})"
    )
    if result.flagged:
        render.echo(
            "flagged for review: it failed again after being recalled (see skillwiki review)"
        )


def review(
    ctx: typer.Context,
    lesson_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="The lesson or rule to decide.")
    ] = None,
    accept: Annotated[bool, typer.Option("--accept", help="Make it active.")] = False,
    reject: Annotated[
        bool, typer.Option("--reject", help="Archive it (a rule: retire it).")
    ] = False,
    reason: Annotated[str | None, typer.Option(help="Why it is rejected.")] = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the lessons and rules waiting for a person, or accept or reject one.

    New lessons and rules wait as candidates when [lessons] require_review = true; lessons
    that failed again after a recall are flagged here too, and rules in review. Candidates are
    never recalled. An accepted rule stands for its lessons and those it was in conflict
    with; a rejected rule is retired and gives its lessons back.

    Examples:
      skillwiki review
      skillwiki review 2026-11-30-retry-storms --accept
      skillwiki review 2026-11-30-retry-storms --reject --reason "one-off outage"
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    answer = api.review(ws, config, lesson_id, accept=accept, reject=reject, reason=reason)
    if as_json:
        render.print_json(answer.to_json())
        return
    match answer:
        case api.Waiting(pending):
            for item in pending:
                age = f"{item.age_days}d" if item.age_days is not None else "?"
                render.echo(
                    f"{item.id}  [{item.severity}] {item.title}  ({item.status}, {age}, "
                    f"{item.evidence} evidence) {item.reason}"
                )
            render.echo(f"{len(pending)} lesson(s) waiting for review")
        case api.Decided(decided, status):
            render.echo(f"{decided} is now {status}")


def maintain(
    ctx: typer.Context,
    apply: Annotated[
        bool, typer.Option("--apply", help="Carry out the plan (default: dry run).")
    ] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Plan (or with --apply, carry out) the lessons' upkeep, and propose rules from lessons.

    Archives LOW/MEDIUM lessons not recalled for [maintain] archive_after_days; supersedes the
    older of two lessons in one category whose tags mostly overlap (tags and agents merged into
    the newer); lists HIGH/CRITICAL lessons recalled often enough to become documented practice.
    Proposes one rule for each group of [rules] min_lessons active lessons that share a cause
    (files, tags or prevention rules alike), with the record-rule command that records it:
    nothing is recorded until that command is run. Says whether consolidation is due.

    Examples:
      skillwiki maintain
      skillwiki maintain --json | jq '.rules[].command'
      skillwiki maintain --apply
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    answer = api.maintain(ws, config, apply=apply)
    if as_json:
        render.print_json(answer.to_json())
        return
    plan, applied = answer.plan, answer.applied
    for action in plan.actions:
        target = f" by {action.into}" if action.into else ""
        render.echo(f"{action.kind} {action.id}{target}: {action.reason}")
    if applied is not None and applied.rolled_up:
        render.echo(f"usage of {applied.rolled_up} lesson(s) rolled up into .wiki/usage.log")
    for proposal in plan.proposals:
        rendered = " ".join(shlex.quote(part) for part in proposal.command())
        render.echo(f"rule from {proposal.reason}: {', '.join(proposal.lessons)}")
        render.echo(f"  When {proposal.draft.when}: {proposal.draft.then}.")
        render.echo(f"  record it (edit the draft first if you like): {rendered}")
    render.echo(f"consolidation: {plan.due.reason}")
    if not plan.actions and not plan.proposals:
        render.echo("nothing to do")
    elif not plan.actions:
        render.echo("no upkeep to do; rules are recorded only by their record-rule commands")
    elif applied is not None:
        render.echo(f"applied {len(applied.done)} action(s); promotion candidates are only listed")
    else:
        render.echo("dry run: nothing changed; run with --apply to carry it out")
