"""The checks on the values of settings that their types do not make: number ranges, the
fingerprint algorithm, folders inside the repository, link patterns, rule ids and settings."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PureWindowsPath
from typing import NamedTuple

from skillwiki.config.link_patterns import link_pattern
from skillwiki.config.schema import (
    FINGERPRINT_ALGORITHMS,
    RULE_SETTINGS,
    Config,
    LinksConfig,
    rule_ids,
    value_of,
)
from skillwiki.errors import ConfigError

MAX_LOCK_TIMEOUT = 3600.0  # a writer that waits longer than an hour has been forgotten
CENTURY = 36_500  # days: the most any setting in days may be


class Range(NamedTuple):
    """The values a number setting may take: from `low` (above it, if `above`) to `high`."""

    low: float
    high: float
    unit: str = ""
    above: bool = False  # `low` itself is not allowed

    def holds(self, value: float) -> bool:
        return (value > self.low if self.above else value >= self.low) and value <= self.high

    def __str__(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        low, high = _number(self.low), _number(self.high)
        if self.above:
            return f"greater than {low} and at most {high}{unit}"
        return f"from {low} to {high}{unit}"


def _number(value: float) -> str:
    """A bound as people write it: 1000000, not 1e+06; 0.5 as it is."""
    return str(int(value)) if value == int(value) else f"{value:g}"


# Every number setting's range, checked at load. A count that triggers or limits something
# starts at 1 (0 would trigger on every run, or show nothing); a share (a Jaccard similarity,
# a confidence) lies from 0 to 1; days reach a century at most.
RANGES: dict[str, Range] = {
    "max_file_bytes": Range(1, 1 << 30, "bytes"),
    "lock_timeout": Range(0, MAX_LOCK_TIMEOUT, "seconds"),
    "lint.near_duplicate_jaccard": Range(0, 1),
    "suggest.replans": Range(1, 1000),
    "suggest.consecutive_failures": Range(1, 1000),
    "suggest.repeated_failures": Range(1, 1000),
    "suggest.retries": Range(1, 1000),
    "suggest.cost_factor": Range(0, 1000, above=True),
    "suggest.confidence_low": Range(0, 1),
    "suggest.confidence_high": Range(0, 1),
    "recall.budget": Range(1, 1_000_000, "characters"),
    "recall.max_entries": Range(1, 1000),
    "recall.min_confidence": Range(0, 1),
    "recall.half_life_days": Range(0, CENTURY, "days", above=True),
    "maintain.archive_after_days": Range(1, CENTURY, "days"),
    "maintain.dedupe_jaccard": Range(0, 1),
    "maintain.promote_hits": Range(0, 1_000_000),
    "maintain.promote_min_age_days": Range(0, CENTURY, "days"),
    "rules.min_lessons": Range(2, 1000),
    "rules.similarity": Range(0, 1),
    "rules.due_lessons": Range(1, 1_000_000),
    "rules.due_feedback": Range(1, 1_000_000),
    "rules.due_days": Range(1, CENTURY, "days"),
    "rules.full_support": Range(1, 1_000_000),
    "rules.min_confidence": Range(0, 1),
    "rules.min_support": Range(1, 1_000_000),
    "rules.global_confidence": Range(0, 1),
    "rules.global_support": Range(1, 1_000_000),
    "rules.review_days": Range(0, CENTURY, "days"),
    "serve.idle": Range(0, 7 * 86400, "seconds", above=True),
}


def check_values(config: Config, path: Path) -> None:
    """Raise ConfigError naming the first setting of `config` whose value is not allowed."""
    if config.fingerprint not in FINGERPRINT_ALGORITHMS:
        raise ConfigError(
            path, f"must be one of {', '.join(FINGERPRINT_ALGORITHMS)}", "fingerprint"
        )
    for key, allowed in RANGES.items():
        if not allowed.holds(value_of(config, key)):
            raise ConfigError(path, f"must be {allowed}", key)
    if config.suggest.confidence_low > config.suggest.confidence_high:
        raise ConfigError(
            path, "must not be over suggest.confidence_high", "suggest.confidence_low"
        )
    _check_folders(config.lint.links, path)
    _check_languages(config.lint.links, path)
    _check_includes(config.lint.links.includes, path)
    _check_copies(config.lint.copies, path)
    _check_copies(config.search.prefer, path, "search.prefer")
    _check_link_patterns(config.lint.links.ignore, path)
    _check_rules(config.lint.rules, path)


def _check_link_patterns(patterns: list[str], path: Path) -> None:
    """Each pattern of `[lint.links] ignore` is a regular expression of the linear subset."""
    for number, pattern in enumerate(patterns):
        if len(pattern) > 1000:
            raise ConfigError(
                path, f"pattern {number + 1} is over 1000 characters", "lint.links.ignore"
            )
        try:
            link_pattern(pattern)
        except re.error as exc:
            raise ConfigError(
                path, f"not a regular expression ({exc})", "lint.links.ignore"
            ) from None
        except ValueError as exc:
            raise ConfigError(path, f"{pattern!r}: {exc}", "lint.links.ignore") from None


def _check_copies(patterns: list[str], path: Path, key: str = "lint.copies") -> None:
    """Each pattern of `lint.copies` (or of `key`) names folders: one name, no path, not
    empty."""
    for pattern in patterns:
        if (
            not pattern
            or len(pattern) > 200
            or "/" in pattern
            or "\\" in pattern
            or pattern in (".", "..")
            or any(ord(char) < 32 for char in pattern)
        ):
            raise ConfigError(
                path,
                f"must be folder names (globs such as 'v[0-9]*'), not paths: {pattern!r}",
                key,
            )


def _check_folders(links: LinksConfig, path: Path) -> None:
    """`root`, `static`, `include_root`, the folders of `mounts` and the files of `redirects`
    name places in the repository: relative, and never above it; a mount is a URL path."""
    for prefix, value in links.mounts.items():
        if not prefix.startswith("/") or not value.split():
            raise ConfigError(
                path,
                f"a URL path starting with / and its folders, not {prefix!r}",
                "lint.links.mounts",
            )
    for key, folders in (
        ("lint.links.root", [links.root]),
        ("lint.links.static", links.static),
        ("lint.links.include_root", [links.include_root]),
        (
            "lint.links.mounts",
            [folder for value in links.mounts.values() for folder in value.split()],
        ),
        ("lint.links.redirects", links.redirects),
    ):
        for folder in folders:
            normal = posixpath.normpath(folder.replace("\\", "/")) if folder else "."
            if (
                normal.startswith("/")
                or normal == ".."
                or normal.startswith("../")
                or PureWindowsPath(folder).drive
                or any(ord(char) < 32 for char in folder)
            ):
                raise ConfigError(
                    path,
                    f"must be a folder inside the repository, relative to its root, not {folder!r}",
                    key,
                )


def _check_languages(links: LinksConfig, path: Path) -> None:
    """`languages`, `fallback` and `folder_aliases` name folders directly under `root`: one
    name each; the fallback is no language that falls back, and an alias is not its folder."""
    for name in links.languages:
        if not _folder_name(name):
            raise ConfigError(
                path, f"must be folder names under root, not {name!r}", "lint.links.languages"
            )
    if links.fallback and not _folder_name(links.fallback):
        raise ConfigError(
            path, f"must be a folder name under root, not {links.fallback!r}", "lint.links.fallback"
        )
    for alias, folder in links.folder_aliases.items():
        if not (_folder_name(alias) and _folder_name(folder)) or alias == folder:
            raise ConfigError(
                path,
                f"an alias and the folder it serves, two folder names under root, not {alias!r}",
                "lint.links.folder_aliases",
            )
    if links.fallback in links.languages:
        raise ConfigError(
            path, f"{links.fallback!r} is also in lint.links.languages", "lint.links.fallback"
        )


def _check_includes(names: list[str], path: Path) -> None:
    """`includes` names template calls: letters, digits, `_ . / -`, as Hugo and Liquid
    name them."""
    for name in names:
        if not (0 < len(name) <= 100 and all(char.isalnum() or char in "_./-" for char in name)):
            raise ConfigError(
                path,
                f"must be template names (letters, digits, _ . / -), not {name!r}",
                "lint.links.includes",
            )


def _folder_name(name: str, empty: bool = False) -> bool:
    """Whether `name` is one folder's name (or, where `empty`, nothing)."""
    if not name:
        return empty
    return (
        len(name) <= 200
        and "/" not in name
        and "\\" not in name
        and name not in (".", "..")
        and not any(ord(char) < 32 for char in name)
    )


def _check_rules(rules: dict[str, str], path: Path) -> None:
    """Each rule named in `[lint.rules]` exists and is set to one of RULE_SETTINGS."""
    known = rule_ids() if rules else []
    for rule, setting in rules.items():
        if rule not in known:
            raise ConfigError(
                path,
                f"unknown rule id; rules are {known[0]} to {known[-1]}",
                f"lint.rules.{rule}",
            )
        if setting not in RULE_SETTINGS:
            raise ConfigError(
                path, f"must be one of {', '.join(RULE_SETTINGS)}", f"lint.rules.{rule}"
            )
