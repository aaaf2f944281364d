"""The shape the package keeps as it grows: no module over 450 lines, no function over
cyclomatic complexity 15 (radon's measure, which counts boolean operators and comprehensions
that ruff's C901 leaves out)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import REPO

PACKAGE = REPO / "skillwiki"
MAX_LINES = 450
MAX_COMPLEXITY = 15
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _name(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_module_is_over_the_line_limit(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{_name(path)}: {lines} lines"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_function_is_over_the_complexity_limit(path: Path) -> None:
    from radon.complexity import cc_visit
    from radon.visitors import Class

    def functions(blocks: list[Any]) -> list[Any]:
        found = []
        for block in blocks:
            if isinstance(block, Class):
                found += functions(block.methods) + functions(block.inner_classes)
            else:
                found += [block, *functions(block.closures)]
        return found

    over = [
        f"{block.name} (line {block.lineno}): {block.complexity}"
        for block in functions(cc_visit(path.read_text(encoding="utf-8")))
        if block.complexity > MAX_COMPLEXITY
    ]
    assert not over, f"{_name(path)}: {over}"


def test_the_measure_sees_a_complex_function() -> None:
    """The limit can fail: a function of 16 branches is measured at 17."""
    from radon.complexity import cc_visit

    body = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(16))
    [block] = cc_visit(f"def f(x):\n{body}    return -1\n")
    assert block.complexity == 17 > MAX_COMPLEXITY
