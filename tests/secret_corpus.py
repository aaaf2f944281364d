"""A corpus of realistic secret shapes and of look-alikes that are not secrets.

The secrets are made here from a seeded generator, so that no credential-shaped string sits in
the repository for scanners to trip over; the same seed always gives the same corpus.
"""

from __future__ import annotations

import base64
import random
import string

_RNG_SEED = 20261130
ALNUM = string.ascii_letters + string.digits


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def secrets() -> list[tuple[str, str, str]]:
    """(kind, line of text holding one secret of that kind, the secret itself)."""
    rng = random.Random(_RNG_SEED)
    up = string.ascii_uppercase + string.digits
    b64 = ALNUM + "+/"
    digits = string.digits
    pem = "\n".join(_pick(rng, b64, 64) for _ in range(4))

    def jwt() -> str:
        return (
            f"eyJ{_pick(rng, ALNUM, 30)}.eyJ{_pick(rng, ALNUM, 60)}.{_pick(rng, ALNUM + '-_', 43)}"
        )

    shapes: list[tuple[str, str, str]] = [
        ("aws_access_key", "aws_access_key_id = {}", "AKIA" + _pick(rng, up, 16)),
        ("aws_access_key", "export AWS_ACCESS_KEY_ID={}", "ASIA" + _pick(rng, up, 16)),
        ("aws_secret_key", "aws_secret_access_key = {}", _pick(rng, b64, 40)),
        ("github_token", "token {} was printed", "ghp_" + _pick(rng, ALNUM, 36)),
        ("github_token", "GH_TOKEN={}", "gho_" + _pick(rng, ALNUM, 36)),
        ("github_token", "uses {}", f"github_pat_{_pick(rng, ALNUM, 22)}_{_pick(rng, ALNUM, 59)}"),
        ("gitlab_token", "private token {}", "glpat-" + _pick(rng, ALNUM + "-_", 20)),
        (
            "slack_token",
            "bot {}",
            f"xoxb-{_pick(rng, digits, 12)}-{_pick(rng, digits, 13)}-{_pick(rng, ALNUM, 24)}",
        ),
        (
            "slack_token",
            "user {}",
            f"xoxp-{_pick(rng, digits, 12)}-{_pick(rng, digits, 12)}-{_pick(rng, ALNUM, 32)}",
        ),
        (
            "slack_webhook",
            "POST {}",
            f"https://hooks.slack.com/services/T{_pick(rng, up, 8)}/B{_pick(rng, up, 10)}/{_pick(rng, ALNUM, 24)}",
        ),
        ("stripe_key", "stripe key {}", "sk_live_" + _pick(rng, ALNUM, 24)),
        ("stripe_key", "test key {}", "sk_test_" + _pick(rng, ALNUM, 24)),
        ("stripe_key", "restricted {}", "rk_live_" + _pick(rng, ALNUM, 24)),
        ("openai_key", "OPENAI_API_KEY={}", "sk-proj-" + _pick(rng, ALNUM + "-_", 48)),
        ("openai_key", "client = OpenAI(api_key='{}')", "sk-" + _pick(rng, ALNUM, 48)),
        (
            "anthropic_key",
            "ANTHROPIC_API_KEY={}",
            "sk-ant-api03-" + _pick(rng, ALNUM + "-_", 93) + "AA",
        ),
        ("google_api_key", "maps key {}", "AIza" + _pick(rng, ALNUM + "-_", 35)),
        (
            "azure_storage_key",
            "DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey={};EndpointSuffix=core.windows.net",
            _pick(rng, b64, 86) + "==",
        ),
        ("jwt", "Authorization: Bearer {}", jwt()),
        (
            "private_key",
            "{}",
            f"-----BEGIN RSA PRIVATE KEY-----\n{pem}\n-----END RSA PRIVATE KEY-----",
        ),
        (
            "private_key",
            "{}",
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{pem}\n-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            "url_password",
            "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
            _pick(rng, ALNUM, 16),
        ),
        (
            "url_password",
            "git clone https://deploy:{}@git.example.org/repo.git",
            _pick(rng, ALNUM, 20),
        ),
        ("password", "password = {}", f"{_pick(rng, ALNUM, 10)}!{rng.randint(10, 99)}"),
        ("password", "DB_PASSWORD={}", _pick(rng, string.ascii_letters, 6) + _pick(rng, digits, 8)),
        (
            "password",
            "auth_token: {}",
            _pick(rng, string.ascii_lowercase, 16) + _pick(rng, digits, 16),
        ),
        ("password", '"api_key": "{}"', _pick(rng, ALNUM, 32)),
        ("password", "SECRET_KEY='{}'", _pick(rng, ALNUM, 30) + "!@#%^&*x"),
    ]
    hexes = "0123456789abcdef"
    aws = "AKIA" + _pick(rng, up, 16)
    shapes += [  # the shapes of the second hardening round
        ("npm_token", "//registry.npmjs.org/:_authToken={}", "npm_" + _pick(rng, ALNUM, 36)),
        ("pypi_token", "password = {}", "pypi-AgEIcHlwaS5vcmc" + _pick(rng, ALNUM + "-_", 70)),
        ("huggingface_token", "HF_TOKEN={}", "hf_" + _pick(rng, string.ascii_letters, 34)),
        ("digitalocean_token", "doctl auth init -t {}", "dop_v1_" + _pick(rng, hexes, 64)),
        ("twilio_key", "twilio api key {}", "SK" + _pick(rng, hexes, 32)),
        (
            "sendgrid_key",
            "SENDGRID_API_KEY={}",
            f"SG.{_pick(rng, ALNUM, 22)}.{_pick(rng, ALNUM + '-_', 43)}",
        ),
        (
            "discord_bot_token",
            "client.run('{}')",
            f"M{_pick(rng, ALNUM, 12)}7{_pick(rng, ALNUM, 10)}.{_pick(rng, ALNUM, 6)}"
            f".a9Z{_pick(rng, ALNUM, 30)}",
        ),
        ("databricks_token", "DATABRICKS_TOKEN {}", "dapi" + _pick(rng, hexes, 32)),
        ("mailgun_key", "mailgun {}", "key-" + _pick(rng, ALNUM, 32)),
        ("shopify_token", "X-Shopify-Access-Token: {}", "shpat_" + _pick(rng, hexes, 32)),
        (
            "telegram_bot_token",
            "bot url https://api.telegram.org/bot{}/getMe",
            f"{_pick(rng, digits, 10)}:AAH{_pick(rng, ALNUM, 27)}x9Z_-",
        ),
        (
            "slack_token",
            "SLACK_APP_TOKEN={}",
            f"xapp-1-A{_pick(rng, up, 10)}-{_pick(rng, digits, 13)}-{_pick(rng, hexes, 64)}",
        ),
        ("stripe_webhook_secret", "STRIPE_WEBHOOK_SECRET {}", "whsec_" + _pick(rng, ALNUM, 32)),
        ("google_oauth_token", "access token {}", "ya29.a0" + _pick(rng, ALNUM + "-_", 100)),
        ("bearer_token", "curl -H 'Authorization: Bearer {}'", _pick(rng, ALNUM, 40)),
        (
            "basic_auth",
            "Authorization: Basic {}",
            base64.b64encode(f"admin:{_pick(rng, ALNUM, 12)}".encode()).decode(),
        ),
        ("password", "https://api.example.org/v1?access_token%3D{}", _pick(rng, ALNUM, 32)),
        (
            "url_password",
            "postgresql://app:{}@db.internal/app",
            _pick(rng, ALNUM, 8) + "@" + _pick(rng, ALNUM, 6),
        ),
        ("url_password", "REDIS_URL=redis://:{}@cache:6379/0", _pick(rng, ALNUM, 20)),
        ("url_password", "MYSQL=MySQL://root:{}@db/app", _pick(rng, ALNUM, 14)),
        ("password", "API_KEY={}", _pick(rng, digits, 20)),
        (
            "password",
            'password: "{}"',
            f"{_pick(rng, string.ascii_lowercase, 7)} horse {_pick(rng, ALNUM, 9)} staple",
        ),
        (
            "password",
            "Server=db;Database=app;Password={};Trusted_Connection=False",
            f"{_pick(rng, ALNUM, 8)};{_pick(rng, ALNUM, 6)}",
        ),
        (
            "azure_sas_token",
            "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&sig={}",
            _pick(rng, ALNUM, 43) + "%3D",
        ),
        (
            "private_key",
            "{}",
            f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{pem}\n-----END PGP PRIVATE KEY BLOCK-----",
        ),
        ("private_key", "key.pem holds\n{}\n", "MII" + pem[3:]),
        ("aws_access_key", "AWS_KEY_B64={}", base64.b64encode(aws.encode()).decode()),
        (
            "kubernetes_secret",
            "apiVersion: v1\nkind: Secret\ndata:\n  db-password: {}\n",
            base64.b64encode(f"Pw{_pick(rng, ALNUM, 14)}7".encode()).decode(),
        ),
        # typed in as a call's argument: still one, the call's bracket after it
        ("password", "connect(password={})", _pick(rng, ALNUM, 12) + "x7"),
        # a token only as long as the shortest taken for one
        ("password", "ACCESS_TOKEN={}", _pick(rng, ALNUM, 14) + "a7"),
    ]
    return [(kind, template.format(value), value) for kind, template, value in shapes]


def lookalikes() -> list[str]:
    """Lines that look like secrets to a careless eye and are not."""
    rng = random.Random(_RNG_SEED + 1)
    hexes = "0123456789abcdef"
    png = base64.b64encode(bytes(rng.randrange(256) for _ in range(120))).decode()
    return [
        f"sha256 {_pick(rng, hexes, 64)}",
        f"sha1 {_pick(rng, hexes, 40)}",
        f"commit {_pick(rng, hexes, 40)} fixed the retry loop",
        "request id 123e4567-e89b-12d3-a456-426614174000",
        f"source_fingerprints: [raw/docs/x.md=xxh3:{_pick(rng, hexes, 16)}]",
        f"compiled_fingerprint: fnv1a64:{_pick(rng, hexes, 16)}",
        f"![diagram](data:image/png;base64,{png})",
        "Use the AWS example key AKIAIOSFODNN7EXAMPLE from the AWS docs.",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "password = <your password>",
        "password: ${DB_PASSWORD}",
        "password=********",
        "token: {{token}}",
        "export GITHUB_TOKEN=$(gh auth token)",
        "the password field must be at least 12 characters",
        "Set `password` in the config, then restart.",
        "mysql://user:password@localhost/db",
        "postgres://{{user}}:{{password}}@{{host}}/db",
        "https://docs.example.com/api/v2/tokens",
        "sk-learn is not a key, and scikit-learn is a library",
        "the ghp_ prefix marks a GitHub classic token",
        "xoxb- tokens belong to Slack bots",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is only a JWT header",
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "api_key = os.environ['API_KEY']",
        "token_count = 4096",
        "passwordless login with a magic link",
        "secret: true",
        f"uuid {_pick(rng, hexes, 8)}-{_pick(rng, hexes, 4)}-4{_pick(rng, hexes, 3)}-a{_pick(rng, hexes, 3)}-{_pick(rng, hexes, 12)}",
        # look-alikes seen in real documentation trees
        "user.hashed_password=hashed_password",
        "struct_token: Struct",
        "token = get_token()",
        "Authorization: Bearer <token>",
        "Authorization: Bearer $TOKEN",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "timeout: 30s, port: 8080, replicas: 3",
        "  name: frontendservice",
        "com.example.service.NotificationHandler.handle.processIncomingMessages",
        "the hf_ prefix marks a Hugging Face token; npm_ an npm one",
        "release 20261130:notes-for-the-weekly-release-train-x",
        "api_key = settings.API_KEY",
        "password_reset_token_ttl = 3600",
        # names passed on in code, the call's brackets after them (fastapi's tutorials)
        "UserInDB(**user_in.model_dump(), hashed_password=hashed_password)",
        "client.login(password=password)",
        "connect(password=settings.DB_PASSWORD)",
        "headers = [dict(token=token)]",
        # a key's or token's value in a docs example: shorter than any service makes one
        "export API_KEY=abc123",
        "token: abc123xyz",
        "api_key = 'mykey123'",
        "SECRET_KEY=short1A",
        # a placeholder written in another language: words joined, one case (Starlight's docs)
        "apiKey: 'DEIN_SUCH_API_SCHLÜSSEL',",
        "apiKey: 'TU_LLAVE_DE_API_DE_BÚSQUEDA'",
        "password: 'mot-de-passe-secret'",
    ]
