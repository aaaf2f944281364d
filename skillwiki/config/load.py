"""Read .wiki/config.toml: a regular file of at most a megabyte, valid UTF-8 and TOML, whose
every key names a setting and whose every value has the setting's type."""

from __future__ import annotations

import math
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from skillwiki.config.schema import Config
from skillwiki.config.values import check_values
from skillwiki.errors import ConfigError

MAX_CONFIG_BYTES = 1 << 20  # a settings file of more than a megabyte is not one


def load_config(path: Path, shown: str | None = None) -> Config:
    """Load `path` (a missing file means all defaults) and validate every key.

    Errors name the file as `shown` (the path as the user knows it) when given.
    """
    return _load(path, Path(shown) if shown else path)


def _load(file: Path, path: Path) -> Config:
    """The settings in `file`, named `path` in errors."""
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
    """The settings a parsed TOML document holds, every value checked."""
    config: Config = _build(Config, data, path, "")
    check_values(config, path)
    return config


def _build(cls: Any, data: dict[str, Any], path: Path, prefix: str) -> Any:
    """An instance of the settings table `cls` (a named tuple) from its table in the file
    (`prefix`: the table's dotted name, for errors); a key it has no field for is an error."""
    defaults: dict[str, Any] = cls._field_defaults
    values: dict[str, Any] = {}
    for key, value in data.items():
        dotted = prefix + key
        if key not in defaults:
            known = ", ".join(sorted(defaults))
            raise ConfigError(path, f"unknown key; known keys here: {known}", dotted)
        default = defaults[key]
        if hasattr(default, "_field_defaults"):
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
    """A type's name as an error message says it: `an integer`, `true or false`."""
    return {"bool": "true or false", "int": "an integer", "float": "a number"}.get(
        kind, "a string" if kind == "str" else kind
    )
