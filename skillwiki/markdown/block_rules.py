"""The block rules skillwiki adds to markdown-it: an opaque Hugo shortcode pair, an opaque
Liquid comment, MDX's import/export lines, and the reference rule wrapped to record where a
definition's destination is written; and the template calls with a path
(`{{% include "x.md" %}}`) and the Liquid variables (`{% assign x = "v" %}`) a block's text
holds."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any

from skillwiki.markdown.inline_rules import liquid_closes

if TYPE_CHECKING:
    from markdown_it.rules_block import StateBlock

# A name starts with a letter or digit: `{{< /name >}}` closes and `{{</* name */>}}` is
# Hugo's escape, shown as written; neither opens a pair.
_SHORTCODE_OPEN = re.compile(r" {0,3}\{\{<[ \t]*(\w[\w./-]{0,99})")
SHORTCODE_SEARCH_LINES = 5000  # how far a paired shortcode's closing tag is looked for
_ESM = re.compile(r"(?:import|export)[ \t{*]")
# A template call whose first argument may name a file: Hugo's `{{% name "path" %}}` or
# `{{< name path >}}` (quoted, back-quoted or bare), Liquid's `{% name path %}`, where the path
# may hold an expression (`{% include {{ page.version.version }}/misc/x.md %}`).
_HUGO_CALL = re.compile(
    r"\{\{[<%]-?[ \t]*(\w[\w./-]{0,99})[ \t]+"
    r"(?:\"([^\"\n]{1,300})\"|`([^`\n]{1,300})`|([^\s\"`%>]{1,300}))"
)
_LIQUID_CALL = re.compile(  # not within Hugo's `{{% ... %}}`
    r"(?<!\{)\{%-?[ \t]*(\w{1,100})[ \t]+((?:\{\{[^}\n]{0,100}\}\}|[^\s%{}]){1,300})"
)


def _closing_tag(name: str) -> re.Pattern[str]:
    """The closing tag of Hugo shortcode `name` in each form Hugo reads, with or without
    spaces about the slash (`{{< /name >}}`, `{{</ name >}}`, `{{< / name >}}`), and the same
    in `{{% %}}`, which closes a `{{< >}}` pair as well: Hugo matches a closing tag to its
    opening one by name alone."""
    name = re.escape(name)
    return re.compile(
        rf"\{{\{{<[ \t]*/[ \t]*{name}[ \t]*>\}}\}}|\{{\{{%[ \t]*/[ \t]*{name}[ \t]*%\}}\}}"
    )


# Liquid's comment tags, in each form Liquid reads (`{% comment %}`, `{%- comment -%}`)
COMMENT_OPEN = re.compile(r"\{%-?[ \t]*comment[ \t]*-?%\}")
COMMENT_CLOSE = re.compile(r"\{%-?[ \t]*endcomment[ \t]*-?%\}")


def liquid_comment(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Liquid's `{% comment %}` at the start of a line, to the line of its `{% endcomment %}`:
    Jekyll removes it before the Markdown is read, so it shows nothing, over every block it
    spans; one followed by text on its closing line is the inline rule's, as is one within a
    line (inline_rules.template_inline)."""
    begin = state.bMarks[start] + state.tShift[start]
    if state.is_code_block(start) or not state.src.startswith("{%", begin):
        return False
    opened = COMMENT_OPEN.match(state.src, begin, state.eMarks[start])
    if opened is None:
        return False
    found = liquid_closes(state.env, "comment", state.src)
    index = bisect.bisect_left(found, (opened.end(), 0))
    last = min(end, start + SHORTCODE_SEARCH_LINES) - 1
    if index == len(found) or found[index][0] > state.eMarks[last]:
        return False
    closing, after = found[index]
    number = bisect.bisect_right(state.bMarks, closing, start, last + 1) - 1
    if state.src[after : state.eMarks[number]].strip():
        return False  # text after it on its line: a paragraph's, the inline rule's
    return _block(state, "template_block", start, number + 1, silent)


def template_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A Hugo shortcode `{{< name >}}` whose closing tag (`_closing_tag`) follows:
    opaque."""
    begin = state.bMarks[start] + state.tShift[start]
    line = state.src[state.bMarks[start] : state.eMarks[start]]
    if state.is_code_block(start) or not state.src.startswith("{{<", begin):
        return False
    opened = _SHORTCODE_OPEN.match(line)
    if opened is None or line.rstrip().endswith("/>}}"):
        return False
    closing = _closing_tag(opened.group(1))
    last = min(end, start + SHORTCODE_SEARCH_LINES)
    for number in range(start, last):
        text = state.src[state.bMarks[number] : state.eMarks[number]]
        found = closing.search(text, opened.end() if number == start else 0)
        if found is None:
            continue
        return _block(state, "template_block", start, number + 1, silent)
    return False


_FILE_LIKE = re.compile(r"/|\.[A-Za-z]\w*$")  # a folder in it, or a file's suffix at its end
_LIQUID_CONTROL = frozenset({"if", "elsif", "unless", "for", "case", "when", "assign", "capture"})


def template_calls(text: str, line: int) -> list[tuple[str, str, int]]:
    """Each template call in `text` (a block starting on the 1-based `line`) whose first
    argument may name a file (a `/` in it, or a suffix at its end): its name, that argument,
    its line. Liquid's control tags (`{% if page.x %}`) name no file, and a call within a
    Liquid comment is none."""
    text = uncommented(text)
    calls: list[tuple[str, str, int]] = []
    for pattern in (_HUGO_CALL, _LIQUID_CALL):
        for found in pattern.finditer(text):
            argument = next(part for part in found.groups()[1:] if part is not None)
            if _FILE_LIKE.search(argument) and found[1] not in _LIQUID_CONTROL:
                at = line + text.count("\n", 0, found.start())
                calls.append((found[1], argument, at))
    return sorted(calls, key=lambda call: call[2])


# Liquid's `{% assign name = value %}` and `{% capture name %}value{% endcapture %}`
_ASSIGN = re.compile(r"\{%-?[ \t]*assign[ \t]+(\w[\w-]{0,99})[ \t]*=")
_CAPTURE = re.compile(r"\{%-?[ \t]*capture[ \t]+(\w[\w-]{0,99})[ \t]*-?%\}")
_END_CAPTURE = re.compile(r"\{%-?[ \t]*endcapture[ \t]*-?%\}")
_VALUE_CHARS = 500  # how far a variable's value is looked for
_QUOTED = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
_VARIABLE = re.compile(r"[A-Za-z_][\w.-]{0,200}")


def liquid_variables(text: str, line: int) -> list[tuple[str, str, int]]:
    """Each variable a Liquid `assign` or `capture` in `text` (a block starting on the 1-based
    `line`) sets: its name, its value as a piece of a path (a quoted string as written, a
    variable as `{{ name }}`, anything else, such as a filter's result, as `{{ }}`: a value
    not known), its line, in order; none within a Liquid comment."""
    text = uncommented(text)
    tags = [*_ASSIGN.finditer(text)] if "assign" in text else []
    tags += [*_CAPTURE.finditer(text)] if "capture" in text else []
    found: list[tuple[str, str, int]] = []
    at, row = 0, line
    for tag in sorted(tags, key=lambda tag: tag.start()):
        row, at = row + text.count("\n", at, tag.start()), tag.start()
        value = _value(text, tag)
        if value is not None:
            found.append((tag[1], value, row))
    return found


def _value(text: str, tag: re.Match[str]) -> str | None:
    """The value an `assign` or `capture` tag sets (liquid_variables); None where its end is
    not found."""
    if tag.re is _CAPTURE:
        closed = _END_CAPTURE.search(text, tag.end(), tag.end() + _VALUE_CHARS)
        return None if closed is None else text[tag.end() : closed.start()].strip()
    close = text.find("%}", tag.end(), tag.end() + _VALUE_CHARS)
    if close < 0:
        return None
    value = text[tag.end() : close].removesuffix("-").strip()
    quoted = _QUOTED.fullmatch(value)
    if quoted is not None:
        return next(part for part in quoted.groups() if part is not None)
    return f"{{{{ {value} }}}}" if _VARIABLE.fullmatch(value) else "{{ }}"


def uncommented(text: str) -> str:
    """`text` without its Liquid comments (each line break in one kept, so that lines are
    counted as before)."""
    if "endcomment" not in text:
        return text
    kept: list[str] = []
    at = 0
    while (opened := COMMENT_OPEN.search(text, at)) is not None:
        closed = COMMENT_CLOSE.search(text, opened.end())
        if closed is None:
            break
        kept += [text[at : opened.start()], "\n" * text.count("\n", opened.start(), closed.end())]
        at = closed.end()
    return "".join(kept) + text[at:]


# A line of JSX tags alone (`<Steps>`, `  <Fragment slot="npm">`, `</TabItem>`, `<Aside />`), or
# the first line of a tag whose attributes go on over lines (`<Card title="x"`).
_JSX_TAG = r"<(?:/?[A-Za-z][\w.:-]{0,99}(?:\s[^<>]{0,500})?/?|/?)>"
_JSX_LINE = re.compile(rf"[ \t]*(?:{_JSX_TAG}[ \t]*)+")
_JSX_OPENED = re.compile(r"[ \t]*<[A-Za-z][\w.:-]{0,99}(?:\s[^<>]{0,500})?")
JSX_SEARCH_LINES = 50  # how far the end of a tag written over lines is looked for


def jsx_flow(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """In MDX, a line of JSX tags alone is a block of its own, and what follows it is
    Markdown (a component's children): CommonMark would read it as an HTML block running to
    the next blank line, and so a fence within a component would be split in two. (Nor does
    indentation make code in MDX: parse.mdx_parser has no indented code rule.)"""
    if not state.env.get("mdx"):
        return False
    line = state.src[state.bMarks[start] : state.eMarks[start]]
    if not line.lstrip().startswith("<"):
        return False
    last = start
    if _JSX_LINE.fullmatch(line) is None:
        if _JSX_OPENED.fullmatch(line) is None:
            return False
        last = start + 1
        while last < min(end, start + JSX_SEARCH_LINES):
            text = state.src[state.bMarks[last] : state.eMarks[last]]
            if "<" in text or not text.strip():
                return False
            if text.rstrip().endswith(">"):
                break
            last += 1
        else:
            return False
    return _block(state, "jsx_block", start, last + 1, silent)


# An HTML element whose content is Markdown: kramdown's and Python-Markdown's (md_in_html)
# `<section class="x" markdown="1">`, its tag alone on its line; and a closing tag alone.
_MARKDOWN_IN_HTML = re.compile(
    r"[ \t]{0,3}<([A-Za-z][\w-]{0,50})(?:\s[^<>]{0,1000})?\smarkdown=([\"']?)(?:1|block)\2"
    r"(?:\s[^<>]{0,1000})?>[ \t]*"
)
_CLOSING_TAG = re.compile(r"[ \t]{0,3}</([A-Za-z][\w-]{0,50})>[ \t]*")


def markdown_in_html(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line that opens an HTML element whose content is Markdown (`markdown="1"`, as
    kramdown and Python-Markdown's md_in_html read it) is HTML alone, and so is the line that
    closes it: CommonMark would read the lines after either as HTML up to a blank line, and
    hide the heading that follows `<section markdown="1">` (Jekyll's docs)."""
    line = state.src[state.bMarks[start] : state.eMarks[start]]
    if "<" not in line[:4]:
        return False
    opened: list[str] = state.env.setdefault("skillwiki_markdown_in_html", [])
    found = _MARKDOWN_IN_HTML.fullmatch(line) if "markdown=" in line else None
    closing = None if found else _CLOSING_TAG.fullmatch(line)
    if found is None and (closing is None or closing[1].lower() not in opened):
        return False
    if not silent:
        if found is not None:
            opened.append(found[1].lower())
        else:
            assert closing is not None
            del opened[len(opened) - 1 - opened[::-1].index(closing[1].lower())]
    return _block(state, "html_block", start, start + 1, silent)


def esm_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """In MDX, `import`/`export` lines at the top level are JavaScript, up to a blank line."""
    if not state.env.get("mdx") or state.sCount[start] != 0 or state.level != 0:
        return False
    if not _ESM.match(state.src, state.bMarks[start], state.eMarks[start]):
        return False
    number = start + 1
    while number < end and not state.isEmpty(number):
        number += 1
    return _block(state, "esm_block", start, number, silent)


def recorded_reference(ruler: Any, recorded: list[tuple[str, int, int]]) -> Any:
    """Wrap the reference rule: each definition it reads is added to the env's
    `skillwiki_definitions` as (first line, source, destination start, destination end),
    taken from the first destination the parser's helper parsed during the call."""
    rule = ruler.__rules__[ruler.__find__("reference")].fn

    def reference(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        recorded.clear()
        try:
            if not rule(state, start, end, silent):
                return False
            if not silent and recorded:
                string, begin, finish = recorded[0]
                references = state.env.setdefault("skillwiki_definitions", [])
                references.append((start, string, begin, finish))
            return True
        finally:
            recorded.clear()

    return reference


def _block(state: StateBlock, kind: str, start: int, end: int, silent: bool) -> bool:
    """Take lines `start` to `end` (not included) as one block token of `kind`, its lines as
    its content (no token when `silent`: the rule is only asked whether it matches)."""
    if not silent:
        token = state.push(kind, "", 0)
        token.map = [start, end]
        token.content = state.getLines(start, end, 0, True)
    state.line = end
    return True
