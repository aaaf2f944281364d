"""Bring wiki/ and the indexes up to date: `plan` works out the state of every article (fresh,
new, stale, orphan, edited) from the stat cache, looking into what it cannot vouch for with
`freshness`; `apply` acts on the plan under the workspace lock."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillwiki import lazy

if TYPE_CHECKING:
    from skillwiki.compiler.apply import (
        CompileResult,
        Progress,
        compile_workspace,
        warm_up,
    )
    from skillwiki.compiler.freshness import (
        Entry,
        Facts,
        Problem,
        State,
        facts_of,
        read_row,
        row_key,
    )
    from skillwiki.compiler.plan import Plan, cache_path, make_plan
    from skillwiki.compiler.refusals import refusal, refusal_of, refused

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
    "facts_of",
    "read_row",
    "refusal",
    "refusal_of",
    "refused",
    "row_key",
    "warm_up",
]

# Each name, and the module it is loaded from the first time it is asked for: a read that
# finds everything fresh plans without loading what writes articles.
__getattr__ = lazy.exports(
    __name__,
    {
        "CompileResult": "apply",
        "Progress": "apply",
        "compile_workspace": "apply",
        "refusal": "refusals",
        "refusal_of": "refusals",
        "refused": "refusals",
        "warm_up": "apply",
        "Entry": "freshness",
        "Facts": "freshness",
        "Problem": "freshness",
        "State": "freshness",
        "facts_of": "freshness",
        "read_row": "freshness",
        "row_key": "freshness",
        "Plan": "plan",
        "cache_path": "plan",
        "make_plan": "plan",
    },
)
