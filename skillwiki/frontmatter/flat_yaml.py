"""The flat YAML that skillwiki writes, read and written without importing a YAML library.

Frontmatter as skillwiki writes it is flat: `key: scalar`, `key: []`, `key:` then `  - scalar`
items. That subset is read and written here, exactly as PyYAML with skillwiki's rules would
(tests hold the two to the same values and the same bytes); anything else is left to
`strict_yaml` (answer None), and so is any scalar whose type only YAML's resolvers can tell
(numbers, dates). `documents.split` reads frontmatter through `read` before it loads the
library; an article is written through `dump` without a YAML library or PyYAML's slower emitter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?")
_ITEM = re.compile(r"  - (.*)")
INDICATORS = frozenset("[]{}#&*!|>'\"%@`,?:")
NO_VALUE: Any = object()  # a scalar outside the subset
# First characters for which YAML's implicit resolvers may type a plain scalar as other than a
# string, beyond the words below: left to the resolver (`resolve`).
RESOLVED_FIRST = frozenset("-+0123456789.<=~")
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("null", "Null", "NULL"), None),
}
Resolve = Callable[[str], Any]


def load(source: str, resolve: Resolve | None = None) -> dict[str, Any] | None:
    """Read the flat subset, or return None for anything else (the real loader decides).

    `resolve` types plain scalars starting with one of RESOLVED_FIRST; without it such a
    scalar makes the answer None.
    """
    result: dict[str, Any] = {}
    listing: str | None = None  # the key whose `  - item` lines are being read
    for line in source.split("\n"):
        item = _ITEM.fullmatch(line)
        if item is not None:
            value = scalar(item.group(1), resolve)
            if listing is None or value is NO_VALUE:
                return None
            result[listing].append(value)
            continue
        _end_listing(result, listing)
        listing = None
        if not line:
            continue
        entry = _entry(line, result, resolve)
        if entry is None:
            return None
        key, value = entry
        listing = key if value is _OPENS_LIST else None
        result[key] = [] if value is _OPENS_LIST else value
    _end_listing(result, listing)
    return result


_OPENS_LIST: Any = object()  # `key:` alone: its `  - item` lines follow


def _entry(line: str, taken: dict[str, Any], resolve: Resolve | None) -> tuple[str, Any] | None:
    """The key and value of a `key: value` line (_OPENS_LIST for `key:` alone); None when the
    line is not flat, repeats a key of `taken`, or has a key YAML reads as a non-string."""
    found = _KEY.fullmatch(line)
    if found is None:
        return None
    key, raw = found.group(1), found.group(2)
    if key in taken or scalar(key, resolve) != key:  # `true:` is a boolean key
        return None
    if raw is None:
        return key, _OPENS_LIST
    value = [] if raw == "[]" else scalar(raw, resolve)
    return None if value is NO_VALUE else (key, value)


def _end_listing(result: dict[str, Any], listing: str | None) -> None:
    """`key:` with no item under it is null."""
    if listing is not None and not result[listing]:
        result[listing] = None


def scalar(raw: str, resolve: Resolve | None = None) -> Any:
    """The value of one scalar of the subset, or NO_VALUE.

    A scalar starting with one of RESOLVED_FIRST is typed by `resolve` (NO_VALUE without it).
    """
    if raw[:1] in RESOLVED_FIRST and raw:
        return NO_VALUE if resolve is None else resolve(raw)
    return _scalar(raw)


PLAIN = object()  # a plain scalar: what it is, its resolver says


def quoted_or_plain(raw: str) -> Any:
    """The value of a quoted scalar; PLAIN for a plain one (the caller resolves its type);
    NO_VALUE where the flat subset cannot be sure of it."""
    if not raw or raw != raw.strip() or " #" in raw or ": " in raw or raw.endswith(":"):
        return NO_VALUE
    if raw[0] in "'\"":
        return _quoted(raw)
    if raw[0] in INDICATORS or "\t" in raw or raw == "-" or raw.startswith("- "):
        return NO_VALUE
    return PLAIN


def _quoted(raw: str) -> Any:
    """A single- or double-quoted scalar's value; NO_VALUE for escapes (PyYAML's call) or a
    quote that ends it early."""
    quote, inner = raw[0], raw[1:-1]
    if len(raw) < 2 or raw[-1] != quote:
        return NO_VALUE
    if quote == "'":  # '' is a quote; any other quote inside ends it
        return NO_VALUE if "'" in inner.replace("''", "") else inner.replace("''", "'")
    return NO_VALUE if '"' in inner or "\\" in inner else inner


@lru_cache(maxsize=8192)  # frontmatter repeats itself: types, compiler, tags
def _scalar(raw: str) -> Any:
    value = quoted_or_plain(raw)
    return _WORDS.get(raw, raw) if value is PLAIN else value


def dump(meta: dict[str, Any]) -> str | None:
    """Write a mapping of strings and lists of strings the way `strict_yaml.dump` would, when sure
    how it writes every value; None otherwise (`strict_yaml.dump` decides)."""
    lines = []
    for key, value in meta.items():
        line = _line(key, value)
        if line is None:
            return None
        lines.append(line)
    return "".join(lines) or None


def _line(key: object, value: object) -> str | None:
    """One key and its value as `strict_yaml.dump` writes them, or None when unsure."""
    if not (isinstance(key, str) and _KEY.fullmatch(f"{key}:") and _written(key) == key):
        return None
    if isinstance(value, str):
        written = _written(value)
        return None if written is None else f"{key}: {written}\n"
    if not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        return None
    if not value:
        return f"{key}: []\n"
    items = [_written(item) for item in value]
    if any(item is None for item in items):
        return None
    return f"{key}:\n" + "".join(f"  - {item}\n" for item in items)


_PRINTABLE = re.compile(r"[\x20-\x7e]*")
_ALWAYS_QUOTED_FIRST = frozenset("#,[]{}&*!|>'\"%@`")


def _written(value: str) -> str | None:
    """How PyYAML writes a one-line printable ASCII string: plain, or in single quotes when
    plain cannot be read back as the same string; None when unsure (or another character)."""
    if _PRINTABLE.fullmatch(value) is None:
        return None
    if (
        not value
        or value[0] == " "
        or value[-1] == " "
        or value[0] in _ALWAYS_QUOTED_FIRST
        or ": " in value
        or " #" in value
        or value.endswith(":")
        or value in _WORDS
        or value == "~"
    ):
        return "'" + value.replace("'", "''") + "'"
    if value[0] in RESOLVED_FIRST or value[0] in "?:" or value.lower() in ("y", "n"):
        return None  # YAML's resolvers or indicators decide: leave it to PyYAML
    return value
