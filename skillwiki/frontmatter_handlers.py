"""python-frontmatter handlers for the frontmatter skillwiki reads: strict YAML and TOML.

python-frontmatter detects the format and splits the block from the body; the handlers here
load it the way skillwiki must: YAML with the strict safe loader of `_yaml` (no duplicate
keys, no aliases, dates as text) and closed by `---` or `...`; TOML with the standard
library's `tomllib` (dates and times as text too, so both formats give the same values).
"""

from __future__ import annotations

import datetime
import tomllib
from pathlib import Path
from typing import Any

import frontmatter
from frontmatter.default_handlers import BaseHandler, YAMLHandler

from skillwiki.documents import TOML_BOUNDARY, YAML_BOUNDARY, load_yaml
from skillwiki.errors import InputError


class StrictYAMLHandler(YAMLHandler):
    """YAML between `---` and `---` (or YAML's document end `...`), loaded strictly."""

    FM_BOUNDARY = YAML_BOUNDARY

    def detect(self, text: str) -> bool:
        return text.startswith("---")

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


HANDLERS = (StrictYAMLHandler(), TOMLHandler())


def load(text: str, where: Path | str) -> dict[str, Any]:
    """Load the frontmatter block at the start of `text` (the caller knows it is closed)."""
    handler = frontmatter.detect_format(text, HANDLERS)
    if handler is None:
        return {}
    metadata, _ = handler.split(text)
    if isinstance(handler, TOMLHandler):
        return {str(key): value for key, value in handler.load(metadata, where=where).items()}
    return load_yaml(metadata, where)


def _as_text(value: Any) -> Any:
    """Dates and times as ISO text, the way skillwiki keeps YAML dates."""
    if isinstance(value, dict):
        return {key: _as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_text(item) for item in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value
