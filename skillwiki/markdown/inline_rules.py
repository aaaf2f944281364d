"""The inline rules skillwiki adds to markdown-it: opaque template syntax, `[[wikilinks]]`,
and the link and image rules wrapped to record where a destination is written (its span)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it.rules_inline import StateInline

_TEMPLATE_CLOSE = {"{{<": ">}}", "{{%": "%}}", "{{": "}}", "{%": "%}"}


def _closing(state: StateInline, marker: str, start: int) -> int:
    """Where `marker` next stands in the inline text from `start` (before posMax), or -1.

    The last place of each marker in the text is found once: in a text of thousands of
    openers (`{{` or `[[`) and no closer, each opener then costs one comparison, not a search
    to the text's end (which took seconds for 100 kB). markdown-it's html_inline rule does
    the same.
    """
    lasts = state.env.setdefault("skillwiki_last", {})
    key = (marker, state.src)
    last = lasts.get(key)
    if last is None:
        last = lasts[key] = state.src.rfind(marker)
    if last < start:
        return -1
    return state.src.find(marker, start, state.posMax)


def template_inline(state: StateInline, silent: bool) -> bool:
    """`{{ ... }}`, `{{< ... >}}`, `{{% ... %}}` or `{% ... %}`: one opaque `template` token."""
    src, pos = state.src, state.pos
    if not src.startswith(("{{", "{%"), pos):
        return False
    opening = src[pos : pos + 3] if src[pos : pos + 3] in _TEMPLATE_CLOSE else src[pos : pos + 2]
    close = _closing(state, _TEMPLATE_CLOSE[opening], pos + len(opening))
    if close < 0:
        return False
    end = close + len(_TEMPLATE_CLOSE[opening])
    if not silent:
        token = state.push("template", "", 0)
        token.content = src[pos:end]
    state.pos = end
    return True


def wikilink(state: StateInline, silent: bool) -> bool:
    """`[[target]]` on one line, with no bracket inside: a `wikilink` token with its span."""
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    close = _closing(state, "]]", pos + 2)
    inner = src[pos + 2 : close] if close > 0 else ""
    if not inner.strip() or "\n" in inner or "[" in inner or "]" in inner:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {"span": (pos + 2, close, inner)}
    state.pos = close + 2
    return True


def spanned(ruler: Any, name: str, bracket: int) -> Any:
    """Wrap the link (or image) rule: record where its destination is written."""
    rule = ruler.__rules__[ruler.__find__(name)].fn

    def with_span(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            token = next(t for t in state.tokens[count:] if t.type in ("link_open", "image"))
            found = _destination(state, start + bracket, state.pos, nested=bracket == 1)
            token.meta = {**token.meta, "span": found}
        return True

    return with_span


def _destination(
    state: StateInline, bracket: int, end: int, *, nested: bool
) -> tuple[int, int, str] | None:
    """(start, end, unescaped) of an inline destination, or None for a reference-style one.

    Found again with the helpers the link rule used (a link's label cannot hold a link; an
    image's can)."""
    from markdown_it import helpers

    label_end = helpers.parseLinkLabel(state, bracket, not nested)
    src = state.src
    pos = label_end + 1
    if label_end < 0 or pos >= end or src[pos] != "(":
        return None
    pos += 1
    while pos < end and src[pos] in " \t\n":
        pos += 1
    if pos < end and src[pos] == ")":
        return pos, pos, ""
    found = helpers.parseLinkDestination(src, pos, end)
    if not found.ok:
        return None
    return pos, found.pos, found.str
