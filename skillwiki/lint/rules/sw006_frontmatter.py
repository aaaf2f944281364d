"""SW006: frontmatter missing, unparsable, or a required key missing or of the wrong type."""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.frontmatter.documents import TAGS_FORM, read_tags
from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity

_STR = (str,)
_LIST = (list,)
ARTICLE_KEYS: dict[str, tuple[type, ...]] = {
    "title": _STR,
    "type": _STR,
    "summary": _STR,
    "tags": _LIST,
    "sources": _LIST,
    "source_fingerprints": _LIST,
    "compiled_fingerprint": _STR,
    "compiler": _STR,
}
LESSON_KEYS: dict[str, tuple[type, ...]] = {
    "id": _STR,
    "title": _STR,
    "summary": _STR,
    "trigger": _STR,
    "severity": _STR,
    "scope": _STR,
    "status": _STR,
}
# A rule (`kind: rule`) has no trigger of its own: its lessons had them.
RULE_KEYS = {key: kinds for key, kinds in LESSON_KEYS.items() if key != "trigger"}
RAW_TYPES: dict[str, tuple[type, ...]] = {
    "title": _STR,
    "summary": _STR,
    "tags": _LIST,
    "type": _STR,
}


def check(ctx: LintContext) -> Iterator[Finding]:
    for file in ctx.raw.values():
        yield from raw_problems(file)
    for file in ctx.articles.values():
        yield from _check(file, ARTICLE_KEYS, ARTICLE_KEYS, required_block=True, article=True)


def raw_problems(file: File) -> Iterator[Finding]:
    """What is wrong with a raw file's frontmatter (compile refuses such a file)."""
    lesson = file.meta.get("type") == "lesson"
    keys = RULE_KEYS if file.meta.get("kind") == "rule" else LESSON_KEYS
    yield from _check(file, keys if lesson else {}, RAW_TYPES, required_block=lesson)


def _check(
    file: File,
    required: dict[str, tuple[type, ...]],
    typed: dict[str, tuple[type, ...]],
    *,
    required_block: bool,
    article: bool = False,
) -> Iterator[Finding]:
    def finding(line: int, message: str) -> Finding:
        return Finding(file.path, line, 1, RULE.id, Severity.ERROR, message)

    if file.facts.error is not None:
        yield finding(1, file.facts.error)
        return
    if required_block and not file.facts.has_frontmatter:
        yield finding(1, "frontmatter missing: the file must start with a '---' YAML block")
        return
    meta = file.meta
    for key in required:
        if meta.get(key) in (None, ""):
            yield finding(1, f"required frontmatter key '{key}' is missing or empty")
    for key, kinds in {**typed, **required}.items():
        wanted = _wrong_type(key, meta.get(key), kinds)
        if wanted is not None:
            yield finding(file.key_line(key), f"frontmatter key '{key}' must be {wanted}")
    # A page's own `type` (not document or lesson) is the author's; its article says document.
    if article and "type" in meta and meta["type"] not in ("document", "lesson"):
        yield finding(file.key_line("type"), "frontmatter key 'type' must be document or lesson")


def _wrong_type(key: str, value: object, kinds: tuple[type, ...]) -> str | None:
    """What a present value should have been, or None when it is of its kind. Tags are read
    as compile and search read them (`tags: a, b` is two tags)."""
    if value is None:
        return None
    if key == "tags":
        return None if read_tags(value) is not None else TAGS_FORM
    if isinstance(value, kinds):
        return None
    return "a list" if kinds == _LIST else "a string"


RULE = Rule(
    "SW006",
    "bad-frontmatter",
    "Frontmatter missing, unparsable or incomplete",
    "Fix the YAML block at the top of the file; keys and types are in the README.",
    Severity.ERROR,
    check,
)
