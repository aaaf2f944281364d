"""The state of the wiki: `status`, how fresh every article is, read without opening the
search index or writing anything; and the fingerprint `--expect-fingerprint` compares."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from skillwiki.api.kept import keeper

if TYPE_CHECKING:
    from pathlib import Path

    from skillwiki.compiler import Problem
    from skillwiki.config import Config
    from skillwiki.workspace import Workspace


@dataclass(frozen=True)
class StatusFile:
    """An article and its raw file (None for an orphan), as paths from the root, and its state."""

    article: str
    raw: str | None
    state: str


@dataclass(frozen=True)
class StatusRule:
    """A rule in raw/lessons/: its status, and its confidence and support as of today."""

    id: str
    status: str
    confidence: float
    support: int


@dataclass(frozen=True)
class StatusAnswer:
    """The freshness of the wiki; never written by reading it."""

    fresh: bool  # every article fresh and every raw file can be compiled
    totals: dict[str, int]  # how many articles in each state, in the states' order
    files: tuple[StatusFile, ...]
    problems: tuple[Problem, ...]  # every raw file compile would refuse, with why
    index_json: Path  # the catalog, fingerprinted only when asked (`catalog`)
    algorithm: str  # the workspace's fingerprint algorithm
    rules: tuple[StatusRule, ...] = ()  # the rules consolidated from lessons

    @cached_property
    def catalog(self) -> str:
        """index.json's fingerprint (what --expect-fingerprint compares), or "none"; read
        only when asked, for the text output does not show it."""
        if not self.index_json.exists():
            return "none"
        return file_fingerprint(self.index_json, self.algorithm)

    def to_json(self) -> dict[str, Any]:
        """`status --json`: the totals, each file's state, the raw files that cannot be
        compiled, with why, and each rule's status, confidence and support."""
        return {
            "fresh": self.fresh,
            "catalog": self.catalog,
            "totals": dict(self.totals),
            "files": [asdict(item) for item in self.files],
            "problems": [problem._asdict() for problem in self.problems],
            "rules": [asdict(rule) for rule in self.rules],
        }


def status(ws: Workspace, config: Config, *, not_fresh: bool = False) -> StatusAnswer:
    """Say how fresh every article is (`not_fresh`: list only those that are not)."""
    from skillwiki.compiler import State, make_plan, refused

    keep = keeper.get()  # a process that keeps the workspace open knows its plan
    plan = keep.planned(ws, config) if keep is not None else None
    if plan is None:
        plan = make_plan(ws, config)
    counts = plan.count()
    entries = plan.others if not_fresh else plan.entries  # others: sorted, none of them fresh
    files = tuple(
        StatusFile(
            f".wiki/wiki/{entry.article}",
            None if entry.raw is None else f".wiki/raw/{entry.raw}",
            entry.state.value,
        )
        for entry in entries
    )
    fresh = counts[State.FRESH] == sum(counts.values()) and not plan.problems
    totals = {state.value: counts[state] for state in State}
    problems = tuple(refused(ws, config, plan))
    answer = StatusAnswer(fresh, totals, files, problems, ws.index_json, config.fingerprint)
    return replace(answer, rules=_rules(ws, config))


def _rules(ws: Workspace, config: Config) -> tuple[StatusRule, ...]:
    """Each rule of raw/lessons/, with its confidence and support today."""
    from skillwiki import clock
    from skillwiki.memory.confidence import confidence_of
    from skillwiki.memory.store import LESSONS_DIR, load_lessons

    if not (ws.raw / LESSONS_DIR).is_dir():
        return ()
    lessons = load_lessons(ws, config)
    today = clock.today()
    found = []
    for rule in lessons.values():
        if rule.is_rule:
            measured = confidence_of(rule, lessons, today, config)
            found.append(StatusRule(rule.id, rule.status, measured.confidence, measured.support))
    return tuple(found)


def file_fingerprint(path: Path, algorithm: str) -> str:
    """A file's fingerprint by `algorithm` (the workspace's): what --expect-fingerprint
    compares."""
    from skillwiki.fingerprint import fingerprint

    return fingerprint(path.read_bytes(), algorithm)
