"""Judging a candidate: whether the value a pattern matched is a secret, by what its kind
asks of it. A vendor's documented sample, a placeholder, a reference or words are none; a
key's or token's value must also look random."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from skillwiki.secrets.places import name_kind
from skillwiki.secrets.values import CLASSES, PLACEHOLDER, literal, looks_made_up, random_token

KEY_CHARS = 15  # the shortest value of a key or token taken for one (Dropbox's secrets)
# Kinds whose value a person typed (a placeholder or a word is not a secret), and kinds whose
# shape alone is too plain (a random token mixes upper case, lower case and digits).
_TYPED = frozenset({"password", "url_password", "bearer_token", "basic_auth"})
_RANDOM = frozenset({"discord_bot_token", "telegram_bot_token", "kubernetes_secret"})
# Token formats too plain to count without a random body (a CSS class `sk-chasing-dots-x`).
_WEAK = frozenset({"openai_key", "twilio_key", "octopus_key", "facebook_token", "mailgun_key"})
_OPENAI_PREFIX = re.compile(r"^sk-(?:(?:proj|svcacct|admin|or-v1)-)?")
_WEBHOOKS = frozenset({"slack_webhook", "discord_webhook", "teams_webhook", "webhook_url"})
# Credentials printed in public documentation as samples (jwt.io's example token).
_PUBLIC_SAMPLES = frozenset(
    {
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)
_JWT = re.compile(r"^eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.")


def judged(kind: str, match: re.Match[str], value: str) -> str | None:
    """Return the kind of secret the match holds, or None when it holds none: a vendor's
    documented sample, a placeholder, a reference, or text not random enough to be a key.
    A kind starting with `=` names its secret by the name the value is assigned to."""
    if "EXAMPLE" in value or value in _PUBLIC_SAMPLES:  # vendors' documentation
        return None
    if kind.startswith("="):
        named = name_kind(match["name"] or match.groupdict().get("tag") or "")
        return named if named is not None and plausible(named, value) else None
    holds_one = _BY_KIND.get(kind, _documented)
    return kind if holds_one(value) else None


def plausible(kind: str, value: str) -> bool:
    """Whether a value in a secret's place may be a real one: `password` counts from 6
    characters (a person chooses it), a key or token (`credential`) from KEY_CHARS, and only
    when random: one shorter is a docs example (`API_KEY=abc123`)."""
    value_literal = literal(value)
    if value_literal is None or "EXAMPLE" in value_literal:
        return False
    if kind == "credential":
        if _basic_credentials(value_literal):
            return True
        return len(value_literal) >= KEY_CHARS and random_token(value_literal.rstrip(")]}"))
    return len(value_literal) >= 6 and not looks_made_up(value_literal)


def _documented(value: str) -> bool:
    """A documented format: only a placeholder (`ghp_xxxx…`, `sk_live_your_key`) is none."""
    return not PLACEHOLDER.search(value) and len(set(value)) >= 8


def _private_key(value: str) -> bool:
    """A key block's body, or a PEM body pasted alone whose DER is a private key."""
    return not value.startswith("MI") or _private_der(value)


def _jwt(value: str) -> bool:
    """A JWT, or base64 of one (jwt-base64)."""
    return _base64_jwt(value) if value.startswith("ZXlK") else _documented(value)


def _webhook(value: str) -> bool:
    """A webhook's URL path holding a part random and long enough to be its credential."""
    parts = re.split(r"[/@]", value)
    return any(len(part) >= KEY_CHARS and random_token(part) for part in parts)


def _typed(value: str) -> bool:
    return plausible("password", value)


def _mixed(value: str) -> bool:
    """Upper case, lower case and digits, as a random token mixes them."""
    return all(any(check(char) for char in value) for check in CLASSES)


def _openai_body(value: str) -> bool:
    return random_token(_OPENAI_PREFIX.sub("", value))


# What each kind asks of its value; a kind not named here is a documented format. A weak
# shape counts only with a random body (the openai key's after its prefix).
_BY_KIND: dict[str, Callable[[str], bool]] = {
    "private_key": _private_key,
    "jwt": _jwt,
    **dict.fromkeys(_WEBHOOKS, _webhook),
    **dict.fromkeys(_TYPED, _typed),
    **dict.fromkeys(_RANDOM, _mixed),
    **dict.fromkeys(_WEAK - {"openai_key"}, random_token),
    "openai_key": _openai_body,
}


def _basic_credentials(value: str) -> bool:
    """base64 of `user:password` (docker's `auth`, npm's `_auth`), however short."""
    if not 8 <= len(value) <= 400 or len(value) % 4:
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except ValueError:  # not base64 (binascii.Error), not ASCII in or out
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and decoded.isprintable() and len(password) >= 3)


def _private_der(value: str) -> bool:
    """A PEM body whose DER is a private key (a SEQUENCE starting with its INTEGER version),
    not a certificate or a public key (a SEQUENCE starting with a SEQUENCE)."""
    try:
        der = base64.b64decode(value[:16])
    except (binascii.Error, ValueError):
        return False
    skip = {0x81: 3, 0x82: 4}.get(der[1], 2) if len(der) > 1 else 0
    return der[:1] == b"\x30" and der[skip : skip + 2] == b"\x02\x01"


def _base64_jwt(value: str) -> bool:
    """base64 of a JWT (jwt-base64)."""
    value = value[: len(value) - len(value) % 4]
    try:
        decoded = base64.b64decode(value).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return False
    return _JWT.match(decoded) is not None
