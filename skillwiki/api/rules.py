"""Rules from lessons: maintain (the lessons' upkeep, the rules it proposes, whether
consolidation is due) and record_rule (a proposed or hand-written rule, recorded once a person
or an agent agrees). Each answer is a frozen value with one JSON form, as in
skillwiki.api.writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from skillwiki.api.writes import After, bring_up_to_date

# The rule a record_rule call takes, built from the arguments every face names alike.
from skillwiki.memory.consolidate import RuleInput as RuleInput

if TYPE_CHECKING:
    from skillwiki.config import Config
    from skillwiki.memory.maintain import Applied, Plan
    from skillwiki.memory.rules import RecordedRule
    from skillwiki.workspace import Workspace


def rule_input(
    when: str,
    then: str,
    evidence: Sequence[str],
    *,
    title: str | None = None,
    summary: str | None = None,
    severity: str | None = None,
    scope: str | None = None,
    agent: Sequence[str] | None = None,
    tag: Sequence[str] | None = None,
    category: str | None = None,
) -> RuleInput:
    """Build the rule from record-rule's arguments, as the CLI and the MCP tool name them; a
    field not given (None) is taken from the lessons when the rule is recorded."""
    return RuleInput(
        when=when,
        then=then,
        evidence=tuple(evidence),
        title=title,
        summary=summary,
        severity=None if severity is None else str(severity),
        scope=None if scope is None else str(scope),
        agents=None if agent is None else tuple(agent),
        tags=None if tag is None else tuple(tag),
        category=category,
    )


@dataclass(frozen=True)
class RuleAnswer:
    """A rule recorded (or found recorded already), and the lessons it now stands for."""

    recorded: RecordedRule

    def to_json(self) -> dict[str, Any]:
        """`record-rule --json`: the rule's id, path, status, whether it was created, the
        lessons it superseded, its confidence and support, and the secrets redacted."""
        return asdict(self.recorded)


def record_rule(
    ws: Workspace, config: Config, rule: RuleInput, *, after: After = None
) -> RuleAnswer:
    """Record a rule made from lessons (its `evidence`) in raw/lessons/, its lessons now
    superseded by it (unless new rules wait for review), then bring the wiki up to date."""
    from skillwiki.memory.rules import record_rule as record

    recorded = record(ws, config, rule)
    bring_up_to_date(ws, config, after)
    return RuleAnswer(recorded)


@dataclass(frozen=True)
class MaintainAnswer:
    """maintain's plan (or what it carried out), the rules it proposes, whether consolidation
    is due."""

    plan: Plan
    applied: Applied | None  # None: a dry run

    def to_json(self) -> dict[str, Any]:
        """`maintain --json`: the actions planned and done, the usage rolled up, each proposed
        rule with its lessons, why they are one, its fields and the record-rule command, and
        whether consolidation is due."""
        applied = self.applied
        return {
            "applied": applied is not None,
            "actions": [asdict(action) for action in self.plan.actions],
            "done": [] if applied is None else [asdict(action) for action in applied.done],
            "usage_rolled_up": 0 if applied is None else applied.rolled_up,
            "rules": [proposal.to_json() for proposal in self.plan.proposals],
            "consolidation": self.plan.due.to_json(),
        }


def maintain(ws: Workspace, config: Config, *, apply: bool = False) -> MaintainAnswer:
    """Plan the lessons' upkeep (archive, merge, promote) and the rules lessons that share a
    cause make; with `apply`, carry out the archive and merge actions and compile. Rules are
    only proposed: each is recorded by its record-rule command."""
    from skillwiki import clock
    from skillwiki.memory.maintain import apply as carry_out
    from skillwiki.memory.maintain import full_plan

    planned = full_plan(ws, config, clock.today())
    if not apply:
        return MaintainAnswer(planned, None)
    applied = carry_out(ws, config, planned.actions)
    bring_up_to_date(ws, config, None)
    return MaintainAnswer(planned, applied)
