"""Bring wiki/ and the indexes up to date: `plan` works out the state of every article (fresh,
new, stale, orphan, edited) from the stat cache, looking into what it cannot vouch for with
`freshness`; `apply` acts on the plan under the workspace lock."""

from __future__ import annotations

from skillwiki.compiler.apply import (
    CompileResult,
    Progress,
    compile_workspace,
    refusal,
    refusal_of,
    refused,
    warm_up,
)
from skillwiki.compiler.freshness import Entry, Facts, Problem, State, read_facts, read_row, row_key
from skillwiki.compiler.plan import Plan, cache_path, make_plan

__all__ = [
    "CompileResult",
    "Entry",
    "Facts",
    "Plan",
    "Problem",
    "Progress",
    "State",
    "cache_path",
    "compile_workspace",
    "make_plan",
    "read_facts",
    "read_row",
    "refusal",
    "refusal_of",
    "refused",
    "row_key",
    "warm_up",
]
