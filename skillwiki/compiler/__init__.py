"""Bring wiki/ and the indexes up to date: `plan` works out the state of every article (fresh,
new, stale, orphan, edited) from the stat cache, `apply` acts on it under the workspace lock."""

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
from skillwiki.compiler.plan import (
    Entry,
    Facts,
    Plan,
    Problem,
    State,
    cache_path,
    make_plan,
    read_facts,
    read_row,
    row_key,
)

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
