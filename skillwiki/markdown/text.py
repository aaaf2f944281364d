"""The text of blocks as a reader sees it: inline tokens as plain text, MyST target lines,
a heading's trailing attribute list, the ids an HTML fragment declares."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

_ATTR_LIST = re.compile(
    r"\{:?[ \t]*((?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}\"']+))"
    r"(?:[ \t]+(?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}\"']+)))*)[ \t]*\}"
)
_HTML_ID = re.compile(r"\b(?:id|name)[ \t]*=[ \t]*(?:\"([^\"<>]*)\"|'([^'<>]*)'|([^\s\"'<>=`]+))")


def plain_text(children: Sequence[Token]) -> str:
    """Return the text a reader sees of inline tokens: no markers, links as their text, its
    spaces collapsed."""
    return " ".join(written_text(children).split())


def written_text(children: Sequence[Token], template: str = "") -> str:
    """The text of inline tokens as `plain_text` reads it, with its spaces as written; each
    piece of template syntax (`{{ site.data.x }}`) reads as `template`."""
    parts: list[str] = []
    for child in children:
        kind = child.type
        if kind == "template":
            parts.append(template)
        elif kind in ("text", "code_inline", "text_special"):
            parts.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind in ("image", "template_image"):
            parts.append(written_text(child.children or []))
        elif kind == "wikilink":
            parts.append(child.content.split("|", 1)[-1].split("#", 1)[0].strip() or child.content)
    return "".join(parts)


def is_target(line: str) -> bool:
    """Whether a line is a MyST target, `(name)=`, as mdit-py-plugins' myst_blocks reads one."""
    line = line.strip()
    return line.startswith("(") and line.endswith(")=") and len(line) > 3


def only_targets(text: str) -> bool:
    """Whether every line of a paragraph is a MyST target: a paragraph with no text."""
    return ")=" in text and all(is_target(line) for line in text.split("\n"))


def trailing_attrs(text: str) -> tuple[str, tuple[str, ...]] | None:
    """Split `Title { #id .class }` into the title and its ids, if it ends in an attr list."""
    if not text.endswith("}"):
        return None
    opening = text.rfind("{")
    found = _ATTR_LIST.fullmatch(text, opening) if opening >= 0 else None
    if found is None:
        return None
    ids = tuple(part[1:] for part in found.group(1).split() if part.startswith("#"))
    return text[:opening].rstrip(), ids


def html_ids(html: str) -> list[str]:
    """Return the ids (and `name`s) an HTML fragment declares: anchors a link may name."""
    if "id" not in html and "name" not in html:
        return []
    return [
        next(group for group in found.groups() if group is not None)
        for found in _HTML_ID.finditer(html)
    ]
