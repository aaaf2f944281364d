"""Find and redact credentials: lessons never store one, and lint finds any that slip in."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# (kind, pattern, group): `group` is the part of the match that is the secret itself.
_PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    (
        "private_key",
        # The header; find() extends the match to its footer, when one follows.
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
        0,
    ),
    ("aws_access_key", re.compile(r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b"), 1),
    (
        "aws_secret_key",
        re.compile(r"(?i)aws_secret_access_key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})\b"),
        1,
    ),
    ("github_token", re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"), 1),
    ("gitlab_token", re.compile(r"\b(glpat-[A-Za-z0-9_-]{20,})"), 1),
    (
        "slack_webhook",
        re.compile(r"(https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+)"),
        1,
    ),
    ("slack_token", re.compile(r"\b(xox[abposr]-[A-Za-z0-9-]{10,})"), 1),
    ("stripe_key", re.compile(r"\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})"), 1),
    ("anthropic_key", re.compile(r"\b(sk-ant-[A-Za-z0-9_-]{20,})"), 1),
    ("openai_key", re.compile(r"\b(sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,})"), 1),
    ("google_api_key", re.compile(r"\b(AIza[0-9A-Za-z_-]{35})"), 1),
    (
        "jwt",
        re.compile(r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),
        1,
    ),
    ("azure_storage_key", re.compile(r"(?i)\bAccountKey=([A-Za-z0-9+/]{40,}={0,2})"), 1),
    ("url_password", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]{3,})@"), 1),
    (
        "password",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])"  # DB_PASSWORD and MY_API_KEY count: _ is not a letter
            r"(?:password|passwd|pwd|secret(?:[_-]?key)?|api[_-]?key|access[_-]?token"
            r"|auth[_-]?token|token)\b[\"']?\s*[:=]\s*[\"']?([^\s\"'`,;]{6,})"
        ),
        1,
    ),
)
# Values that stand for a secret rather than being one: ${VAR}, %(x)s, <key>, ^PASS^, ***.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[\w\\]*\}?|%\(?\w+\)?s?|<[^>]*>?|\^\w+\^?|[*.x]+)$"
    r"|\{\{|\}\}|[(\[]"  # a template ({{x}}) or a code expression (os.environ['X'])
    r"|example|placeholder|redacted|changeme|your[_-]|dummy|xxxx"
)
_CLASSES = (str.islower, str.isupper, str.isdigit)


def _looks_made_up(value: str) -> bool:
    """Tell a placeholder (`password`, `FUZZ`, `{{password}}`) from something typed in."""
    if _PLACEHOLDER.search(value):
        return True
    classes = {check for check in _CLASSES if any(check(char) for char in value)}
    symbols = any(not char.isalnum() for char in value)
    return len(classes) + symbols < 2  # one kind of character only: a word, not a secret


# Each pattern runs only on text holding one of its literal parts (checked lower-cased): most
# text holds none, and a substring test costs far less than a regular expression scan.
_TRIGGERS = {
    "private_key": ("private key-----",),
    "aws_access_key": ("akia", "asia"),
    "aws_secret_key": ("aws_secret_access_key",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("glpat-",),
    "slack_webhook": ("hooks.slack.com",),
    "slack_token": ("xox",),
    "stripe_key": ("_live_", "_test_"),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "google_api_key": ("aiza",),
    "jwt": ("eyj",),
    "azure_storage_key": ("accountkey=",),
    "url_password": ("://",),
}
# Most prose holds "key" or "token", so the assignment pattern gets a sharper test: one of its
# words followed by `=` or `:`, sought in the lower-cased text without the pattern's costly
# case-blind start (5x faster; every text the pattern matches passes it).
# The suffix is bounded (password is pass + word): an unbounded \w* made "keykeykey..." cost
# the square of its length.
_PASSWORD_HINT = re.compile(r"(?:pass|pwd|secret|key|token)\w{0,4}[\"']?\s*[:=]")
_KEY_FOOTER = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----")


_PARTS = tuple((part, kind) for kind, parts in _TRIGGERS.items() for part in parts)


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


def find(text: str) -> list[Secret]:
    """Return the secrets in `text`, earliest first, never overlapping."""
    found: list[Secret] = []
    taken: list[tuple[int, int]] = []
    lowered = text.lower()
    present = {kind for part, kind in _PARTS if part in lowered}
    if _PASSWORD_HINT.search(lowered):
        present.add("password")
    last_footer = text.rfind("-----END ") if "private_key" in present else -1
    for kind, pattern, group in _PATTERNS:
        if kind not in present:
            continue
        for match in pattern.finditer(text):
            start, end = match.span(group)
            value = match.group(group)
            if kind == "private_key" and last_footer > end:  # the block, up to its footer
                footer = _KEY_FOOTER.search(text, end)
                end = footer.end() if footer is not None else end
            if "EXAMPLE" in value:  # the placeholders of vendors' documentation
                continue
            if kind in ("password", "url_password") and _looks_made_up(value):
                continue
            at = bisect.bisect(taken, (start, end))  # taken: disjoint spans, sorted
            if (at and taken[at - 1][1] > start) or (at < len(taken) and taken[at][0] < end):
                continue
            taken.insert(at, (start, end))
            found.append(Secret(kind, start, end))
    return sorted(found, key=lambda secret: secret.start)


def redact(text: str) -> tuple[str, list[str]]:
    """Replace each secret with `[REDACTED:<kind>]`; return the text and the kinds replaced."""
    secrets = find(text)
    pieces, last = [], 0
    for secret in secrets:
        pieces += [text[last : secret.start], f"[REDACTED:{secret.kind}]"]
        last = secret.end
    pieces.append(text[last:])
    return "".join(pieces), [secret.kind for secret in secrets]
