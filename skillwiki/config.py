"""Read .wiki/config.toml into a frozen dataclass; an unknown key or a wrong type is an error."""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillwiki.errors import ConfigError

FINGERPRINT_ALGORITHMS = ("xxh3", "fnv1a64")
RULE_SETTINGS = ("off", "error", "warning")


@dataclass(frozen=True)
class LinksConfig:
    """How a site generator resolves links, for SW001 (defaults: the files on disk only)."""

    root: str = ""  # repository folder that root-relative links (`/guide/x/`) start from
    # folders the site also serves at its root (VitePress `public/`, Docusaurus and Hugo `static/`)
    static: list[str] = field(default_factory=list)
    html: bool = False  # a link to `x.html` also finds `x.md` (`.mdx`), or `x.html.md`
    # `x/` or `x` also finds x.md, x/index.md, x/_index.md, x/README.md (or .mdx, .markdown)
    directories: bool = False
    ignore: list[str] = field(default_factory=list)  # regular expressions of targets to skip


@dataclass(frozen=True)
class LintConfig:
    rules: dict[str, str] = field(default_factory=dict)
    near_duplicate_jaccard: float = 0.6
    links: LinksConfig = field(default_factory=LinksConfig)


@dataclass(frozen=True)
class SuggestConfig:
    replans: int = 1
    consecutive_failures: int = 3
    repeated_failures: int = 3
    retries: int = 2
    cost_factor: float = 2.0
    confidence_low: float = 0.3
    confidence_high: float = 0.6


@dataclass(frozen=True)
class RecallConfig:
    budget: int = 1500
    max_entries: int = 5
    min_confidence: float = 0.2
    half_life_days: float = 90.0


@dataclass(frozen=True)
class LessonsConfig:
    require_review: bool = False


@dataclass(frozen=True)
class MaintainConfig:
    archive_after_days: int = 90
    dedupe_jaccard: float = 0.6
    promote_hits: int = 10
    promote_min_age_days: int = 14


@dataclass(frozen=True)
class Config:
    """Every setting of SPEC section 9, with its default."""

    fingerprint: str = "xxh3"
    max_file_bytes: int = 5_000_000
    lock_timeout: float = 30.0
    lint: LintConfig = field(default_factory=LintConfig)
    suggest: SuggestConfig = field(default_factory=SuggestConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    lessons: LessonsConfig = field(default_factory=LessonsConfig)
    maintain: MaintainConfig = field(default_factory=MaintainConfig)


def load_config(path: Path, shown: str | None = None) -> Config:
    """Load `path` (a missing file means all defaults) and validate every key.

    Errors name the file as `shown` (the path as the user knows it) when given.
    """
    try:
        return _load(path, Path(shown) if shown else path)
    except ConfigError:
        raise


def _load(file: Path, path: Path) -> Config:
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Config()
    except UnicodeDecodeError:
        raise ConfigError(path, "not valid UTF-8; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"invalid TOML ({exc}); fix the syntax") from None
    config: Config = _build(Config, data, path, "")
    _check_values(config, path)
    return config


def _build(cls: Any, data: dict[str, Any], path: Path, prefix: str) -> Any:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        dotted = prefix + key
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ConfigError(path, f"unknown key; known keys here: {known}", dotted)
        default = getattr(cls(), key)
        if dataclasses.is_dataclass(default):
            if not isinstance(value, dict):
                raise ConfigError(path, "must be a table", dotted)
            values[key] = _build(type(default), value, path, dotted + ".")
        else:
            values[key] = _coerce(value, default, path, dotted)
    return cls(**values)


def _coerce(value: Any, default: Any, path: Path, key: str) -> Any:
    """The value a setting takes from the file, when it has the type of its default."""
    if not _same_kind(value, default):
        kind = type(default).__name__
        kind = {"dict": "a table of strings", "list": "a list of strings"}.get(kind, kind)
        raise ConfigError(path, f"must be {_article(kind)}, not {value!r}", key)
    if isinstance(default, dict):
        return dict(value)
    if isinstance(default, float):
        if not math.isfinite(value):  # TOML has nan and inf: no setting means them
            raise ConfigError(path, f"must be a finite number, not {float(value)!r}", key)
        return float(value)
    return value


def _same_kind(value: Any, default: Any) -> bool:
    """Whether a value read from TOML can stand for a setting whose default is `default`
    (an integer for a number, a list or table of strings; never a bool for a number)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, int | float)
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if isinstance(default, dict):
        return isinstance(value, dict) and all(isinstance(item, str) for item in value.values())
    return isinstance(value, type(default))


def _article(kind: str) -> str:
    return {"bool": "true or false", "int": "an integer", "float": "a number"}.get(
        kind, "a string" if kind == "str" else kind
    )


MAX_LOCK_TIMEOUT = 3600.0  # a writer that waits longer than an hour has been forgotten


def _check_values(config: Config, path: Path) -> None:
    if config.fingerprint not in FINGERPRINT_ALGORITHMS:
        raise ConfigError(
            path, f"must be one of {', '.join(FINGERPRINT_ALGORITHMS)}", "fingerprint"
        )
    positive = {
        "max_file_bytes": config.max_file_bytes,
        "recall.budget": config.recall.budget,
        "recall.max_entries": config.recall.max_entries,
        "recall.half_life_days": config.recall.half_life_days,
    }
    for key, number in positive.items():
        if number <= 0:
            raise ConfigError(path, "must be greater than 0", key)
    if not 0 <= config.lock_timeout <= MAX_LOCK_TIMEOUT:
        raise ConfigError(path, f"must be from 0 to {MAX_LOCK_TIMEOUT:g} seconds", "lock_timeout")
    for number, pattern in enumerate(config.lint.links.ignore):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(
                path, f"not a regular expression ({exc})", "lint.links.ignore"
            ) from None
        if len(pattern) > 1000:
            raise ConfigError(
                path, f"pattern {number + 1} is over 1000 characters", "lint.links.ignore"
            )
    _check_rules(config.lint.rules, path)


def rule_modules() -> list[str]:
    """The lint rules' module names (sw001_links, ...), in id order, read from the folder
    they live in without importing them: the ids a config may name cost no import."""
    folder = Path(__file__).parent / "lint" / "rules"
    return sorted(path.stem for path in folder.glob("sw[0-9][0-9][0-9]_*.py"))


def rule_ids() -> list[str]:
    """SW001, SW002, ...: the id of every lint rule."""
    return [name[:5].upper() for name in rule_modules()]


def _check_rules(rules: dict[str, str], path: Path) -> None:
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
