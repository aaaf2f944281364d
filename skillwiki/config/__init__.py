"""Read .wiki/config.toml into a frozen dataclass; an unknown key or a wrong type is an error.

The package: schema (the settings and their defaults), load (reading the file and the type of
each value), values (the ranges and other checks on values) and link_patterns (the linear-time
matcher of `[lint.links] ignore`).
"""

from __future__ import annotations

from skillwiki.config.link_patterns import link_pattern
from skillwiki.config.load import MAX_CONFIG_BYTES, load_config
from skillwiki.config.schema import (
    FINGERPRINT_ALGORITHMS,
    RULE_SETTINGS,
    Config,
    LessonsConfig,
    LinksConfig,
    LintConfig,
    MaintainConfig,
    RecallConfig,
    RulesConfig,
    SearchConfig,
    SuggestConfig,
    rule_ids,
    rule_modules,
    value_of,
)
from skillwiki.config.values import CENTURY, MAX_LOCK_TIMEOUT, RANGES, Range

__all__ = [
    "CENTURY",
    "FINGERPRINT_ALGORITHMS",
    "MAX_CONFIG_BYTES",
    "MAX_LOCK_TIMEOUT",
    "RANGES",
    "RULE_SETTINGS",
    "Config",
    "LessonsConfig",
    "LinksConfig",
    "LintConfig",
    "MaintainConfig",
    "Range",
    "RecallConfig",
    "RulesConfig",
    "SearchConfig",
    "SuggestConfig",
    "link_pattern",
    "load_config",
    "rule_ids",
    "rule_modules",
    "value_of",
]
