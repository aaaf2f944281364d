"""python-frontmatter handlers for the frontmatter skillwiki reads: strict YAML and TOML.

python-frontmatter detects the format and splits the block from the body; the handlers here
load it the way skillwiki must: YAML with the strict safe loader of `strict_yaml` (no duplicate
keys, no aliases, dates as text) and closed by `---` or `...`; TOML with the standard library's
`tomllib` (dates and times as text too, so both formats give the same values). The flat YAML
that skillwiki itself writes never reaches them: `documents.split` reads it first, on the same
boundaries, without importing the library (held equal to it by tests).
"""

from __future__ import annotations

import datetime
import re
import tomllib
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from frontmatter.default_handlers import BaseHandler, YAMLHandler

from skillwiki.errors import InputError
from skillwiki.frontmatter import strict_yaml
from skillwiki.frontmatter.fences import TOML_BOUNDARY, YAML_BOUNDARY, YAML_OPENING


class StrictYAMLHandler(YAMLHandler):
    """YAML between `---` and `---` (or YAML's document end `...`), loaded strictly."""

    FM_BOUNDARY = YAML_BOUNDARY

    def detect(self, text: str) -> bool:
        return YAML_OPENING.match(text) is not None

    def load(self, fm: str, **kwargs: object) -> Any:
        return load_yaml(fm, str(kwargs.get("where", "")))


class TOMLHandler(BaseHandler):
    """TOML between `+++` lines (Hugo), loaded with tomllib."""

    FM_BOUNDARY = TOML_BOUNDARY
    START_DELIMITER = END_DELIMITER = "+++"

    def load(self, fm: str, **kwargs: object) -> Any:
        try:
            return _as_text(tomllib.loads(fm))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(
                str(kwargs.get("where", "")), f"unparsable TOML frontmatter: {exc}"
            ) from None


def load_yaml(source: str, where: Path | str) -> dict[str, Any]:
    """Load frontmatter YAML safely: a mapping, no duplicate keys, no aliases, dates as text."""
    try:
        value = strict_yaml.load(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(where, f"unparsable YAML frontmatter{line}: {problem}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else f"a {type(value).__name__}"
        raise InputError(where, f"frontmatter must be a mapping of keys to values, not {kind}")
    return {str(key): item for key, item in value.items()}


HANDLERS = (StrictYAMLHandler(), TOMLHandler())


MAX_DEPTH = 50  # lists and mappings within each other; real frontmatter nests two or three
# Past this many open brackets, or this much indentation, the text is not handed to a loader
# at all: libyaml parses nesting recursively and some builds overflow the C stack (a crash, not
# an exception) near 100,000 levels. A bracket inside a string counts too, so the bound is far
# above anything real.
MAX_LOADER_DEPTH = 1000
_NOT_NESTING = re.compile(r"[^\[\]{}]+")


def _nesting(text: str) -> int:
    """The deepest run of open brackets, or the widest indentation, in `text` (cheaply)."""
    deepest = depth = 0
    for char in _NOT_NESTING.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    indent = max((len(line) - len(line.lstrip(" ")) for line in text.split("\n")), default=0)
    return max(deepest, indent // 2)


def split(text: str, where: Path | str) -> tuple[dict[str, Any], str] | None:
    """The frontmatter at the start of `text`, loaded, and the body after it; None when the
    text opens no block or never closes the one it opens (its `---` is then the body's).

    Whatever the text, the frontmatter is plain values (str, int, float, bool, None, lists and
    mappings of them, no deeper than MAX_DEPTH, every string storable as UTF-8) or an
    InputError: loaders that fail in other ways (nesting past the recursion limit, an integer
    of thousands of digits, an unhashable key) are turned into one.
    """
    handler = frontmatter.detect_format(text, HANDLERS)
    if handler is None:
        return None
    try:
        metadata, body = handler.split(text)
    except ValueError:  # the handler's split unpacks three parts: the block never closes
        return None
    body = body[1:] if body.startswith("\n") else body
    assert isinstance(handler, StrictYAMLHandler | TOMLHandler)  # HANDLERS are these
    return _load(handler, metadata, where), body


def _load(
    handler: StrictYAMLHandler | TOMLHandler, metadata: str, where: Path | str
) -> dict[str, Any]:
    kind = "TOML" if isinstance(handler, TOMLHandler) else "YAML"
    try:
        if _nesting(metadata) > MAX_LOADER_DEPTH:  # refused before a C parser recurses into it
            raise InputError(
                where, f"unparsable {kind} frontmatter: nested more than {MAX_DEPTH} levels deep"
            )
        loaded = handler.load(metadata, where=where)
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        detail = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        if isinstance(exc, RecursionError):
            detail = f"nested more than {MAX_DEPTH} levels deep"
        raise InputError(where, f"unparsable {kind} frontmatter: {detail}") from None
    return {str(key): _plain(value, where, 1) for key, value in _checked_keys(loaded, where)}


def _checked_keys(mapping: dict[Any, Any], where: Path | str) -> list[tuple[str, Any]]:
    items = []
    for key, value in mapping.items():
        if not isinstance(key, str | int | float | bool) and key is not None:
            raise InputError(where, f"frontmatter keys must be plain names, not {key!r:.60}")
        items.append((_storable(str(key), where), value))
    return items


def _plain(value: Any, where: Path | str, depth: int) -> Any:
    """`value` as plain values, or an InputError saying what cannot be kept."""
    if depth > MAX_DEPTH:
        raise InputError(where, f"frontmatter is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        return _storable(value, where)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item, where, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item, where, depth + 1) for key, item in _checked_keys(value, where)}
    if isinstance(value, bytes):
        kind = "binary data (!!binary)"
    else:
        kind = "a set (!!set)" if isinstance(value, set) else type(value).__name__
    raise InputError(where, f"frontmatter holds {kind}, not plain text")


def _storable(text: str, where: Path | str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            where, "frontmatter holds a lone surrogate (\\uD800-\\uDFFF): not storable as UTF-8"
        ) from None
    return text


def _as_text(value: Any) -> Any:
    """Dates and times as ISO text, the way skillwiki keeps YAML dates."""
    if isinstance(value, dict):
        return {key: _as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_text(item) for item in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value
