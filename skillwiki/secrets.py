"""Find and redact credentials: lessons never store one, and lint finds any that slip in."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# (kind, pattern, group): `group` is the part of the match that is the secret itself (-1:
# whichever group matched). The token shapes follow gitleaks' published rules (the rule id
# is named where one exists), written here as Python patterns with bounded quantifiers.
_PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    (
        "private_key",  # private-key; PGP blocks too. find() extends it to its footer.
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----"),
        0,
    ),
    (
        "private_key",  # a PEM body pasted without its header: DER starts with MII
        re.compile(
            r"\b(MII[A-Za-z0-9+/]{61}(?:\s{1,4}[A-Za-z0-9+/]{64}){2,}(?:\s{1,4}[A-Za-z0-9+/=]{1,64})?)"
        ),
        1,
    ),
    ("aws_access_key", re.compile(r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b"), 1),
    ("aws_access_key", re.compile(r"\b((?:QUtJQ|QVNJQ)[A-Za-z0-9+/]{22,200}={0,2})"), 1),  # base64
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
    ("slack_token", re.compile(r"\b(xox[abposre]-[A-Za-z0-9-]{10,})"), 1),
    ("slack_token", re.compile(r"\b(xapp-\d-[A-Z0-9]{6,20}-\d{6,20}-[a-z0-9]{32,80})"), 1),
    ("stripe_key", re.compile(r"\b((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,})"), 1),
    ("stripe_webhook_secret", re.compile(r"\b(whsec_[A-Za-z0-9+/=]{32,100})"), 1),
    ("anthropic_key", re.compile(r"\b(sk-ant-[A-Za-z0-9_-]{20,})"), 1),
    ("openai_key", re.compile(r"\b(sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,})"), 1),
    ("google_api_key", re.compile(r"\b(AIza[0-9A-Za-z_-]{35})"), 1),
    ("google_oauth_token", re.compile(r"\b(ya29\.[0-9A-Za-z_-]{20,})"), 1),
    ("npm_token", re.compile(r"\b(npm_[A-Za-z0-9]{36})\b"), 1),  # npm-access-token
    ("pypi_token", re.compile(r"\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})"), 1),
    ("huggingface_token", re.compile(r"\b((?:hf_|api_org_)[A-Za-z]{34})\b"), 1),
    ("digitalocean_token", re.compile(r"\b(do[opr]_v1_[a-f0-9]{64})\b"), 1),
    ("twilio_key", re.compile(r"\b(SK[0-9a-fA-F]{32})\b"), 1),  # twilio-api-key
    ("sendgrid_key", re.compile(r"\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"), 1),
    (
        "discord_bot_token",
        re.compile(r"\b([MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})\b"),
        1,
    ),
    ("databricks_token", re.compile(r"\b(dapi[a-f0-9]{32}(?:-\d)?)\b"), 1),
    ("mailgun_key", re.compile(r"\b(key-[0-9a-zA-Z]{32})\b"), 1),
    ("shopify_token", re.compile(r"\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b"), 1),
    ("telegram_bot_token", re.compile(r"(?<!\d)(\d{8,10}:[A-Za-z0-9_-]{35})(?![\w-])"), 1),
    (
        "jwt",
        re.compile(r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),
        1,
    ),
    ("azure_storage_key", re.compile(r"(?i)\bAccountKey=([A-Za-z0-9+/]{40,}={0,2})"), 1),
    ("azure_sas_token", re.compile(r"(?i)[?&]sig=([A-Za-z0-9%+/]{30,120}(?:%3D|=){0,2})"), 1),
    (
        "bearer_token",
        re.compile(r"(?i)\bAuthorization:[ \t]*Bearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)"),
        1,
    ),
    (
        "basic_auth",
        re.compile(r"(?i)\bAuthorization:[ \t]*Basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})"),
        1,
    ),
    # Any scheme, any case; an empty user; an @ inside the password (up to the last @ before
    # the host).
    (
        "url_password",
        re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]{0,100}:([^\s/]{3,200})@[^\s@/]*"),
        1,
    ),
    (
        "kubernetes_secret",  # `data:` values of a Secret manifest are base64 of the secret
        re.compile(r"(?m)^[ \t]+[\w.-]{1,100}:[ \t]+([A-Za-z0-9+/]{12,}={0,2})[ \t]*$"),
        1,
    ),
    (
        "password",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])"  # DB_PASSWORD and MY_API_KEY count: _ is not a letter
            r"(?:password|passwd|pwd|(?P<key>secret(?:[_-]?key)?|api[_-]?key|access[_-]?token"
            r"|auth[_-]?token|token))\b[\"']?\s*(?:[:=]|%3[dD])\s*"
            # a quoted value, spaces and all; or a bare one, where a `;` not followed by
            # `Name=` (a connection string's next key) is part of it
            r"(?:\"([^\"\n]{6,200})\"|'([^'\n]{6,200})'"
            r"|([^\s\"'`,;]+(?:;(?![A-Za-z ]{1,40}=)[^\s\"'`,;]*){0,20}))"
        ),
        -1,
    ),
)
# Values that stand for a secret rather than being one: ${VAR}, %(x)s, <key>, ^PASS^, ***.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[\w\\]*\}?|%\(?\w+\)?s?|<[^>]*>?|\^\w+\^?|[*.x]+)$"
    r"|\{\{|\}\}|[(\[]"  # a template ({{x}}) or a code expression (os.environ['X'])
    r"|example|placeholder|redacted|changeme|your[_-]|dummy|xxxx"
)
_CLASSES = (str.islower, str.isupper, str.isdigit)
_JOINERS = frozenset("_-")  # what joins the words of a name: no randomness of their own
# names in code that hold a secret's word (`hashed_password`, `apiKey`): code, not a value
_SECRET_WORDS = frozenset({"password", "passwd", "token", "secret", "key", "keys", "tokens"})
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")  # snake, camel, CAPS


def _looks_made_up(value: str) -> bool:
    """Tell a placeholder (`password`, `FUZZ`, `{{password}}`) from something typed in; a
    name in code is judged without the closing brackets of the call it is passed in
    (`f(password=password)`)."""
    value = value.rstrip(")]}") or value
    if _PLACEHOLDER.search(value):
        return True
    if value.isdigit():
        return len(value) < 16  # a short number is a setting; a long one, a numeric key
    if value.isalpha() or _names_a_secret(value):
        return True  # a word or a name in code (`Struct`, `hashed_password`), not a secret
    classes = {check for check in _CLASSES if any(check(char) for char in value)}
    symbols = any(not char.isalnum() and char not in _JOINERS for char in value)
    # one kind of character only: a word, or words joined (`DEIN_API_SCHLÜSSEL`), not a secret
    return len(classes) + symbols < 2


def _names_a_secret(value: str) -> bool:
    """A name in code with a secret's word as one of its parts: `hashed_password`,
    `settings.API_KEY`, `apiKey` (and not a random token that happens to hold `key`)."""
    if not value.replace(".", "_").isidentifier():
        return False
    return any(part.lower() in _SECRET_WORDS for part in _NAME_PART.findall(value))


def _random_enough(value: str) -> bool:
    return all(any(check(char) for char in value) for check in _CLASSES)


# Each pattern runs only on text holding one of its literal parts (checked lower-cased): most
# text holds none, and a substring test costs far less than a regular expression scan.
_TRIGGERS = {
    "private_key": ("private key", "mii"),
    "aws_access_key": ("akia", "asia", "qutjq", "qvnjq"),
    "aws_secret_key": ("aws_secret_access_key",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("glpat-",),
    "slack_webhook": ("hooks.slack.com",),
    "slack_token": ("xox", "xapp-"),
    "stripe_key": ("_live_", "_test_", "_prod_"),
    "stripe_webhook_secret": ("whsec_",),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "google_api_key": ("aiza",),
    "google_oauth_token": ("ya29.",),
    "npm_token": ("npm_",),
    "pypi_token": ("pypi-ageichlwas5vcmc",),
    "huggingface_token": ("hf_", "api_org_"),
    "digitalocean_token": ("_v1_",),
    "twilio_key": ("sk",),
    "sendgrid_key": ("sg.",),
    "discord_bot_token": (".",),
    "databricks_token": ("dapi",),
    "mailgun_key": ("key-",),
    "shopify_token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "telegram_bot_token": (":",),
    "jwt": ("eyj",),
    "azure_storage_key": ("accountkey=",),
    "azure_sas_token": ("sig=",),
    "bearer_token": ("bearer",),
    "basic_auth": ("basic",),
    "url_password": ("://",),
    "kubernetes_secret": ("kind: secret",),
}
# Most prose holds "key" or "token", so the assignment pattern gets a sharper test: one of its
# words followed by `=` or `:`, sought in the lower-cased text without the pattern's costly
# case-blind start (5x faster; every text the pattern matches passes it).
# The suffix is bounded (password is pass + word): an unbounded \w* made "keykeykey..." cost
# the square of its length.
_PASSWORD_HINT = re.compile(r"(?:pass|pwd|secret|key|token)\w{0,4}[\"']?\s*(?:[:=]|%3d)")
_KEY_FOOTER = re.compile(r"-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----")
# Kinds whose value a person typed (a placeholder or a word is not a secret), and kinds whose
# shape alone is too plain (a random token mixes upper case, lower case and digits).
_TYPED = frozenset({"password", "url_password", "bearer_token", "basic_auth"})
KEY_CHARS = 16  # the shortest value of a key or token taken for one
_RANDOM = frozenset({"discord_bot_token", "telegram_bot_token", "kubernetes_secret"})
# Credentials printed in public documentation as samples (jwt.io's example token).
_PUBLIC_SAMPLES = frozenset(
    {
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)


_PARTS = tuple((part, kind) for kind, parts in _TRIGGERS.items() for part in parts)
# Kinds whose trigger is the context the pattern needs, not only a cheap test before it: an
# indented `name: value` of base64 is a Secret's data only in a Secret manifest.
CONTEXTUAL = frozenset({"kubernetes_secret"})


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


def find(text: str) -> list[Secret]:
    """Return the secrets in `text`, earliest first, never overlapping."""
    found: list[Secret] = []
    taken: list[tuple[int, int]] = []  # disjoint spans, sorted
    present = _kinds_present(text.lower())
    last_footer = text.rfind("-----END ") if "private_key" in present else -1
    for kind, pattern, group in _PATTERNS:
        if kind not in present:
            continue
        for match in pattern.finditer(text):
            which = match.lastindex or 0 if group < 0 else group
            start, end = match.span(which)
            if kind == "private_key" and group == 0 and last_footer > end:  # up to its footer
                footer = _KEY_FOOTER.search(text, end)
                end = footer.end() if footer is not None else end
            keyed = kind == "password" and match["key"] is not None
            if _plausible(kind, match.group(which), keyed) and _take(taken, start, end):
                found.append(Secret(kind, start, end))
    return sorted(found, key=lambda secret: secret.start)


def _kinds_present(lowered: str) -> set[str]:
    """The kinds whose telltale parts occur in the text: only their patterns are run."""
    present = {kind for part, kind in _PARTS if part in lowered}
    if _PASSWORD_HINT.search(lowered):
        present.add("password")
    return present


def _plausible(kind: str, value: str, keyed: bool = False) -> bool:
    """Tell a value that may be a real secret from a vendor's documented sample, a made-up
    placeholder, or text that is not random enough to be a key. `keyed`: the value of a key,
    token or secret (`API_KEY=`), which a service makes long, where a person may choose a short
    password: one under KEY_CHARS is a docs example (`API_KEY=abc123`)."""
    if "EXAMPLE" in value or value in _PUBLIC_SAMPLES:  # vendors' documentation
        return False
    if keyed and len(value) < KEY_CHARS:
        return False
    if kind in _TYPED and (len(value) < 6 or _looks_made_up(value)):
        return False
    return kind not in _RANDOM or _random_enough(value)


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
