"""What a candidate value looks like: a reference to where a secret is kept (a variable, a
path, a name in code, a public key), a placeholder or words a person wrote, or characters
random enough to be a key."""

from __future__ import annotations

import re

NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")  # snake, camel, CAPS

# Values that stand for a secret rather than being one: ${VAR}, %(x)s, <key>, ^PASS^, ***,
# {password} (a format string's field, as docs write what to type: `Password={password};`).
PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[\w\\]*\}?|%\(?\w+\)?s?|<[^>]*>?|\^\w+\^?|[*.x]+|\{[\w.-]{1,60}\}[;,]?)$"
    r"|\{\{|\}\}|[(\[]"  # a template ({{x}}) or a code expression (os.environ['X'])
    r"|example|placeholder|redacted|changeme|your[_-]|dummy|xxxx"
)
# A reference to where the secret is kept: $VAR, $env:VAR, %VAR%, #{var}, @{var}, a YAML tag
# (`!vault |`, `!Ref DbPassword`, `!secret db`), an alias (*name), a file (@/path).
_REFERENCE = re.compile(
    r"^(?:\$[A-Za-z_][\w:]*|\$env:\w+|%\w+%|[#@]\{[^}]*\}|!{1,2}[A-Za-z][\w/:.-]*|\*[\w.-]+"
    r"|@[\w./~-]+|[|>][+-]?)$"
)
# `${NAME}`, `${NAME:?message}` and `${NAME?}` refer to a variable; `${NAME:-default}` (shell,
# compose) and `${NAME:default}` (Spring) hold a default, which is judged in its place.
_INTERPOLATION = re.compile(r"^\$\{[A-Za-z_][\w.-]*(?:(?P<op>:?[-=+?]|:)(?P<default>[^}]*))?\}?")
# A type's name where a schema or a signature declares the value (`DB_PASSWORD: string;`,
# `password: String!`, `token: str`): no value is given there.
_TYPE_NAME = re.compile(
    r"(?i)^(?:string|str|securestring|secretstr|text|char|varchar|bytes|number|int|integer"
    r"|bool|boolean|any|object|unknown)(?:\[\])?[!?]?[;,):]*$"
)
# A PowerShell command whose output the name takes (`$password = Read-Host -AsSecureString`,
# `Get-Credential`, `ConvertTo-SecureString`): a prompt or a lookup, not the value.
_COMMAND = re.compile(r"^(?:Read|Get|ConvertTo|ConvertFrom|Import|Unprotect)-[A-Z][A-Za-z]{1,60}$")
# A URL without a user or password in it (those are found as url_password).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/@\s]*(?:[/?#]|$)")
# A name in code: `process.env.ACCESS_TOKEN!`, `settings.API_KEY`, `var.db_password`, `self.key`
_CODE_PATH = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\?\.|\.|::|->)[A-Za-z_$][\w$]*)+[!?]*$")
_PATH = re.compile(r"^(?:~|\.{1,2}|[A-Za-z]:|\$\{?\w+\}?)?[/\\][\w.-]")
_FILE = re.compile(
    r"(?i)\.(?:pem|key|p12|pfx|crt|cer|der|json|txt|env|ya?ml|toml|ini|cfg|conf|gpg|asc|jks"
    r"|keystore|kdbx|ppk|pub|properties|xml)$"
)
_PUBLIC_KEY = re.compile(
    r"^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-|sk-(?:ssh|ecdsa)-|age1[a-z0-9]{50}|pk_(?:live|test)_"
    r"|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|RSA PUBLIC KEY|PGP PUBLIC))"
)
CLASSES = (str.islower, str.isupper, str.isdigit)
_JOINERS = frozenset("_-")  # what joins the words of a name: no randomness of their own
# names in code that hold a secret's word (`hashed_password`, `apiKey`): code, not a value
_SECRET_WORDS = frozenset({"password", "passwd", "token", "secret", "key", "keys", "tokens"})
_PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase"})
_VOWELS = frozenset("aeiouy")
_CONSONANTS = re.compile(r"[^aeiouy]{5}")


def looks_made_up(value: str) -> bool:
    """Tell a placeholder (`password`, `FUZZ`, `{{password}}`) from something typed in; a
    name in code is judged without the closing brackets of the call it is passed in
    (`f(password=password)`)."""
    if PLACEHOLDER.search(value) or PLACEHOLDER.search(value.rstrip(")]}") or value):
        return True
    value = value.rstrip(")]}") or value
    if value.isdigit():
        return len(value) < 16  # a short number is a setting; a long one, a numeric key
    if _one_word(value) or _names_a_secret(value):
        return True  # a word or a name in code (`Struct`, `hashed_password`), not a secret
    classes = {check for check in CLASSES if any(check(char) for char in value)}
    symbols = any(not char.isalnum() and char not in _JOINERS for char in value)
    # one kind of character only: a word, or words joined (`DEIN_API_SCHLÜSSEL`), not a secret
    return len(classes) + symbols < 2


def _one_word(value: str) -> bool:
    """Letters only, as a word is written (`hunter`, `Struct`, `CamelCase`), not at random
    (`FAgZtODOVmKT`)."""
    return value.isalpha() and wordy(value)


def _names_a_secret(value: str) -> bool:
    """A name in code with a secret's word as one of its parts: `hashed_password`,
    `settings.API_KEY`, `apiKey` (and not a random token that happens to hold `key`); or
    words that name a password where docs show one (`MyPlainTextPassword`)."""
    if not value.replace(".", "_").isidentifier():
        return False
    parts = [part.lower() for part in NAME_PART.findall(value)]
    if value.isalpha() and _PASSWORD_WORDS & set(parts):
        return True  # these words are too long to come up in random letters
    return wordy(value) and any(part in _SECRET_WORDS for part in parts)


def wordy(value: str) -> bool:
    """Words and numbers, as a person writes (`node-modules-v2-linux`, `sk-chasing-dots`), not
    random characters: nearly every letter stands in a part of three or more that has a
    vowel, and digits are few. A random token's parts are short and often have no vowel."""
    parts = NAME_PART.findall(value)
    letters = sum(len(part) for part in parts if part.isalpha())
    numbers = [part for part in parts if part.isdigit()]
    digits = sum(map(len, numbers))
    if not letters or digits * 3 > letters + digits or len(numbers) > 2:
        return False  # digits scattered among the letters: drawn at random
    spoken = sum(len(part) for part in parts if _spoken(part))
    return spoken >= 0.9 * letters


def _spoken(part: str) -> bool:
    """A part that can be said: a vowel, and no more than four consonants in a row."""
    if not part.isalpha() or not 3 <= len(part) <= 15:
        return False
    lowered = part.lower()
    return bool(_VOWELS & set(lowered)) and not _CONSONANTS.search(lowered)


def random_token(value: str) -> bool:
    """Random enough to be a key: more than one kind of character, and not words."""
    return not looks_made_up(value) and not wordy(value)


def literal(value: str) -> str | None:
    """Return the literal part of a value, or None where it only refers to a secret kept
    elsewhere (an interpolation, a variable, a name in code, a YAML tag, a path, a public
    key), declares its type, or runs a command that asks for it. A value quoted in prose is
    judged without its quotes; an interpolation with a default (`${NAME:-default}`) by its
    default."""
    value = value.strip()
    if len(value) > 2 and value[0] == value[-1] and value[0] in "`'\"":  # quoted in prose
        value = value[1:-1]
    if _URL.match(value):  # where the secret is served or made, not the secret
        return None
    default = _default_of(value)
    if default is None or _REFERENCE.match(default) or _PUBLIC_KEY.match(default):
        return None
    if _TYPE_NAME.match(default) or _COMMAND.match(default):
        return None
    if _name_in_code(default) or a_path(default):
        return None
    return default


def _default_of(value: str) -> str | None:
    """The value itself, or for an interpolation that is the whole value, its default: None
    where it has none or only refers (`${NAME}`, `${NAME:?message}`, `${NAME:+alt}`)."""
    interpolation = _INTERPOLATION.match(value)
    if not interpolation or interpolation.end() != len(value):  # what follows `}` is judged too
        return value
    op, default = interpolation["op"] or "", interpolation["default"] or ""
    if "?" in op or "+" in op or not default:
        return None
    return default


def _name_in_code(value: str) -> bool:
    """A name in code (`process.env.ACCESS_TOKEN!`, `settings.API_KEY`), each part a word or
    a short name, however the call it stands in is closed."""
    code = value.rstrip(")]};,")
    return bool(_CODE_PATH.match(code)) and all(
        wordy(part) or part.replace("_", "").isalpha() and len(part) < 16
        for part in re.split(r"\?\.|\.|::|->", code.rstrip("!?"))
    )


def a_path(value: str) -> bool:
    """A file's path (`~/.ssh/id_ed25519`, `/run/secrets/db`, `deploy.pem`): where the
    secret is kept. A path from the root is set apart from base64 that starts with `/` by
    its names."""
    if _PATH.match(value):
        return not value.startswith("/") or any(map(wordy, value.split("/")))
    if value.endswith("/") and wordy(value.rstrip("/")):  # a folder (`public/`)
        return True
    return _FILE.search(value) is not None and wordy(value)
