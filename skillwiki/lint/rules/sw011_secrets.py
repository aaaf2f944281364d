"""SW011: a credential in any file of the wiki (reported by place and kind, never shown).

A secret written in a raw file is copied by compile into its article (the body, and the
summary when it stands in the first paragraph) and from there into index.md and index.json:
one hit, reported once, in the raw file it must be removed from. A secret in a generated file
that no raw file holds (an article edited by hand, or one whose raw file is gone) is reported
where it is.

The copies of one page (`[lint] copies`: `v23.1/x.md` and `v23.2/x.md`, as SW008 reads them)
are one page here too: a secret they hold alike is one finding, at the first copy, naming the
others. Secrets are compared by their digests in the facts (FileFacts.secret_digests), so a
lint whose facts are cached reads no file again.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillwiki.lint.model import File, Finding, LintContext, Rule, Severity
from skillwiki.search.copies import page_of  # what SW008 and search take for copies too

Place = tuple[str, int, int]  # kind, line, column


def check(ctx: LintContext) -> Iterator[Finding]:
    copies = ctx.config.lint.copies
    written: set[str] = set()  # the digests of the raw files' secrets
    # (page, digest, how many times the file held it before) -> where each copy holds it,
    # first copy first: a secret written twice in a page is two findings
    held: dict[tuple[str, str, int], list[tuple[str, Place]]] = {}
    for rel, file in sorted(ctx.raw.items()):
        seen: dict[str, int] = {}
        for place, digest in _secrets(file):
            written.add(digest)
            seen[digest] = seen.get(digest, -1) + 1
            key = (page_of(rel, copies), digest, seen[digest])
            held.setdefault(key, []).append((file.path, place))
    for (path, place), *others in held.values():
        yield _finding(path, place, others)
    for file in [*ctx.articles.values(), *ctx.others]:
        for place, digest in _secrets(file):
            if digest not in written:
                yield _finding(file.path, place, [])


def _secrets(file: File) -> list[tuple[Place, str]]:
    """Each secret of a file, where it is and its digest."""
    pairs = zip(file.facts.secrets, file.facts.secret_digests, strict=True)
    return [((kind, line, column), digest) for (kind, line, column), digest in pairs]


def _finding(path: str, place: Place, copies: list[tuple[str, Place]]) -> Finding:
    kind, line, column = place
    also = ", ".join(f"{other}:{where[1]}" for other, where in copies)
    return Finding(
        path,
        line,
        column,
        RULE.id,
        Severity.ERROR,
        f"possible secret ({kind}); remove it from the raw file, recompile, "
        "and rotate the credential" + (f"; also in its copies {also}" if also else ""),
    )


RULE = Rule(
    "SW011",
    "secret",
    "Credential in a wiki file",
    "Remove it from the raw file, recompile, and rotate the credential.",
    Severity.ERROR,
    check,
)
