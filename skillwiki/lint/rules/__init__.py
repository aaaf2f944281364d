"""The lint rules, one module each (swNNN_name.py), each declaring its RULE; RULES is them all,
in id order, found from the module names that config.rule_modules() lists."""

from __future__ import annotations

import importlib

from skillwiki.config import rule_modules
from skillwiki.lint.model import Rule


def _load() -> tuple[Rule, ...]:
    rules = []
    for name in rule_modules():
        rule = importlib.import_module(f"{__name__}.{name}").RULE
        assert isinstance(rule, Rule) and name.upper().startswith(rule.id), name
        rules.append(rule)
    return tuple(rules)


RULES = _load()
