"""Secrets by their place: a value is one where it stands (a webhook's URL, the password
of a URL or a command, a Secret manifest's data), or where it is assigned to a name that holds
a password, key, token or secret in any syntax (env, ini, YAML, JSON, JS, shell flags, XML, a
URL's query, `.netrc`). Which names hold one is `name_kind`."""

from __future__ import annotations

from skillwiki.secrets.values import NAME_PART

# (kind, parts, pattern, group): places whose value is a secret. `group` is the secret's
# group (-1: whichever group matched last). Kinds ending in `=` name their secret by the name
# the value is assigned to (group `name`): `password` or `credential`, or none at all.
PLACES: tuple[tuple[str, tuple[str, ...], str, int], ...] = (
    # a webhook's URL is its credential: Slack (services, workflows, triggers), Discord, Teams
    ("slack_webhook", ("hooks.slack.com",),
     r"(?i)(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
     r"([A-Za-z0-9/_-]{20,300})", 1),
    ("discord_webhook", ("discord",),
     r"(?i)(?:https?://)?(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/"
     r"(\d{5,30}/[\w-]{30,120})", 1),
    ("teams_webhook", ("webhook.office.com", "outlook.office"),
     r"(?i)(?:https?://)?(?:[\w-]{1,60}\.webhook\.office\.com/webhookb2"
     r"|outlook\.office(?:365)?\.com/webhook)/([^\s\"'<>]{40,400})", 1),
    ("webhook_url", ("hook",),
     r"(?i)https?://[^\s/\"'<>]{1,100}/(?:[\w.-]{1,40}/){0,4}?(?:hooks?|webhooks?)/"
     r"([A-Za-z0-9_-]{16,100}(?:/[A-Za-z0-9_-]{8,100}){0,3})", 1),
    ("azure_storage_key", ("accountkey=",), r"(?i)\bAccountKey=([A-Za-z0-9+/]{40,}={0,2})", 1),
    ("azure_sas_token", ("sig=",), r"(?i)[?&]sig=([A-Za-z0-9%+/]{30,120}(?:%3D|=){0,2})", 1),
    ("aws_secret_key", ("aws_secret_access_key",),
     r"(?i)aws_secret_access_key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})\b", 1),
    ("bearer_token", ("authorization",),
     r"(?i)\b(?:Proxy-)?Authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?:Bearer|Token|Bot|SSWS|ApiKey"
     r"|GenieKey|Key|OAuth|JWT|Splunk)[ \t]+)?([A-Za-z0-9._~+/-]{16,}=*)", 1),
    ("basic_auth", ("basic",),
     r"(?i)\bAuthorization:[ \t]*Basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})", 1),
    # Any scheme, any case; an empty user; an @ inside the password (up to the last @ before
    # the host).
    ("url_password", ("://",),
     r"(?i)\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]{0,100}:([^\s/]{3,200})@[^\s@/]*", 1),
    # Go's DSN (`user:pass@tcp(host)/db`), Oracle's `user/pass@db`
    ("url_password", ("@tcp", "@unix", "@udp"),
     r"(?<![^\s\"'=`(,])[^\s:/@\"'`]{1,64}:([^\s\"'`]{1,200})@(?:tcp6?|udp|unix)\(", 1),
    ("url_password", ("jdbc:oracle:", "sqlplus"),
     r"(?i)(?:\bjdbc:oracle:\w{1,10}:|\bsqlplus[ \t]+)[\w.$-]{1,64}/([^\s@/\"']{3,200})@", 1),
    # curl -u/--user user:pass (curl-auth-user), and the password flags of other tools
    ("password", ("-u", "--user"),
     r"(?<!\S)(?:-u|--user|--proxy-user)(?:=|[ \t]{1,5})(?:\"[^\"\s:]{0,100}:([^\"\n]{1,200})\""
     r"|'[^'\s:]{0,100}:([^'\n]{1,200})'|[^\s:\"']{0,100}:([^\s\"']{1,200}))", -1),
    # PowerShell's ConvertTo-SecureString of a string written out (`-AsPlainText`)
    ("password", ("convertto-securestring",),
     r"(?i)\bConvertTo-SecureString[ \t]{1,10}(?:-String[ \t]{1,10})?"
     r"(?:\"([^\"\n]{1,200})\"|'([^'\n]{1,200})')", -1),
    ("password", ("sshpass", "redis-cli", "login", "mysql", "mariadb"),
     r"(?i)(?:\bsshpass[ \t]+-p[ \t]*|\bredis-cli\b[^\n|;&]{0,100}?[ \t]-a[ \t]+"
     r"|\b(?:docker|podman|helm[ \t]+registry)[ \t]+login\b[^\n|;&]{0,100}?[ \t]-p[ \t]+"
     r"|\b(?:mysql\w{0,5}|mariadb)\b[^\n|;&]{0,100}?[ \t]-p(?=[^\s-]))([^\s\"']{3,200})", 1),
    # .netrc: `machine host login user password secret`, on one line or several
    ("password", ("login",), r"(?i)\blogin[ \t]+\S{1,200}\s{1,40}password[ \t]+(\S{1,200})", 1),
    # bundler's credentials for a gem server (sidekiq-secret): BUNDLE_GEMS__HOST__COM=user:pass
    ("password", ("bundle_",),
     r"\bBUNDLE_[A-Z0-9_]{1,100}__[A-Z0-9_]{1,100}[\"']?\s*[:=]\s*[\"']?[^\s:\"']{1,100}"
     r":([^\s\"']{3,200})", 1),
    ("kubernetes_secret",  # `data:` values of a Secret manifest are base64 of the secret
     ("kind: secret",), r"(?m)^[ \t]+[\w.-]{1,100}:[ \t]+([A-Za-z0-9+/]{12,}={0,2})[ \t]*$", 1),
    ("private_key", ("private-lines:",),  # PuTTY's .ppk
     r"(?i)(Private-Lines:[ \t]*\d{1,4}[ \t]*\r?\n(?:[A-Za-z0-9+/=]{1,100}\r?\n?){1,400})", 1),
    # Names that hold a secret: a value in the query of a URL (up to the next & or #); an
    # XML element or a .NET `<add key= value=>`; a long command-line flag; then an assignment
    # in any syntax (= : := => ?= and URL-encoded =), the value quoted or bare; and a Gradle
    # or Ruby call with a quoted argument (`storePassword 'x'`).
    ("=query", ("?", "&"),
     r"[?&](?P<name>[A-Za-z][\w.-]{0,60})(?:=|%3[dD])(?P<v>[^\s&#\"'<>]{1,400})", 2),
    ("=xml", ("<",),
     r"(?i)<add[ \t]+key[ \t]*=[ \t]*\"(?P<name>[^\"\n]{1,80})\"[ \t]+value[ \t]*=[ \t]*"
     r"\"(?P<v>[^\"\n]{1,400})\""
     r"|<(?P<tag>[A-Za-z][\w.:-]{0,60})>(?P<w>[^<\n]{1,400})</(?P=tag)>", -1),
    ("=flag", ("--",),
     r"(?<![\w-])--(?P<name>[A-Za-z][\w-]{0,60})(?:=|[ \t]+)(?:\"(?P<a>[^\"\n]{1,300})\""
     r"|'(?P<b>[^'\n]{1,300})'|(?P<c>[^\s\"'`-][^\s\"'`]{0,400}))", -1),
    ("=assign", (),
     r"(?<![\w$@.-])(?P<name>\$env:\w{1,80}+|[A-Za-z_$@][\w$@.-]{0,80}+)[\"'\]]?[ \t]{0,10}"
     r"(?:=>|:=|::=|\?=|(?<![:=])=(?!=)|:(?![/:])|%3[dD])[ \t]{0,10}"
     # a quoted value, spaces and all; or a bare one, where a `;` not followed by
     # `Name=` (a connection string's next key) is part of it
     r"(?:\"(?P<a>(?:[^\"\\\n]|\\.){1,4000}+)\"|'(?P<b>[^'\n]{1,4000})'|`(?P<c>[^`\n]{1,4000})`"
     r"|(?P<d>[^\s\"'`,;<>]{1,4000}+(?:;(?![A-Za-z ]{1,40}=)[^\s\"'`,;<>]{0,4000}+){0,20}+))", -1),
    ("=call", (),
     r"(?<![\w$@.-])(?P<name>[A-Za-z_][\w.-]{0,80}+)[ \t]{1,10}"
     r"(?:\"(?P<a>[^\"\s]{6,200})\"|'(?P<b>[^'\s]{6,200})')", -1),
)  # fmt: skip

# Names holding a secret: their last word, after qualifiers (`SECRET_KEY_BASE`, `token_v2`).
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "passwort", "pw"})
_CREDENTIAL_WORDS = frozenset(
    {"key", "apikey", "token", "secret", "credential", "credentials", "creds", "cred", "auth"}
    | {"pat", "signature", "sig"}
)
_QUALIFIERS = frozenset(
    {"value", "val", "b64", "base64", "hex", "str", "string", "raw", "plain", "plaintext"}
    | {"base", "prod", "production", "dev", "development", "test", "staging", "stage", "live"}
    | {"sandbox", "local", "old", "new", "current", "v"}
)
# A key or token that is published, or not a credential: `public_key`, `csrf_token`,
# `max_tokens`, `next_page_token`, `cache_key`, `idempotency_key`.
_NOT_CREDENTIAL_BEFORE = frozenset(
    {"public", "pub", "publishable", "host", "known", "verify", "verifying", "verification"}
    | {"csrf", "xsrf", "page", "next", "continuation", "pagination", "cursor", "cancellation"}
    | {"sync", "max", "num", "count", "total", "prompt", "completion", "input", "output"}
    | {"special", "eos", "bos", "pad", "unk", "mask", "sep", "cls", "cache", "idempotency"}
    | {"sort", "partition", "foreign", "primary", "row", "object", "lookup", "storage", "lock"}
    | {"translation", "i18n", "dedupe", "dedup", "routing", "shortcut", "hot", "group"}
)
# A word anywhere in a name that says its value is published: .NET's `PublicKeyToken` (of a
# signed assembly, printed in every reference to it), Next.js's `NEXT_PUBLIC_API_KEY`.
_PUBLISHED = frozenset({"public", "publishable"})
# A word run together with `key` that makes a credential's name (`APIKEY`, `secretkey`):
# without one, `monkey` and `hotkey` would be names of secrets.
_KEY_PREFIXES = (
    "api", "access", "secret", "private", "master", "account", "sharedaccess", "shared",
    "signing", "auth", "app", "license", "client", "encryption", "service", "admin", "bot",
    "deploy", "subscription", "consumer", "webhook", "server", "sdk", "merchant",
)  # fmt: skip


def name_kind(name: str) -> str | None:
    """Return `password` or `credential` when the name holds one (`PGPASSWORD`,
    `secretAccessKey`, `x-api-key`, `spring.datasource.password`), else None
    (`password_hash`, `key_id`)."""
    parts = _words(name)
    if not parts:
        return None
    last, before = parts[-1], parts[-2] if len(parts) > 1 else ""
    if len(name) - name.lower().rfind(last) - len(last) > 16:  # as far as the hint looks
        return None
    if last in _PASSWORD_WORDS or last.endswith(("password", "passwd", "passphrase")):
        return "password"
    if before in _NOT_CREDENTIAL_BEFORE or _PUBLISHED & set(parts[:-1]):
        return None
    if last in _CREDENTIAL_WORDS or last.endswith(("token", "secret")):
        return "credential"
    if last.endswith("key") and last[:-3] in _KEY_PREFIXES:
        return "credential"
    return None


def _words(name: str) -> list[str]:
    """The words of a name, lower-cased, without the numbers and qualifiers that end it."""
    parts = [part.lower() for part in NAME_PART.findall(name)]
    while parts and (parts[-1].isdigit() or parts[-1] in _QUALIFIERS):
        parts.pop()
    return parts
