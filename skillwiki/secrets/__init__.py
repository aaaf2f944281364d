"""Find and redact credentials: lessons never store one, and lint finds any that slip in.

Two kinds of evidence make a secret. A token whose format a service publishes (a prefix such
as `ghp_` or `ATATT3`, a webhook URL, a private key block) is one wherever it stands. Any other
value is one by its place: assigned to a name that holds a password, key, token or secret in
any syntax (env, ini, YAML, JSON, JS, shell flags, XML, URL query, `.netrc`), or the password
of a URL, DSN or `curl -u`. A value in such a place is then judged: a reference to where the
secret lives (`${VAR}`, `process.env.X!`, `!vault`), a path, a public key or words are not
secrets; a key's or token's value must also look random.

The modules: `formats` (the published token formats, private key blocks), `places` (where a
value is a secret, and which names hold one), `values` (what a value looks like: a reference,
a placeholder, words, or random characters) and `judge` (what each kind asks of its value).
This module runs the patterns over a text, and redacts what they find.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from skillwiki.secrets.formats import (
    KEY_BODY,
    KEY_FOOTER,
    KEY_HEADER,
    PEM_BODY,
    PEM_BODY_PARTS,
    TOKENS,
)
from skillwiki.secrets.judge import judged
from skillwiki.secrets.places import PLACES

__all__ = ["CONTEXTUAL", "Secret", "find", "redact"]


class _Rule(NamedTuple):
    """One pattern to run: the kind it finds, and which group holds the secret (-1:
    whichever group matched last)."""

    kind: str
    pattern: re.Pattern[str]
    group: int


@functools.cache
def _patterns() -> tuple[_Rule, ...]:
    """Every pattern, in the order they run (`PATTERNS`). Compiled on the first text looked
    at, not on import: a recall, a hook or a query loads the modules that record lessons but
    never redacts, and a hundred patterns are slow to compile."""
    return (
        _Rule("private_key", re.compile(KEY_HEADER), 0),
        _Rule("private_key", re.compile(PEM_BODY), 1),
        *(_Rule(kind, re.compile(pattern), 1) for kind, _, pattern in TOKENS),
        *(_Rule(kind, re.compile(pattern), group) for kind, _, pattern, group in PLACES),
    )


def __getattr__(name: str) -> Any:
    """`PATTERNS`: every pattern, in the order they run, compiled when first asked for."""
    if name == "PATTERNS":
        return _patterns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _triggers() -> dict[str, tuple[str, ...]]:
    """Each kind's literal parts, lower-cased: its patterns run only on text holding one.
    Most text holds none, and a substring test costs far less than a regular expression
    scan."""
    triggers: dict[str, tuple[str, ...]] = {"private_key": ("private key", "private-lines:")}
    for kind, parts in (
        *((kind, parts) for kind, parts, _ in TOKENS),
        *((kind, parts) for kind, parts, _, _ in PLACES),
        ("private_key", PEM_BODY_PARTS),
    ):
        triggers[kind] = tuple(dict.fromkeys(triggers.get(kind, ()) + parts))
    return triggers


TRIGGER_PARTS = tuple((part, kind) for kind, parts in _triggers().items() for part in parts)
# Most prose holds "key" or "token", so the assignments get a sharper test: one of their words
# a few name characters before an operator, sought in the lower-cased text (every text the
# patterns match passes it). The name's tail is bounded: an unbounded \w* made
# "keykeykey..." cost the square of its length.
_HINTS = {
    "=assign": re.compile(
        r"(?:pass|pwd|pw|secret|key|token|auth|cred|pat|sig)[\w$@.-]{0,16}+[\"'\]]?[ \t]{0,10}"
        r"\??(?:[:=]|%3d)"
    ),
    "=call": re.compile(
        r"(?:pass|pwd|pw|secret|key|token|auth|cred|pat|sig)[\w.-]{0,16}+[ \t]+[\"']"
    ),
}
# Kinds whose trigger is the context the pattern needs, not only a cheap test before it: an
# indented `name: value` of base64 is a Secret's data only in a Secret manifest.
CONTEXTUAL = frozenset({"kubernetes_secret"})
_TOKEN_KINDS = frozenset(kind for kind, _, _ in TOKENS) - {kind for kind, *_ in PLACES}
_LONG_RUN = re.compile(r"[a-z0-9+/=_.~|%-]{15}")
# A value judged no secret is searched again for an assignment of its own when it is no
# longer than this: a bound, so that `a=a=a=...` costs a multiple of its length, not its square.
_RESCAN = 100
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/]{16}")


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


def find(text: str) -> list[Secret]:
    """Return the secrets in `text`, earliest first, never overlapping: where two patterns
    match over each other, the one run first wins."""
    found: list[Secret] = []
    taken: list[tuple[int, int]] = []  # disjoint spans, sorted
    present = _kinds_present(text.lower())
    keys = _KeyBlocks(text) if "private_key" in present else None
    for rule in _patterns():
        if rule.kind in present:
            for secret in _matches(text, rule, keys):
                if _take(taken, secret.start, secret.end):
                    found.append(secret)
    return sorted(found, key=lambda secret: secret.start)


def _matches(text: str, rule: _Rule, keys: _KeyBlocks | None) -> Iterator[Secret]:
    """The secrets one pattern finds in the text, in order; they may overlap others'."""
    kind, pattern, group = rule
    at = 0
    while (match := pattern.search(text, at)) is not None:
        which = match.lastindex or 0 if group < 0 else group
        start, end = match.span(which)
        at = match.end()
        if keys is not None and kind == "private_key" and group == 0:
            end = keys.end_of(start, end)  # a header without a body is none (docs)
            named: str | None = kind if _KEY_MATERIAL.search(text, at, end) else None
        else:
            named = judged(kind, match, match.group(which))
            if named is None and kind.startswith("=") and _holds_assignment(text, start, end):
                at = start  # `command: PGPASSWORD=x`: the value may hold one itself
        if named is not None:
            yield Secret(named, start, end)


def _holds_assignment(text: str, start: int, end: int) -> bool:
    return end - start <= _RESCAN and "=" in text[start:end] and text[start] != "$"


class _KeyBlocks:
    """Where a private key that starts at a header ends: at its footer when one follows
    before the next header, else (the footer cut off) at the end of its body."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.footers = [(m.start(), m.end()) for m in KEY_FOOTER.finditer(text)]
        self.headers = [m.start() for m in re.finditer("-----BEGIN", text)]

    def end_of(self, start: int, end: int) -> int:
        body = KEY_BODY.match(self.text, end)
        end = body.end() if body else end
        at = bisect.bisect(self.footers, (end, -1)) if self.footers else 0
        following = bisect.bisect(self.headers, start)
        next_header = self.headers[following] if following < len(self.headers) else len(self.text)
        if at < len(self.footers) and self.footers[at][0] < next_header:
            return self.footers[at][1]
        return end


def _kinds_present(lowered: str) -> set[str]:
    """The kinds whose telltale parts occur in the text: only their patterns are run. A token
    is a run of 15 characters or more: text without one (most prose) holds no token, and its
    many parts are not sought."""
    tokens = _LONG_RUN.search(lowered) is not None
    present = {
        kind
        for part, kind in TRIGGER_PARTS
        if (tokens or kind not in _TOKEN_KINDS) and part in lowered
    }
    present |= {kind for kind, hint in _HINTS.items() if hint.search(lowered)}
    return present


def _take(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    """Claim the span unless it overlaps one already taken (an earlier pattern won it)."""
    at = bisect.bisect(taken, (start, end))
    if (at and taken[at - 1][1] > start) or (at < len(taken) and taken[at][0] < end):
        return False
    taken.insert(at, (start, end))
    return True


def redact(text: str) -> tuple[str, list[str]]:
    """Replace each secret with `[REDACTED:<kind>]`; return the text and the kinds replaced."""
    secrets = find(text)
    pieces, last = [], 0
    for secret in secrets:
        pieces += [text[last : secret.start], f"[REDACTED:{secret.kind}]"]
        last = secret.end
    pieces.append(text[last:])
    return "".join(pieces), [secret.kind for secret in secrets]
