"""The patterns of `[lint.links] ignore`, turned into expressions that run in time linear in a
link's length."""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

# The patterns of `[lint.links] ignore` run in time linear in a link's length: a link a pull
# request adds cannot hang CI however the pattern is written (`^(a+)+$` took minutes of a
# backtracking engine on a 31-byte link, `[a-z]+\d` 25 s on 40 kB). A pattern is read by
# Python's own parser and taken when it is a glob in disguise: literals, `.`, classes,
# `.*` and `.+` (any run), `^` and `$` at its ends, alternatives and groups, `?` and counts up
# to 8 (each written out as the alternatives they stand for, 64 at most). Each alternative is
# then matched as fnmatch matches a glob: the first place each fixed run of letters can go,
# that place never taken back (an atomic group), so the engine never backtracks.
_MAX_ALTERNATIVES = 64
_MAX_COUNT = 8
_ANY_RUN = "*"  # a run of any characters, among the single-character expressions below


@functools.lru_cache(maxsize=256)
def link_pattern(pattern: str) -> tuple[re.Pattern[str], ...]:
    """The expressions that match a link target where `pattern` finds a match in it, each
    matched in linear time (`.match`); re.error if it is no regular expression, ValueError
    naming what it uses beyond the linear subset."""
    re.compile(pattern)  # its own error first
    parser: Any = importlib.import_module("re._parser")
    parsed = parser.parse(pattern)
    flags = parsed.state.flags & (re.IGNORECASE | re.ASCII)
    if parsed.state.flags & re.LOCALE:
        raise ValueError("uses the LOCALE flag")
    return tuple(
        re.compile(_matcher(alternative), flags) for alternative in _alternatives(list(parsed))
    )


def _alternatives(items: list[tuple[Any, Any]]) -> list[list[str]]:
    """Each way through `items` as a list of single-character expressions, `^`, `$` and
    _ANY_RUN."""
    ways: list[list[str]] = [[]]
    for op, arg in items:
        ways = [way + more for way in ways for more in _item(str(op), arg)]
        if len(ways) > _MAX_ALTERNATIVES:
            raise ValueError(
                f"stands for more than {_MAX_ALTERNATIVES} alternatives (`?`, `|` and counts "
                "multiply); write fewer"
            )
    return ways


def _item(op: str, arg: Any) -> list[list[str]]:
    match op:
        case "LITERAL":
            return [[re.escape(chr(arg))]]
        case "NOT_LITERAL":
            return [[f"[^{re.escape(chr(arg))}]"]]
        case "ANY":
            return [["[^\\n]"]]
        case "IN":
            return [[_class(arg)]]
        case "AT" if str(arg) in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
            return [["^"]]
        case "AT" if str(arg) in ("AT_END", "AT_END_STRING"):
            return [["$"]]
        case "BRANCH":
            return [way for branch in arg[1] for way in _alternatives(list(branch))]
        case "SUBPATTERN" if not arg[1] and not arg[2]:  # no flags of its own
            return _alternatives(list(arg[3]))
        case "MAX_REPEAT" | "MIN_REPEAT":
            return _repeat(*arg)
    raise ValueError(
        f"uses {_NAMES.get(op, op.lower())}, which may take longer than the link is long; "
        "use literals, `.`, classes, `.*`, `.+`, `?`, `|`, groups, and `^`/`$` at the ends"
    )


_NAMES = {
    "AT": "a word boundary or a line anchor inside the pattern",
    "ASSERT": "a look-ahead or look-behind",
    "ASSERT_NOT": "a look-ahead or look-behind",
    "GROUPREF": "a backreference",
    "GROUPREF_EXISTS": "a conditional group",
    "ATOMIC_GROUP": "an atomic group",
    "POSSESSIVE_REPEAT": "a possessive repeat",
    "SUBPATTERN": "a group with flags of its own",
}


def _repeat(low: int, high: int, items: Any) -> list[list[str]]:
    once = _alternatives(list(items))
    if high > _MAX_COUNT:  # MAXREPEAT, too: unbounded
        if once == [["[^\\n]"]]:  # `.*`, `.+`: a run of any characters
            return [["[^\\n]"] * low + [_ANY_RUN]] if low <= _MAX_COUNT else _too_many()
        raise ValueError(
            "repeats something other than `.` without bound, or more than "
            f"{_MAX_COUNT} times (a nested or repeated quantifier can take longer than the "
            "link is long); write `.*` or `.+` instead"
        )
    ways: list[list[str]] = []
    for count in range(low, high + 1):
        ways += _alternatives([("SUBPATTERN", (None, 0, 0, list(items)))] * count)
        if len(ways) > _MAX_ALTERNATIVES:
            return _too_many()
    return ways


def _too_many() -> list[list[str]]:
    raise ValueError(f"stands for more than {_MAX_ALTERNATIVES} alternatives; write fewer")


_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def _class(items: Any) -> str:
    """A character class as a regular expression, from its parsed items."""
    parts = []
    for op, arg in items:
        match str(op):
            case "NEGATE":
                parts.append("^")
            case "LITERAL":
                parts.append(re.escape(chr(arg)))
            case "RANGE":
                parts.append(f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}")
            case "CATEGORY" if str(arg) in _CATEGORIES:
                parts.append(_CATEGORIES[str(arg)])
            case _:
                raise ValueError(f"uses {str(op).lower()} in a character class")
    return "[" + "".join(parts) + "]"


def _matcher(way: list[str]) -> str:
    """One alternative as an expression for `.match` that runs in linear time: its fixed runs
    of characters between runs of any, the first place each can go found and kept, as fnmatch
    translates a glob."""
    if "^" in way[1:] or "$" in way[:-1]:
        raise ValueError("has `^` or `$` inside it; they may stand only at its start or end")
    anchored, ended = way[:1] == ["^"], way[-1:] == ["$"]
    runs = [""]
    for token in way[1 if anchored else 0 : len(way) - 1 if ended else len(way)]:
        if token == _ANY_RUN:
            runs.append("")
        else:
            runs[-1] += token
    if not anchored:  # a match may start anywhere: a run of any before it
        runs.insert(0, "")
    if not ended:
        runs.append("")
    if len(runs) == 1:
        return rf"{runs[0]}\Z"
    first, *middle, last = runs
    held = "".join(rf"(?>[\s\S]*?{run})" for run in middle)
    return rf"{first}{held}[\s\S]*{last}\Z"
