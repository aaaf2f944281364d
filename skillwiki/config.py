"""Read .wiki/config.toml into a frozen dataclass; an unknown key or a wrong type is an error."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
import os
import posixpath
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
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


MAX_CONFIG_BYTES = 1 << 20  # a settings file of more than a megabyte is not one


def _load(file: Path, path: Path) -> Config:
    data = _read(file, path)
    if data is None:
        return Config()
    try:
        # Line breaks as reading the file as text took them (\r\n and a lone \r are \n).
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        settings = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(path, "not valid UTF-8; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"invalid TOML ({exc}); fix the syntax") from None
    return _settings(settings, path)


def _read(file: Path, path: Path) -> bytes | None:
    """The file's bytes (None: there is none): a regular file only, opened without waiting (a
    FIFO), and at most MAX_CONFIG_BYTES."""
    try:
        descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(path, f"cannot be read ({exc.strerror})") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):  # checked before the open file is made of it, which refuses a folder
        os.close(descriptor)
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise ConfigError(path, f"is {kind}; the settings must be a TOML file (or none)")
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise ConfigError(path, f"cannot be read ({exc.strerror})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(path, f"is over {MAX_CONFIG_BYTES} bytes; it cannot be the settings")
    return data


def _settings(data: dict[str, Any], path: Path) -> Config:
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
CENTURY = 36_500  # days: the most any setting in days may be


@dataclass(frozen=True)
class Range:
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
}


def value_of(config: Config, key: str) -> Any:
    """The value of a setting named by its dotted key (`maintain.archive_after_days`)."""
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


def _check_values(config: Config, path: Path) -> None:
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
    for number, pattern in enumerate(config.lint.links.ignore):
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
    _check_rules(config.lint.rules, path)


def _check_folders(links: LinksConfig, path: Path) -> None:
    """`root` and `static` name folders of the repository: relative, and never above it."""
    for key, folders in (("lint.links.root", [links.root]), ("lint.links.static", links.static)):
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
