"""record-lesson: write a lesson after the user agreed, then compile it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from skillwiki.cli import render
from skillwiki.cli.common import ExpectOption, JsonOption, WorkspaceOption, open_workspace
from skillwiki.kinds import Severity, Trigger

if TYPE_CHECKING:
    from skillwiki.memory.lessons import Recorded


def register(app: typer.Typer) -> None:
    app.command("record-lesson", no_args_is_help=True)(record_lesson)
    app.command("record-rule", no_args_is_help=True)(record_rule)


def record_lesson(
    ctx: typer.Context,
    title: Annotated[str, typer.Option(help="One line: what went wrong.")],
    summary: Annotated[str, typer.Option(help="What happened, in a sentence or two.")],
    body: Annotated[
        str | None,
        typer.Option(
            help="What Happened, or a whole lesson whose ## section headings fill those "
            "sections; - reads it from stdin."
        ),
    ] = None,
    what_happened: Annotated[
        str | None,
        typer.Option(help="The What Happened section (default: --body, else --summary)."),
    ] = None,
    root_cause: Annotated[
        str | None, typer.Option(help="The Root Cause section: why it happened.")
    ] = None,
    optimization: Annotated[
        str | None,
        typer.Option(help="The Optimization section: what was changed so it cannot recur."),
    ] = None,
    next_time: Annotated[
        str | None,
        typer.Option(help="The Next Time section (default: the prevention rule, as a list item)."),
    ] = None,
    trigger: Annotated[
        str, typer.Option(help="What made it a lesson (manual, retries, ...).")
    ] = Trigger.MANUAL.value,
    severity: Annotated[
        str, typer.Option(help="LOW, MEDIUM, HIGH or CRITICAL.")
    ] = Severity.MEDIUM.value,
    scope: Annotated[
        str | None, typer.Option(help="global or targeted (default: targeted when --agent given).")
    ] = None,
    agent: Annotated[
        list[str] | None, typer.Option(help="An agent it concerns (repeatable).")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="A tag (repeatable).")] = None,
    category: Annotated[str | None, typer.Option(help="A category, e.g. agent-config.")] = None,
    prevention_rule: Annotated[
        str | None, typer.Option(help="The one-line rule that prevents a repeat.")
    ] = None,
    path: Annotated[
        list[str] | None, typer.Option(help="A file the lesson is about (repeatable).")
    ] = None,
    dedupe: Annotated[
        bool,
        typer.Option(help="Do not record a near-duplicate of an existing lesson; name it instead."),
    ] = False,
    expect_fingerprint: ExpectOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record a lesson in .wiki/raw/lessons/ (secrets redacted), compile it, print its id and path.

    Each section flag fills its section of the lesson; a --body with the headings ## What
    Happened, ## Root Cause, ## Optimization or ## Next Time fills those (a section given by
    both is an error). A section left as the template's placeholder, or no --prevention-rule,
    keeps the lesson a candidate that recall does not show. Recording exactly the same lesson
    again creates nothing new. --expect-fingerprint takes the fingerprint of .wiki/index.json
    as read (status --json shows it as "catalog").

    Examples:
      skillwiki record-lesson --title "allowedTools must include telegram_send" \\
        --summary "channel-op failed 3 times: telegram_send was not whitelisted" \\
        --severity HIGH --agent channel-op --tag allowedTools \\
        --root-cause "channel-op's allowedTools was written before it sent to Telegram." \\
        --optimization "telegram_send was added to channel-op's allowedTools." \\
        --prevention-rule "Check allowedTools covers every tool the prompt asks for."
      git log -1 --format=%B | skillwiki record-lesson --title "..." --summary "..." --body -
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    lesson = api.lesson_input(
        title,
        summary,
        body=sys.stdin.read() if body == "-" else body,
        what_happened=what_happened,
        root_cause=root_cause,
        optimization=optimization,
        next_time=next_time,
        trigger=trigger,
        severity=severity,
        scope=scope,
        agent=agent,
        tag=tag,
        category=category,
        prevention_rule=prevention_rule,
        path=path,
    )
    answer = api.record_lesson(ws, config, lesson, dedupe=dedupe, expected=expect_fingerprint)
    if as_json:
        render.print_json(answer.to_json())
        return
    _print_recorded(answer.recorded)
    for rule_id in answer.rules_in_review:
        render.warn(
            f"rule {rule_id} is now in review: this lesson gives another action on its "
            "condition (see skillwiki review)"
        )


def _print_recorded(recorded: Recorded) -> None:
    """Say what was recorded (or why not), where, and the similar lessons."""
    if recorded.redacted:
        render.warn(f"redacted secrets from the lesson: {', '.join(recorded.redacted)}")
    if recorded.created:
        render.echo(f"recorded {recorded.id} ({recorded.status})", style="bold green")
        if recorded.unfinished:
            render.warn(
                f"a candidate, not recalled, until it has: {', '.join(recorded.unfinished)}; "
                f"fill them in {recorded.path}, then: skillwiki review --accept {recorded.id}"
            )
    elif recorded.similar:
        render.echo(f"not recorded: a near-duplicate of {recorded.id} (--dedupe)")
    else:
        render.echo(f"already recorded as {recorded.id}; nothing new written")
    render.echo(f"  {recorded.path}")
    for other in recorded.similar:
        render.echo(f"  similar lesson: {other}")


def record_rule(
    ctx: typer.Context,
    when: Annotated[str, typer.Option(help="The condition, one line: who, on what, after what.")],
    then: Annotated[str, typer.Option(help="The action, one line: what to do then.")],
    evidence: Annotated[
        list[str], typer.Option(help="A lesson the rule comes from (repeatable; 2 at least).")
    ],
    title: Annotated[str | None, typer.Option(help="Default: the action.")] = None,
    summary: Annotated[
        str | None, typer.Option(help="Default: the lessons it consolidates.")
    ] = None,
    severity: Annotated[
        str | None, typer.Option(help="LOW ... CRITICAL (default: the lessons' highest).")
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(help="global or targeted (default: targeted when every lesson is)."),
    ] = None,
    agent: Annotated[
        list[str] | None, typer.Option(help="An agent it concerns (default: the lessons').")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="A tag (default: those most lessons share).")
    ] = None,
    category: Annotated[str | None, typer.Option(help="Default: the lessons' category.")] = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record a rule consolidated from lessons: "When <condition>: <action>.", recalled in
    their place.

    Run the command `skillwiki maintain` proposes for a group of lessons that share a cause,
    after reading (and, if you like, rewriting) its draft. The lessons become superseded by
    the rule (still found with query --all); with [lessons] require_review = true the rule
    waits as a candidate until review --accept. Its confidence pools the outcomes of its
    lessons and its own feedback.

    Examples:
      skillwiki record-rule --when "an agent's allowedTools changes" \\
        --then "check allowedTools covers every MCP tool the prompt asks for" \\
        --evidence 2026-11-30-telegram-send-missing --evidence 2026-12-02-slack-post-denied \\
        --evidence 2026-12-03-gh-pr-create-missing
    """
    from skillwiki import api

    ws, config = open_workspace(ctx, workspace)
    rule = api.rule_input(
        when,
        then,
        evidence,
        title=title,
        summary=summary,
        severity=severity,
        scope=scope,
        agent=agent,
        tag=tag,
        category=category,
    )
    answer = api.record_rule(ws, config, rule)
    if as_json:
        render.print_json(answer.to_json())
        return
    recorded = answer.recorded
    if recorded.redacted:
        render.warn(f"redacted secrets from the rule: {', '.join(recorded.redacted)}")
    if not recorded.created:
        render.echo(f"already recorded as {recorded.id}; nothing new written")
    else:
        render.echo(f"recorded rule {recorded.id} ({recorded.status})", style="bold green")
    render.echo(f"  {recorded.path}")
    render.echo(f"  confidence {recorded.confidence:.2f} from {recorded.support} outcome(s)")
    for lesson_id in recorded.superseded:
        render.echo(f"  supersedes lesson {lesson_id}")
