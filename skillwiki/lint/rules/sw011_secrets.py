"""SW011: a credential in any file of the wiki (reported by place and kind, never shown).

A secret written in a raw file is copied by compile into its article (the body, and the
summary when it stands in the first paragraph) and from there into index.md and index.json:
one hit, reported once, in the raw file it must be removed from. A secret in a generated file
that no raw file holds (an article edited by hand, or one whose raw file is gone) is reported
where it is.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki import secrets
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import decode
from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity

Place = tuple[str, int, int]  # kind, line, column


def check(ctx: LintContext) -> Iterator[Finding]:
    written: set[str] = set()  # the secrets of the raw files, as copies of them are compared
    for file in ctx.raw.values():
        if file.facts.secrets:
            written.update(_copied(value) for _, value in _read(ctx, file) or ())
            yield from (_finding(file.path, place) for place in file.facts.secrets)
    for file in [*ctx.articles.values(), *ctx.others]:
        if not file.facts.secrets:
            continue
        found = _read(ctx, file)
        if found is None:  # gone or unreadable since it was analysed: as the facts say
            found = [(place, "") for place in file.facts.secrets]
        for place, value in found:
            if not value or _copied(value) not in written:
                yield _finding(file.path, place)


def _read(ctx: LintContext, file: File) -> list[tuple[Place, str]] | None:
    """Each secret of a file, where it is and what it is (kept only while lint runs, never
    written or shown); None when the file cannot be read now."""
    try:
        data = (ctx.ws.root / file.path).read_bytes()
        text = decode(data, file.path, len(data) + 1)
    except (OSError, InputError):
        return None
    found = []
    for secret in secrets.find(text):
        line = text.count("\n", 0, secret.start) + 1
        column = secret.start - (text.rfind("\n", 0, secret.start) + 1) + 1
        found.append(((secret.kind, line, column), text[secret.start : secret.end]))
    return found


def _copied(value: str) -> str:
    """A secret as compared with its copies: without the backslashes that index.md (Markdown)
    and index.json (JSON) escape characters with."""
    return value.replace("\\", "")


def _finding(path: str, place: Place) -> Finding:
    kind, line, column = place
    return Finding(
        path,
        line,
        column,
        RULE.id,
        Severity.ERROR,
        f"possible secret ({kind}); remove it from the raw file, recompile, "
        "and rotate the credential",
    )


RULE = Rule(
    "SW011",
    "secret",
    "Credential in a wiki file",
    "Remove it from the raw file, recompile, and rotate the credential.",
    Severity.ERROR,
    check,
)
