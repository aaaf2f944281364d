"""The inline rules skillwiki adds to markdown-it: opaque template syntax, links whose
destination holds template syntax, `[[wikilinks]]`, and the link and image rules wrapped to
record where a destination is written (its span)."""

from __future__ import annotations

import bisect
import re
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it.rules_inline import StateInline

_TEMPLATE_CLOSE = {"{{<": ">}}", "{{%": "%}}", "{{": "}}", "{%": "%}"}
# Liquid's tags whose content is not Liquid: a comment (shown as nothing) and raw (as written)
_LIQUID_PAIR = re.compile(r"\{%-?[ \t]*(comment|raw)[ \t]*-?%\}")
_LIQUID_CLOSE = re.compile(r"\{%-?[ \t]*end(comment|raw)[ \t]*-?%\}")
# A link's `(destination "title")` whose destination may hold template syntax, as Jekyll
# and Hugo write it: `({{ site.baseurl }}/guide.html)`, `({% link foo.md %} "Foo")`. Each
# part is bounded, so that a text of many `[a]({{ x }}` never closed costs no more than
# its length (a destination and a title run to the end of the text otherwise).
_TEMPLATE_PART = r"\{\{(?:(?!\}\}).){0,200}\}\}|\{%(?:(?!%\}).){0,200}%\}"
_TEMPLATED_DESTINATION = re.compile(
    r"\(\s{0,100}(?P<destination>(?:"
    + _TEMPLATE_PART
    + r"|[^\s()\\{]|\\.|\{(?![{%])|\([^\s()]{0,100}\)){1,200})"
    + r"""(?:\s{1,100}(?:"[^"]{0,500}"|'[^']{0,500}'|\([^()]{0,500}\)))?\s{0,100}\)""",
    re.DOTALL,
)


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
    """`{{ ... }}`, `{{< ... >}}`, `{{% ... %}}` or `{% ... %}`: one opaque `template` token;
    Liquid's `{% comment %}...{% endcomment %}` is one too, and `{% raw %}...{% endraw %}` a
    text token of what it holds, shown as written (no link in it is read)."""
    src, pos = state.src, state.pos
    if not src.startswith(("{{", "{%"), pos):
        return False
    paired = _LIQUID_PAIR.match(src, pos, state.posMax) if src.startswith("{%", pos) else None
    if paired is not None and _liquid_pair(state, paired, silent):
        return True
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


def _liquid_pair(state: StateInline, opened: re.Match[str], silent: bool) -> bool:
    """A Liquid comment or raw tag and all up to its closing tag, where that closes it within
    the inline text: a `template` token (a comment) or a `text` token of what it holds."""
    name = opened[1]
    found = liquid_closes(state.env, name, state.src)
    index = bisect.bisect_left(found, (opened.end(), 0))
    if index == len(found) or found[index][1] > state.posMax:
        return False
    brace, end = found[index]
    if not silent:
        token = state.push("template" if name == "comment" else "text", "", 0)
        token.content = state.src[opened.start() : end]
        if name == "raw":
            token.content = state.src[opened.end() : brace]
    state.pos = end
    return True


def liquid_closes(env: MutableMapping[str, Any], name: str, src: str) -> list[tuple[int, int]]:
    """The spans of every `{% end<name> %}` (comment, raw) of the text `src`, in order: found
    once a text, kept in the parser's `env`, and bisected by each opening tag."""
    kept = env.setdefault("skillwiki_liquid_closes", {})
    found: list[tuple[int, int]] | None = kept.get((name, src))
    if found is None:
        closes = _LIQUID_CLOSE.finditer(src)
        found = kept[(name, src)] = [m.span() for m in closes if m[1] == name]
    return found


def template_link(state: StateInline, silent: bool) -> bool:
    """`[text](dest)` or `![alt](dest)` whose destination holds template syntax with spaces
    in it, as `{{ site.baseurl }}/guide.html` or `{% link foo.md %}`: CommonMark reads no link
    there, yet the site generator makes one before it reads the Markdown.

    Tried where the link and image rules found none. The text is read as a link's text, in
    `template_link_open` and `template_link_close` tokens (an image's alt text: the children
    of a `template_image` token), so that a reader sees `text`, not `[text]()`; the link is no
    link to check or rewrite, as a template destination never is.
    """
    src, pos = state.src, state.pos
    image = src.startswith("![", pos)
    if not (image or src.startswith("[", pos)) or _closing(state, "{", pos) < 0:
        return False
    from markdown_it import helpers

    bracket = pos + 1 if image else pos
    label_end = helpers.parseLinkLabel(state, bracket, not image)
    end = _templated_destination(state, label_end + 1) if label_end >= 0 else -1
    if end < 0:
        return False
    if not silent and image:
        token = state.push("template_image", "", 0)
        token.content = src[bracket + 1 : label_end]
        token.children = []
        state.md.inline.parse(token.content, state.md, state.env, token.children)
    elif not silent:
        state.push("template_link_open", "", 1)
        maximum, state.pos, state.posMax = state.posMax, bracket + 1, label_end
        state.linkLevel += 1
        state.md.inline.tokenize(state)
        state.linkLevel -= 1
        state.posMax = maximum
        state.push("template_link_close", "", -1)
    state.pos = end
    return True


def _templated_destination(state: StateInline, pos: int) -> int:
    """Where `(destination "title")` starting at `pos` ends (after its `)`), when its
    destination holds template syntax; else -1. Spaces are allowed inside the template
    syntax only, as a destination holds none."""
    found = _TEMPLATED_DESTINATION.match(state.src, pos, state.posMax)
    if found is None or not ("{{" in found["destination"] or "{%" in found["destination"]):
        return -1
    return found.end()


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
