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
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
# How DER starts, in base64: a private key (RSA in PKCS #1 and #8, EC in PKCS #8) is a SEQUENCE
# whose first element is its INTEGER version; a certificate and a public key start with a
# SEQUENCE inside the SEQUENCE.
_RSA_DER = "MIIEpAIBAAKCAQEA"
_PKCS8_DER = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
_EC_DER = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg"
_CERT_DER = "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ"
_PUBLIC_DER = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"


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
            "credential",
            "auth_token: {}",
            _pick(rng, string.ascii_lowercase, 16) + _pick(rng, digits, 16),
        ),
        ("credential", '"api_key": "{}"', _pick(rng, ALNUM, 32)),
        ("credential", "SECRET_KEY='{}'", _pick(rng, ALNUM, 30) + "!@#%^&*x"),
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
        ("credential", "https://api.example.org/v1?access_token%3D{}", _pick(rng, ALNUM, 32)),
        (
            "url_password",
            "postgresql://app:{}@db.internal/app",
            _pick(rng, ALNUM, 8) + "@" + _pick(rng, ALNUM, 6),
        ),
        ("url_password", "REDIS_URL=redis://:{}@cache:6379/0", _pick(rng, ALNUM, 20)),
        ("url_password", "MYSQL=MySQL://root:{}@db/app", _pick(rng, ALNUM, 14)),
        ("credential", "API_KEY={}", _pick(rng, digits, 20)),
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
        ("private_key", "key.pem holds\n{}\n", _RSA_DER + pem[len(_RSA_DER) :]),
        ("aws_access_key", "AWS_KEY_B64={}", base64.b64encode(aws.encode()).decode()),
        (
            "kubernetes_secret",
            "apiVersion: v1\nkind: Secret\ndata:\n  db-password: {}\n",
            base64.b64encode(f"Pw{_pick(rng, ALNUM, 14)}7".encode()).decode(),
        ),
        # typed in as a call's argument: still one, the call's bracket after it
        ("password", "connect(password={})", _pick(rng, ALNUM, 12) + "x7"),
        # a token only as long as the shortest taken for one
        ("credential", "ACCESS_TOKEN={}", _pick(rng, ALNUM, 14) + "a7"),
    ]
    shapes += _third_round(rng, pem)
    return [(kind, template.replace("{}", value, 1), value) for kind, template, value in shapes]


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
        'Notice that nowhere in the code is the plaintext password "`secret`", we only have',
        "rclone sync --sftp-user www-data --sftp-ask-password public/ :sftp:www/",
        "[SourceHut personal access token]: https://meta.sr.ht/oauth2/personal-token",
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
    ] + _third_round_lookalikes(rng)


def _lines(rng: random.Random, first: str, count: int, width: int = 64) -> list[str]:
    """A key's base64 body: its first line starting with `first`, `count` lines in all."""
    body = first + _pick(rng, B64, width * count - len(first))
    return [body[at : at + width] for at in range(0, len(body), width)]


def _uuid(rng: random.Random, alphabet: str = HEX) -> str:
    return "-".join(_pick(rng, alphabet, n) for n in (8, 4, 4, 4, 12))


def _third_round(rng: random.Random, pem: str) -> list[tuple[str, str, str]]:
    """The shapes of the third hardening round: the ten that passed every write path, a key
    cut before its footer, and each syntax a credential is assigned in."""
    key = "\n".join(_lines(rng, _RSA_DER, 6))
    gcp = "\\n".join(_lines(rng, _PKCS8_DER, 6))
    shapes: list[tuple[str, str, str]] = [
        (
            "credential",
            "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName="
            "RootManageSharedAccessKey;SharedAccessKey={};EntityPath=orders",
            _pick(rng, B64, 43) + "=",
        ),
        (
            "slack_webhook",
            "POST https://hooks.slack.com/workflows/{}",
            f"T{_pick(rng, UPPER, 8)}/A{_pick(rng, UPPER, 10)}/{_pick(rng, string.digits, 18)}"
            f"/{_pick(rng, ALNUM, 24)}",
        ),
        (
            "atlassian_token",
            "jira said 401 for {}",
            f"ATATT3{_pick(rng, URLSAFE, 177)}={_pick(rng, HEX, 8).upper()}",
        ),
        (
            "discord_webhook",
            "curl -X POST https://discord.com/api/webhooks/{} -d @msg.json",
            f"{_pick(rng, string.digits, 19)}/{_pick(rng, URLSAFE, 68)}",
        ),
        (
            "url_password",
            'dsn := "app:{}@tcp(db.internal:3306)/app?parseTime=true"',
            _pick(rng, ALNUM, 16),
        ),
        ("password", "PGPASSWORD={} psql -h db.internal -U app", _pick(rng, ALNUM, 14)),
        (
            "credential",
            "new S3Client({ credentials: { accessKeyId: process.env.KEY_ID, secretAccessKey: '{}' } })",
            _pick(rng, B64, 40),
        ),
        ("password", "machine api.internal login deploy password {}", _pick(rng, ALNUM, 20)),
        ("password", "curl -u deploy:{} https://ci.internal/api/json", _pick(rng, ALNUM, 18)),
        (
            "credential",
            '{"auths": {"registry.internal": {"auth": "{}"}}}',
            base64.b64encode(f"deploy:{_pick(rng, ALNUM, 10)}".encode()).decode(),
        ),
        # a private key cut before its footer, and one in a service account's JSON
        ("private_key", "-----BEGIN RSA PRIVATE KEY-----\n{}\n\nThe rest was cut off.", key),
        (
            "private_key",
            '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n{}',
            gcp,
        ),
        (
            "private_key",
            "{}\n",
            "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,"
            f"{_pick(rng, HEX, 32).upper()}\n\n" + "\n".join(_lines(rng, "MHcCAQEEI", 3)),
        ),
        ("private_key", "ec.pem:\n{}\n", "\n".join(_lines(rng, _EC_DER, 3))),
        (
            "private_key",
            "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 4\n{}\nPrivate-MAC: "
            + _pick(rng, HEX, 40),
            "\n".join(_lines(rng, "AAAA", 4)),
        ),
        # the syntaxes a credential is assigned in
        ("credential", 'api_token = "{}"  # config.toml', _pick(rng, ALNUM, 32)),
        ("credential", '{"client_secret": "{}", "client_id": "42"}', _pick(rng, URLSAFE, 40)),
        ("credential", "const client = new Api({ apiKey: `{}` });", _pick(rng, ALNUM, 32)),
        ("credential", 'client = Client(auth_token="{}")', _pick(rng, ALNUM, 32)),
        ("password", 'db := sql.Config{User: "app", Password: "{}"}', _pick(rng, ALNUM, 12)),
        ("password", "'password' => '{}',", _pick(rng, ALNUM, 12) + "#"),
        ("credential", "config.secret_key_base = '{}'", _pick(rng, HEX, 128)),
        ("password", "export DB_PASS={}", _pick(rng, ALNUM, 12)),
        ("credential", "set API_TOKEN={}", _pick(rng, ALNUM, 32)),
        ("credential", '$env:API_TOKEN = "{}"', _pick(rng, ALNUM, 32)),
        ("credential", "TOKEN ?= {}", _pick(rng, ALNUM, 32)),
        ("credential", 'token := "{}"', _pick(rng, ALNUM, 32)),
        ("password", "spring.datasource.password={}", _pick(rng, ALNUM, 12)),
        (
            "credential",
            "_auth={}",
            base64.b64encode(f"ci:{_pick(rng, ALNUM, 12)}".encode()).decode(),
        ),
        (
            "password",
            "<server><id>nexus</id><password>{}</password></server>",
            _pick(rng, ALNUM, 14),
        ),
        ("password", "        storePassword '{}'", _pick(rng, ALNUM, 12)),
        ("password", "mongo --username app --password {} --host db", _pick(rng, ALNUM, 14)),
        ("credential", "deploy --api-key={} --env prod", _pick(rng, ALNUM, 32)),
        ("password", "mysql -u root -p{} app < dump.sql", _pick(rng, ALNUM, 12)),
        ("password", "sshpass -p {} ssh deploy@10.0.0.7", _pick(rng, ALNUM, 12)),
        ("password", "redis-cli -h cache -a {} ping", _pick(rng, ALNUM, 16)),
        ("password", "docker login -u ci -p {} registry.internal", _pick(rng, ALNUM, 16)),
        ("credential", 'curl -H "X-Api-Key: {}" https://api.internal/v1/me', _pick(rng, ALNUM, 32)),
        ("credential", "GET /v1/items?api_key={}&format=json", _pick(rng, ALNUM, 32)),
        (
            "credential",
            "https://bucket.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={}",
            _pick(rng, HEX, 64),
        ),
        ("password", "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-{}}", _pick(rng, ALNUM, 14)),
        ("password", 'db_password = "{}"', _pick(rng, ALNUM, 14)),
        ("password", "stringData:\n  password: {}\n", _pick(rng, ALNUM, 14)),
        ("password", "helm install db --set auth.password={}", _pick(rng, ALNUM, 14)),
        ("url_password", "jdbc:oracle:thin:scott/{}@db.internal:1521/ORCL", _pick(rng, ALNUM, 12)),
        (
            "url_password",
            "MONGO_URL=mongodb+srv://app:{}@cluster0.abcde.mongodb.net/app",
            _pick(rng, ALNUM, 16),
        ),
        ("password", "BUNDLE_GEMS__ACME__IO=ci:{}", _pick(rng, HEX, 16)),
        ("password", '<add key="ClearTextPassword" value="{}" />', _pick(rng, ALNUM, 16)),
        ("bearer_token", "Authorization: token {}", _pick(rng, ALNUM, 40)),
        ("credential", "GITHUB_PAT={}", _pick(rng, ALNUM, 40)),
        ("credential", "HEROKU_API_KEY={}", _uuid(rng)),
        ("webhook_url", "notify https://chat.internal/hooks/{}", _pick(rng, LOWER, 26)),
        (
            "teams_webhook",
            "https://acme.webhook.office.com/webhookb2/{}",
            f"{_uuid(rng)}@{_uuid(rng)}/IncomingWebhook/{_pick(rng, HEX, 32)}/{_uuid(rng)}",
        ),
    ]
    return shapes


# The rule ids of gitleaks' config/gitleaks.toml (v8.30.0-27-gb58d3f10): each is a family of
# credentials that the corpus holds at least one of, or that NOT_SECRETS says why it does not.
GITLEAKS_RULES = (
    "1password-secret-key", "1password-service-account-token", "adafruit-api-key",
    "adobe-client-id", "adobe-client-secret", "age-secret-key", "airtable-api-key",
    "airtable-personnal-access-token", "algolia-api-key", "alibaba-access-key-id",
    "alibaba-secret-key", "anthropic-admin-api-key", "anthropic-api-key", "artifactory-api-key",
    "artifactory-reference-token", "asana-client-id", "asana-client-secret",
    "atlassian-api-token", "authress-service-client-access-key", "aws-access-token",
    "aws-amazon-bedrock-api-key-long-lived", "aws-amazon-bedrock-api-key-short-lived",
    "azure-ad-client-secret", "beamer-api-token", "bitbucket-client-id",
    "bitbucket-client-secret", "bittrex-access-key", "bittrex-secret-key", "cisco-meraki-api-key",
    "clickhouse-cloud-api-secret-key", "clojars-api-token", "cloudflare-api-key",
    "cloudflare-global-api-key", "cloudflare-origin-ca-key", "codecov-access-token",
    "cohere-api-token", "coinbase-access-token", "confluent-access-token", "confluent-secret-key",
    "contentful-delivery-api-token", "curl-auth-header", "curl-auth-user", "databricks-api-token",
    "datadog-access-token", "defined-networking-api-token", "digitalocean-access-token",
    "digitalocean-pat", "digitalocean-refresh-token", "discord-api-token", "discord-client-id",
    "discord-client-secret", "doppler-api-token", "droneci-access-token", "dropbox-api-token",
    "dropbox-long-lived-api-token", "dropbox-short-lived-api-token", "duffel-api-token",
    "dynatrace-api-token", "easypost-api-token", "easypost-test-api-token", "etsy-access-token",
    "facebook-access-token", "facebook-page-access-token", "facebook-secret", "fastly-api-token",
    "finicity-api-token", "finicity-client-secret", "finnhub-access-token", "flickr-access-token",
    "flutterwave-encryption-key", "flutterwave-public-key", "flutterwave-secret-key",
    "flyio-access-token", "frameio-api-token", "freemius-secret-key", "freshbooks-access-token",
    "gcp-api-key", "generic-api-key", "github-app-token", "github-fine-grained-pat",
    "github-oauth", "github-pat", "github-refresh-token", "gitlab-cicd-job-token",
    "gitlab-deploy-token", "gitlab-feature-flag-client-token", "gitlab-feed-token",
    "gitlab-incoming-mail-token", "gitlab-kubernetes-agent-token", "gitlab-oauth-app-secret",
    "gitlab-pat", "gitlab-pat-routable", "gitlab-ptt", "gitlab-rrt",
    "gitlab-runner-authentication-token", "gitlab-runner-authentication-token-routable",
    "gitlab-scim-token", "gitlab-session-cookie", "gitter-access-token", "gocardless-api-token",
    "grafana-api-key", "grafana-cloud-api-token", "grafana-service-account-token",
    "harness-api-key", "hashicorp-tf-api-token", "hashicorp-tf-password", "heroku-api-key",
    "heroku-api-key-v2", "hubspot-api-key", "huggingface-access-token",
    "huggingface-organization-api-token", "infracost-api-token", "intercom-api-key",
    "intra42-client-secret", "jfrog-api-key", "jfrog-identity-token", "jwt", "jwt-base64",
    "kraken-access-token", "kubernetes-secret-yaml", "kucoin-access-token", "kucoin-secret-key",
    "launchdarkly-access-token", "linear-api-key", "linear-client-secret", "linkedin-client-id",
    "linkedin-client-secret", "lob-api-key", "lob-pub-api-key", "looker-client-id",
    "looker-client-secret", "mailchimp-api-key", "mailgun-private-api-token", "mailgun-pub-key",
    "mailgun-signing-key", "mapbox-api-token", "mattermost-access-token", "maxmind-license-key",
    "messagebird-api-token", "messagebird-client-id", "microsoft-teams-webhook",
    "netlify-access-token", "new-relic-browser-api-token", "new-relic-insert-key",
    "new-relic-user-api-id", "new-relic-user-api-key", "notion-api-token", "npm-access-token",
    "nuget-config-password", "nytimes-access-token", "octopus-deploy-api-key",
    "okta-access-token", "openai-api-key", "openshift-user-token", "perplexity-api-key",
    "pkcs12-file", "plaid-api-token", "plaid-client-id", "plaid-secret-key",
    "planetscale-api-token", "planetscale-oauth-token", "planetscale-password",
    "postman-api-token", "prefect-api-token", "private-key", "privateai-api-token",
    "pulumi-api-token", "pypi-upload-token", "rapidapi-access-token", "readme-api-token",
    "rubygems-api-token", "scalingo-api-token", "sendbird-access-id", "sendbird-access-token",
    "sendgrid-api-token", "sendinblue-api-token", "sentry-access-token", "sentry-org-token",
    "sentry-user-token", "settlemint-application-access-token",
    "settlemint-personal-access-token", "settlemint-service-access-token", "shippo-api-token",
    "shopify-access-token", "shopify-custom-access-token", "shopify-private-app-access-token",
    "shopify-shared-secret", "sidekiq-secret", "sidekiq-sensitive-url", "slack-app-token",
    "slack-bot-token", "slack-config-access-token", "slack-config-refresh-token",
    "slack-legacy-bot-token", "slack-legacy-token", "slack-legacy-workspace-token",
    "slack-user-token", "slack-webhook-url", "snyk-api-token", "sonar-api-token",
    "sourcegraph-access-token", "square-access-token", "squarespace-access-token",
    "stripe-access-token", "sumologic-access-id", "sumologic-access-token",
    "telegram-bot-api-token", "travisci-access-token", "twilio-api-key", "twitch-api-token",
    "twitter-access-secret", "twitter-access-token", "twitter-api-key", "twitter-api-secret",
    "twitter-bearer-token", "typeform-api-token", "vault-batch-token", "vault-service-token",
    "yandex-access-token", "yandex-api-key", "yandex-aws-access-token", "zendesk-secret-key",
)  # fmt: skip
_IDENTIFIER = "an identifier that names a client or account, published beside its secret"
_PUBLISHED = "a key made to be published (in a web page or an app), not a credential"
NOT_SECRETS = {
    "pkcs12-file": "a rule on file names (*.p12, *.pfx), binary files that are no wiki text",
    "adobe-client-id": _IDENTIFIER,
    "asana-client-id": _IDENTIFIER,
    "bitbucket-client-id": _IDENTIFIER,
    "discord-client-id": _IDENTIFIER,
    "linkedin-client-id": _IDENTIFIER,
    "looker-client-id": _IDENTIFIER,
    "messagebird-client-id": _IDENTIFIER,
    "plaid-client-id": _IDENTIFIER,
    "sendbird-access-id": _IDENTIFIER,
    "sumologic-access-id": _IDENTIFIER,
    "new-relic-user-api-id": _IDENTIFIER,
    "flutterwave-public-key": _PUBLISHED,
    "lob-pub-api-key": _PUBLISHED,
    "mailgun-pub-key": _PUBLISHED,
    "new-relic-browser-api-token": _PUBLISHED,
}


def gitleaks() -> list[tuple[str, str, str]]:
    """(gitleaks rule id, line holding one credential of that family, the credential).

    A token of a published format stands bare in a log line (its format alone must tell);
    a credential that only its name tells is assigned to the name its vendor documents."""
    rng = random.Random(_RNG_SEED + 2)

    def r(alphabet: str, n: int) -> str:
        return _pick(rng, alphabet, n)

    def uuid(alphabet: str = HEX) -> str:
        return _uuid(rng, alphabet)

    jwt = f"eyJ{r(ALNUM, 30)}.eyJ{r(ALNUM, 60)}.{r(URLSAFE, 43)}"
    u = string.ascii_uppercase
    d = string.digits
    rows: list[tuple[str, str, str]] = [
        ("1password-secret-key", "recovery kit: {}", f"A3-{r(UPPER, 6)}-{r(UPPER, 11)}-{r(UPPER, 5)}-{r(UPPER, 5)}-{r(UPPER, 5)}"),
        ("1password-service-account-token", "op run failed with {}", "ops_eyJ" + r(B64, 300)),
        ("adafruit-api-key", "ADAFRUIT_IO_KEY={}", r(LOWER, 32)),
        ("adobe-client-secret", "client secret is {}", "p8e-" + r(ALNUM, 32)),
        ("age-secret-key", "# {}", "AGE-SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
        ("airtable-api-key", "AIRTABLE_API_KEY={}", "key" + r(ALNUM, 14)),
        ("airtable-personnal-access-token", "uses {}", f"pat{r(ALNUM, 14)}.{r(HEX, 64)}"),
        ("algolia-api-key", "ALGOLIA_ADMIN_API_KEY={}", r(HEX, 32)),
        ("alibaba-access-key-id", "access key {}", "LTAI" + r(ALNUM, 20)),
        ("alibaba-secret-key", "ALIBABA_CLOUD_ACCESS_KEY_SECRET={}", r(ALNUM, 30)),
        ("anthropic-admin-api-key", "admin key {}", "sk-ant-admin01-" + r(URLSAFE, 93) + "AA"),
        ("anthropic-api-key", "key {} was revoked", "sk-ant-api03-" + r(URLSAFE, 93) + "AA"),
        ("artifactory-api-key", "X-JFrog-Art-Api {}", "AKCp" + r(ALNUM, 69)),
        ("artifactory-reference-token", "reference token {}", "cmVmd" + r(ALNUM, 59)),
        ("asana-client-secret", "ASANA_CLIENT_SECRET={}", r(LOWER, 32)),
        ("atlassian-api-token", "JIRA_API_TOKEN={}", r(LOWER, 20) + r(HEX, 4)),
        ("atlassian-api-token", "confluence token {}", "ATATT3" + r(URLSAFE, 177) + "=" + r(HEX, 8).upper()),
        ("authress-service-client-access-key", "key {}", f"sc_{r(LOWER, 12)}.{r(LOWER, 5)}.acc_{r(LOWER, 20)}.{r(B64, 40)}"),
        ("aws-access-token", "key id {}", "AKIA" + r(UPPER, 16)),
        ("aws-amazon-bedrock-api-key-long-lived", "bedrock {}", "ABSK" + r(B64, 120)),
        ("aws-amazon-bedrock-api-key-short-lived", "bedrock {}", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t" + r(B64, 200)),
        ("azure-ad-client-secret", "the app's secret value {} expires", f"{r(ALNUM, 3)}{r(d, 1)}Q~{r(URLSAFE + '.~', 33)}"),
        ("beamer-api-token", "BEAMER_API_KEY={}", "b_" + r(LOWER + "_-", 44)),
        ("bitbucket-client-secret", "BITBUCKET_CLIENT_SECRET={}", r(LOWER, 64)),
        ("bittrex-access-key", "BITTREX_API_KEY={}", r(LOWER, 32)),
        ("bittrex-secret-key", "BITTREX_API_SECRET={}", r(LOWER, 32)),
        ("cisco-meraki-api-key", "MERAKI_DASHBOARD_API_KEY={}", r(HEX, 40)),
        ("clickhouse-cloud-api-secret-key", "secret {}", "4b1d" + r(ALNUM, 38)),
        ("clojars-api-token", "deploy token {}", "CLOJARS_" + r(LOWER, 60)),
        ("cloudflare-api-key", "CLOUDFLARE_API_TOKEN={}", r(URLSAFE, 40)),
        ("cloudflare-global-api-key", "CLOUDFLARE_API_KEY={}", r(HEX, 37)),
        ("cloudflare-origin-ca-key", "origin ca key {}", f"v1.0-{r(HEX, 24)}-{r(HEX, 146)}"),
        ("codecov-access-token", "CODECOV_TOKEN={}", r(LOWER, 32)),
        ("cohere-api-token", "CO_API_KEY={}", r(ALNUM, 40)),
        ("coinbase-access-token", "COINBASE_API_SECRET={}", r(URLSAFE, 64)),
        ("confluent-access-token", "CONFLUENT_CLOUD_API_KEY={}", r(UPPER, 16)),
        ("confluent-secret-key", "CONFLUENT_CLOUD_API_SECRET={}", r(ALNUM, 64)),
        ("contentful-delivery-api-token", "CONTENTFUL_ACCESS_TOKEN={}", r(URLSAFE, 43)),
        ("curl-auth-header", 'curl -H "Authorization: Bearer {}" https://api.internal/me', r(ALNUM, 40)),
        ("curl-auth-user", "curl --user admin:{} https://ci.internal/", r(ALNUM, 16)),
        ("databricks-api-token", "token {}", "dapi" + r(HEX, 32)),
        ("datadog-access-token", "DATADOG_APP_KEY={}", r(HEX, 40)),
        ("defined-networking-api-token", "DN_API_KEY={}", f"dnkey-{r(URLSAFE, 26)}-{r(URLSAFE, 52)}"),
        ("digitalocean-access-token", "token {}", "doo_v1_" + r(HEX, 64)),
        ("digitalocean-pat", "token {}", "dop_v1_" + r(HEX, 64)),
        ("digitalocean-refresh-token", "refresh {}", "dor_v1_" + r(HEX, 64)),
        ("discord-api-token", "DISCORD_API_TOKEN={}", r(HEX, 64)),
        ("discord-client-secret", "DISCORD_CLIENT_SECRET={}", r(URLSAFE, 32)),
        ("doppler-api-token", "DOPPLER_TOKEN {}", "dp.pt." + r(ALNUM, 43)),
        ("droneci-access-token", "DRONE_TOKEN={}", r(ALNUM, 32)),
        ("dropbox-api-token", "DROPBOX_APP_SECRET={}", r(LOWER, 15)),
        ("dropbox-long-lived-api-token", "DROPBOX_ACCESS_TOKEN={}", r(LOWER, 11) + "AAAAAAAAAA" + r(URLSAFE, 43)),
        ("dropbox-short-lived-api-token", "token {}", "sl." + r(URLSAFE, 135)),
        ("duffel-api-token", "token {}", "duffel_test_" + r(URLSAFE, 43)),
        ("dynatrace-api-token", "Api-Token {}", f"dt0c01.{r(UPPER, 24)}.{r(UPPER, 64)}"),
        ("easypost-api-token", "key {}", "EZAK" + r(ALNUM, 54)),
        ("easypost-test-api-token", "key {}", "EZTK" + r(ALNUM, 54)),
        ("etsy-access-token", "ETSY_API_KEY={}", r(LOWER, 24)),
        ("facebook-access-token", "app token {}", f"{r(d, 15)}|{r(URLSAFE, 30)}"),
        ("facebook-page-access-token", "page token {}", "EAAC" + r(ALNUM, 120)),
        ("facebook-secret", "FACEBOOK_APP_SECRET={}", r(HEX, 32)),
        ("fastly-api-token", "FASTLY_API_TOKEN={}", r(URLSAFE, 32)),
        ("finicity-api-token", "FINICITY_APP_KEY={}", r(HEX, 32)),
        ("finicity-client-secret", "FINICITY_PARTNER_SECRET={}", r(ALNUM, 20)),
        ("finnhub-access-token", "FINNHUB_API_KEY={}", r(LOWER, 20)),
        ("flickr-access-token", "FLICKR_API_KEY={}", r(LOWER, 32)),
        ("flutterwave-encryption-key", "encryption key {}", "FLWSECK_TEST-" + r("abcdefgh" + d, 12)),
        ("flutterwave-secret-key", "secret {}", "FLWSECK_TEST-" + r("abcdefgh" + d, 32) + "-X"),
        ("flyio-access-token", "FLY_API_TOKEN: FlyV1 {}", "fm2_" + r(B64, 120)),
        ("flyio-access-token", "token {}", "fo1_" + r(URLSAFE, 43)),
        ("frameio-api-token", "token {}", "fio-u-" + r(URLSAFE, 64)),
        ("freemius-secret-key", "'secret_key' => '{}',", "sk_" + r(ALNUM + "!?#", 29)),
        ("freshbooks-access-token", "FRESHBOOKS_ACCESS_TOKEN={}", r(LOWER, 64)),
        ("gcp-api-key", "?key={}", "AIza" + r(URLSAFE, 35)),
        ("generic-api-key", 'client_secret: "{}"', r(ALNUM, 32)),
        ("generic-api-key", '"apiKey": "{}",', r(ALNUM, 40)),
        ("generic-api-key", "authToken = '{}'", r(URLSAFE, 48)),
        ("generic-api-key", "credentials: {}", r(B64, 48)),
        ("github-app-token", "token {}", "ghs_" + r(ALNUM, 36)),
        ("github-fine-grained-pat", "pat {}", "github_pat_" + r(ALNUM + "_", 82)),
        ("github-oauth", "oauth {}", "gho_" + r(ALNUM, 36)),
        ("github-pat", "pat {}", "ghp_" + r(ALNUM, 36)),
        ("github-refresh-token", "refresh {}", "ghr_" + r(ALNUM, 36)),
        ("gitlab-cicd-job-token", "job token {}", f"glcbt-{r(ALNUM, 2)}_{r(URLSAFE, 20)}"),
        ("gitlab-deploy-token", "deploy token {}", "gldt-" + r(URLSAFE, 20)),
        ("gitlab-feature-flag-client-token", "ff token {}", "glffct-" + r(URLSAFE, 20)),
        ("gitlab-feed-token", "feed token {}", "glft-" + r(URLSAFE, 20)),
        ("gitlab-incoming-mail-token", "mail token {}", "glimt-" + r(URLSAFE, 25)),
        ("gitlab-kubernetes-agent-token", "agent token {}", "glagent-" + r(URLSAFE, 50)),
        ("gitlab-oauth-app-secret", "app secret {}", "gloas-" + r(URLSAFE, 64)),
        ("gitlab-pat", "PRIVATE-TOKEN: {}", "glpat-" + r(URLSAFE, 20)),
        ("gitlab-pat-routable", "token {}", f"glpat-{r(URLSAFE, 36)}.{r(LOWER, 2)}{r(LOWER, 7)}"),
        ("gitlab-ptt", "trigger token {}", "glptt-" + r(HEX, 40)),
        ("gitlab-rrt", "runner registration {}", "GR1348941" + r(URLSAFE, 20)),
        ("gitlab-runner-authentication-token", "runner token {}", "glrt-" + r(URLSAFE, 20)),
        ("gitlab-runner-authentication-token-routable", "runner {}", f"glrt-t1_{r(URLSAFE, 27)}.{r(LOWER, 9)}"),
        ("gitlab-scim-token", "scim token {}", "glsoat-" + r(URLSAFE, 20)),
        ("gitlab-session-cookie", "Cookie: _gitlab_session={}", r(LOWER, 32)),
        ("gitter-access-token", "GITTER_TOKEN={}", r(LOWER + "_-", 40)),
        ("gocardless-api-token", "GOCARDLESS_ACCESS_TOKEN={}", "live_" + r(URLSAFE, 40)),
        ("grafana-api-key", "key {}", "eyJrIjoi" + r(ALNUM, 72)),
        ("grafana-cloud-api-token", "token {}", "glc_" + r(ALNUM, 60)),
        ("grafana-service-account-token", "token {}", f"glsa_{r(ALNUM, 32)}_{r(HEX, 8)}"),
        ("harness-api-key", "x-api-key {}", f"pat.{r(URLSAFE, 22)}.{r(ALNUM, 24)}.{r(ALNUM, 20)}"),
        ("hashicorp-tf-api-token", "token {}", f"{r(ALNUM, 14)}.atlasv1.{r(URLSAFE, 67)}"),
        ("hashicorp-tf-password", 'administrator_login_password = "{}"', r(LOWER, 16)),
        ("heroku-api-key", "HEROKU_API_KEY={}", uuid()),
        ("heroku-api-key-v2", "token {}", "HRKU-AA" + r(URLSAFE, 58)),
        ("hubspot-api-key", "HUBSPOT_API_KEY={}", uuid("0123456789ABCDEF")),
        ("huggingface-access-token", "token {}", "hf_" + r(string.ascii_letters, 34)),
        ("huggingface-organization-api-token", "token {}", "api_org_" + r(string.ascii_letters, 34)),
        ("infracost-api-token", "INFRACOST_API_KEY {}", "ico-" + r(ALNUM, 32)),
        ("intercom-api-key", "INTERCOM_ACCESS_TOKEN={}", r(URLSAFE + "=", 60)),
        ("intra42-client-secret", "secret {}", "s-s4t2ud-" + r(HEX, 64)),
        ("jfrog-api-key", "ARTIFACTORY_API_KEY={}", r(LOWER, 73)),
        ("jfrog-identity-token", "JFROG_ACCESS_TOKEN={}", r(LOWER, 64)),
        ("jwt", "session {}", jwt),
        ("jwt-base64", "cookie {}", base64.b64encode(jwt.encode()).decode()),
        ("kraken-access-token", "KRAKEN_PRIVATE_KEY={}", r(B64, 86) + "=="),
        ("kubernetes-secret-yaml", "kind: Secret\ndata:\n  token: {}\n", base64.b64encode(r(ALNUM, 24).encode()).decode()),
        ("kucoin-access-token", "KUCOIN_API_KEY={}", r(HEX, 24)),
        ("kucoin-secret-key", "KUCOIN_API_SECRET={}", uuid()),
        ("launchdarkly-access-token", "LAUNCHDARKLY_ACCESS_TOKEN={}", "api-" + uuid()),
        ("linear-api-key", "key {}", "lin_api_" + r(ALNUM, 40)),
        ("linear-client-secret", "LINEAR_CLIENT_SECRET={}", r(HEX, 32)),
        ("linkedin-client-secret", "LINKEDIN_CLIENT_SECRET={}", r(LOWER, 16)),
        ("lob-api-key", "LOB_API_KEY={}", "live_" + r(HEX, 35)),
        ("looker-client-secret", "LOOKERSDK_CLIENT_SECRET={}", r(LOWER, 24)),
        ("mailchimp-api-key", "key {}", r(HEX, 32) + "-us21"),
        ("mailgun-private-api-token", "MAILGUN_API_KEY={}", "key-" + r(HEX, 32)),
        ("mailgun-signing-key", "MAILGUN_WEBHOOK_SIGNING_KEY={}", f"{r(HEX, 32)}-{r(HEX, 8)}-{r(HEX, 8)}"),
        ("mapbox-api-token", "MAPBOX_ACCESS_TOKEN={}", f"sk.eyJ1Ijoi{r(ALNUM, 50)}.{r(URLSAFE, 22)}"),
        ("mattermost-access-token", "MATTERMOST_TOKEN={}", r(LOWER, 26)),
        ("maxmind-license-key", "license {}", f"{r(ALNUM, 6)}_{r(ALNUM, 29)}_mmk"),
        ("messagebird-api-token", "MESSAGEBIRD_ACCESS_KEY={}", r(ALNUM, 25)),
        ("microsoft-teams-webhook", "POST https://acme.webhook.office.com/webhookb2/{}", f"{uuid()}@{uuid()}/IncomingWebhook/{r(HEX, 32)}/{uuid()}"),
        ("netlify-access-token", "NETLIFY_AUTH_TOKEN={}", r(URLSAFE, 43)),
        ("new-relic-insert-key", "insert key {}", "NRII-" + r(URLSAFE, 32)),
        ("new-relic-user-api-key", "NEW_RELIC_API_KEY={}", "NRAK-" + r(UPPER, 27)),
        ("notion-api-token", "token {}", f"ntn_{r(d, 11)}{r(ALNUM, 35)}"),
        ("npm-access-token", "token {}", "npm_" + r(ALNUM, 36)),
        ("nuget-config-password", '<add key="Password" value="{}" />', r(ALNUM, 14)),
        ("nytimes-access-token", "NYTIMES_API_KEY={}", r(ALNUM, 32)),
        ("octopus-deploy-api-key", "key {}", "API-" + r(UPPER, 26)),
        ("okta-access-token", "OKTA_API_TOKEN={}", "00" + r(URLSAFE, 40)),
        ("openai-api-key", "key {}", f"sk-proj-{r(URLSAFE, 74)}T3BlbkFJ{r(URLSAFE, 74)}"),
        ("openai-api-key", "key {}", f"sk-{r(ALNUM, 20)}T3BlbkFJ{r(ALNUM, 20)}"),
        ("openshift-user-token", "oc login --token={}", "sha256~" + r(URLSAFE, 43)),
        ("perplexity-api-key", "key {}", "pplx-" + r(ALNUM, 48)),
        ("plaid-api-token", "token {}", "access-sandbox-" + uuid()),
        ("plaid-secret-key", "PLAID_SECRET={}", r(LOWER, 30)),
        ("planetscale-api-token", "token {}", "pscale_tkn_" + r(URLSAFE, 43)),
        ("planetscale-oauth-token", "token {}", "pscale_oauth_" + r(URLSAFE, 43)),
        ("planetscale-password", "password {}", "pscale_pw_" + r(URLSAFE, 43)),
        ("postman-api-token", "key {}", f"PMAK-{r(HEX, 24)}-{r(HEX, 34)}"),
        ("prefect-api-token", "key {}", "pnu_" + r(ALNUM, 36)),
        ("private-key", "{}", "-----BEGIN PRIVATE KEY-----\n" + "\n".join(_lines(rng, _PKCS8_DER, 5)) + "\n-----END PRIVATE KEY-----"),
        ("privateai-api-token", "PRIVATE_AI_API_KEY={}", r(LOWER, 32)),
        ("pulumi-api-token", "token {}", "pul-" + r(HEX, 40)),
        ("pypi-upload-token", "token {}", "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 70)),
        ("rapidapi-access-token", "RAPIDAPI_KEY={}", r(URLSAFE, 50)),
        ("readme-api-token", "key {}", "rdme_" + r("abcdefghijklmnopqrstuvwxyz0123456789", 70)),
        ("rubygems-api-token", "key {}", "rubygems_" + r(HEX, 48)),
        ("scalingo-api-token", "token {}", "tk-us-" + r(URLSAFE, 48)),
        ("sendbird-access-token", "SENDBIRD_API_TOKEN={}", r(HEX, 40)),
        ("sendgrid-api-token", "key {}", f"SG.{r(URLSAFE, 22)}.{r(URLSAFE, 43)}"),
        ("sendinblue-api-token", "key {}", f"xkeysib-{r(HEX, 64)}-{r(ALNUM, 16)}"),
        ("sentry-access-token", "SENTRY_AUTH_TOKEN={}", r(HEX, 64)),
        ("sentry-org-token", "token {}", f"sntrys_eyJpYXQiO{r(ALNUM, 40)}LCJyZWdpb25fdXJs{r(ALNUM, 40)}_{r(ALNUM, 43)}"),
        ("sentry-user-token", "token {}", "sntryu_" + r(HEX, 64)),
        ("settlemint-application-access-token", "token {}", "sm_aat_" + r(ALNUM, 16)),
        ("settlemint-personal-access-token", "token {}", "sm_pat_" + r(ALNUM, 16)),
        ("settlemint-service-access-token", "token {}", "sm_sat_" + r(ALNUM, 16)),
        ("shippo-api-token", "token {}", "shippo_live_" + r(HEX, 40)),
        ("shopify-access-token", "token {}", "shpat_" + r(HEX, 32)),
        ("shopify-custom-access-token", "token {}", "shpca_" + r(HEX, 32)),
        ("shopify-private-app-access-token", "token {}", "shppa_" + r(HEX, 32)),
        ("shopify-shared-secret", "secret {}", "shpss_" + r(HEX, 32)),
        ("sidekiq-secret", f"BUNDLE_ENTERPRISE__CONTRIBSYS__COM={r(HEX, 8)}:{{}}", r(HEX, 8)),
        ("sidekiq-sensitive-url", f"source 'https://{r(HEX, 8)}:{{}}@enterprise.contribsys.com/'", r(HEX, 8)),
        ("slack-app-token", "token {}", f"xapp-1-A{r(u + d, 10)}-{r(d, 13)}-{r(HEX, 64)}"),
        ("slack-bot-token", "token {}", f"xoxb-{r(d, 12)}-{r(d, 13)}-{r(ALNUM, 24)}"),
        ("slack-config-access-token", "token {}", f"xoxe.xoxp-1-{r(UPPER, 164)}"),
        ("slack-config-refresh-token", "token {}", f"xoxe-1-{r(UPPER, 146)}"),
        ("slack-legacy-bot-token", "token {}", f"xoxb-{r(d, 11)}-{r(ALNUM, 24)}"),
        ("slack-legacy-token", "token {}", f"xoxs-{r(d, 10)}-{r(d, 10)}-{r(d, 12)}-{r(HEX, 64)}"),
        ("slack-legacy-workspace-token", "token {}", f"xoxa-2-{r(ALNUM, 40)}"),
        ("slack-user-token", "token {}", f"xoxp-{r(d, 12)}-{r(d, 12)}-{r(d, 12)}-{r(HEX, 32)}"),
        ("slack-webhook-url", "POST https://hooks.slack.com/triggers/{}", f"T{r(UPPER, 8)}/{r(d, 13)}/{r(HEX, 32)}"),
        ("snyk-api-token", "SNYK_TOKEN={}", uuid()),
        ("sonar-api-token", "SONAR_TOKEN={}", "squ_" + r(HEX, 40)),
        ("sourcegraph-access-token", "token {}", f"sgp_{r(HEX, 16)}_{r(HEX, 40)}"),
        ("square-access-token", "token {}", "EAAA" + r(URLSAFE, 60)),
        ("squarespace-access-token", "SQUARESPACE_API_KEY={}", uuid()),
        ("stripe-access-token", "key {}", "sk_live_" + r(ALNUM, 24)),
        ("sumologic-access-token", "SUMO_ACCESS_KEY={}", r(ALNUM, 64)),
        ("telegram-bot-api-token", "TELEGRAM_BOT_TOKEN={}", f"{r(d, 10)}:AA{r(URLSAFE, 33)}"),
        ("travisci-access-token", "TRAVIS_API_TOKEN={}", r(LOWER, 22)),
        ("twilio-api-key", "key {}", "SK" + r(HEX, 32)),
        ("twitch-api-token", "TWITCH_CLIENT_SECRET={}", r(LOWER, 30)),
        ("twitter-access-secret", "TWITTER_ACCESS_TOKEN_SECRET={}", r(ALNUM, 45)),
        ("twitter-access-token", "TWITTER_ACCESS_TOKEN={}", f"{r(d, 19)}-{r(ALNUM, 30)}"),
        ("twitter-api-key", "TWITTER_API_KEY={}", r(ALNUM, 25)),
        ("twitter-api-secret", "TWITTER_API_SECRET={}", r(ALNUM, 50)),
        ("twitter-bearer-token", "bearer {}", "A" * 22 + r(ALNUM + "%", 90)),
        ("typeform-api-token", "token {}", "tfp_" + r(URLSAFE + ".", 59)),
        ("vault-batch-token", "token {}", "hvb." + r(URLSAFE, 150)),
        ("vault-service-token", "token {}", "hvs." + r(URLSAFE, 95)),
        ("yandex-access-token", "token {}", f"t1.{r(URLSAFE, 20)}.{r(URLSAFE, 86)}"),
        ("yandex-api-key", "key {}", "AQVN" + r(URLSAFE, 36)),
        ("yandex-aws-access-token", "YANDEX_SECRET_ACCESS_KEY={}", "YC" + r(URLSAFE, 38)),
        ("zendesk-secret-key", "ZENDESK_API_TOKEN={}", r(ALNUM, 40)),
        # formats vendors document that gitleaks has no rule for yet
        ("docker-pat", "token {}", "dckr_pat_" + r(URLSAFE, 27)),
        ("groq-api-key", "key {}", "gsk_" + r(ALNUM, 52)),
        ("supabase-pat", "token {}", "sbp_" + r(HEX, 40)),
        ("langsmith-api-key", "key {}", f"lsv2_pt_{r(HEX, 32)}_{r(HEX, 10)}"),
        ("hubspot-private-app-token", "token {}", "pat-na1-" + uuid()),
    ]  # fmt: skip
    return [(rule, template.replace("{}", value, 1), value) for rule, template, value in rows]


def _third_round_lookalikes(rng: random.Random) -> list[str]:
    """What SW011 flagged in the third round, and its kin: public keys and certificates,
    references to where a secret is kept in each syntax, names that hold a secret's word but
    no secret, hashes and identifiers beside credentials' names."""
    cert = "\n".join(_lines(rng, _CERT_DER, 5))
    public = "\n".join(_lines(rng, _PUBLIC_DER, 5))
    b64 = _pick(rng, B64, 68)
    vault = "\n".join("          " + _pick(rng, HEX, 80) for _ in range(4))
    return [
        f"-----BEGIN CERTIFICATE-----\n{cert}\n-----END CERTIFICATE-----",
        f"-----BEGIN PUBLIC KEY-----\n{public}\n-----END PUBLIC KEY-----",
        f"ca.pem:\n{cert}",
        f'{{"kty": "RSA", "x5c": ["{cert.replace(chr(10), "")}"]}}',
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
        "A file that starts with -----BEGIN OPENSSH PRIVATE KEY----- is a private key.",
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_pick(rng, B64, 43)} ops@bastion",
        f'public_key: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{_pick(rng, B64, 300)} ci"',
        f'"publicKey": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{b64}"',
        f"publishableKey: 'pk_live_{_pick(rng, ALNUM, 24)}'",
        f"age recipient age1{_pick(rng, HEX[:10] + 'acdefghjklmnpqrstuvwxyz', 58)}",
        # compose, Spring, TypeScript, Ansible, CSS: what failed CI in the third round
        "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?must be set}",
        "password: ${DB_PASSWORD:?DB_PASSWORD must be set}",
        "spring.datasource.password=${DB_PASSWORD:}",
        "spring.datasource.password=${DB_PASSWORD}",
        "  accessToken: process.env.ACCESS_TOKEN!,",
        "const token = process.env.GITHUB_TOKEN!;",
        "const apiKey = import.meta.env.VITE_API_KEY ?? '';",
        f"db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n{vault}",
        '<div class="sk-chasing-dots"><div class="sk-chasing-dots-child sk-chasing-dots-dot1">',
        ".sk-fading-circle .sk-circle-twelve-child { transform: rotate(330deg); }",
        "sk-folding-cube-animation-delay-second sk-cube-grid-layout-three",
        # a reference to where the secret is kept, in each syntax
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password: ${{ secrets.REGISTRY_PASSWORD }}",
        "password = var.db_password",
        'token = data.vault_generic_secret.ci.data["token"]',
        "password: {{ .Values.db.password | quote }}",
        'api_key = os.getenv("API_KEY")',
        'String password = System.getenv("DB_PASSWORD");',
        'secret_key_base = ENV.fetch("SECRET_KEY_BASE")',
        "secret_key_base: <%= Rails.application.credentials.secret_key_base %>",
        "api_password: !secret http_password",
        "MasterUserPassword: !Ref DBPassword",
        "api_key: !ENV ${API_KEY}",
        "password: *default_password",
        'token: "@/run/secrets/token"',
        "PASSWORD=/run/secrets/db_password",
        "password_file: /run/secrets/db_password",
        "ssh_key: ~/.ssh/id_ed25519",
        "private_key_path: ./keys/deploy.pem",
        "$env:API_TOKEN = $env:CI_TOKEN",
        'password = "%DB_PASSWORD%"',
        "SECRET_KEY = get_random_secret_key()",
        "jwt.secret=${JWT_SECRET:}",
        '@Value("${jwt.secret}") private String secret;',
        "export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
        'curl -u "$CI_USER:$CI_TOKEN" https://ci.internal/',
        "docker run -u 1000:1000 app",
        "curl -u admin: https://ci.internal/  # curl asks for the password",
        "Authorization: token $GITHUB_TOKEN",
        'headers["Authorization"] = f"Bearer {token}"',
        'password: \'{{ lookup("env", "DB_PASSWORD") }}\'',
        "client_secret: '********'",
        'password: ""',
        "token: ~",
        # names that hold a secret's word, values that are none
        'password_hash = "$2b$12$' + _pick(rng, B64.replace("+", "."), 53) + '"',
        "PASSWORD_MIN_LENGTH=12",
        "max_tokens: 4096",
        "tokenizer: cl100k_base",
        f"keyId: {_pick(rng, HEX, 32)}",
        f'key_id = "{_pick(rng, HEX, 40)}"',
        f"csrf_token: {_pick(rng, ALNUM, 64)}",
        f"next_page_token: {_pick(rng, ALNUM, 48)}",
        f"?pageToken={_pick(rng, ALNUM, 40)}&maxResults=50",
        f"idempotency_key: {_uuid(rng)}",
        f"cache_key: deps-{_pick(rng, HEX, 40)}",
        "key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}",
        "cache-key: node-modules-v2-linux",
        "hotkey: ctrl+shift+p",
        "primary_key: user_id",
        "secret_name: prod/db/password",
        "secretName: db-credentials",
        "token_endpoint: https://oauth2.googleapis.com/token",
        '"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",',
        "token_type: Bearer",
        "TOKEN_TTL=3600",
        "passkey: true",
        "secretKeyRef: {name: db, key: password}",
        "Rotate the API key: go to Settings, API Keys, then Regenerate.",
        "Token: expired at 2026-11-30T12:00:00Z",
        "The password: at least 12 characters, one digit.",
        "if (password === confirmation) { submit(); }",
        "user.password = bcrypt.hash(password)",
        "self.token = token",
        ":key: :lock: :closed_lock_with_key:",
        "| token | string | The API token sent in the Authorization header |",
        # hashes, digests and identifiers
        f'"integrity": "sha512-{_pick(rng, B64, 86)}=="',
        f"image: nginx@sha256:{_pick(rng, HEX, 64)}",
        f"requests==2.32.3 --hash=sha256:{_pick(rng, HEX, 64)}",
        f"golang.org/x/text v0.14.0 h1:{_pick(rng, B64, 43)}=",
        f"SENTRY_DSN=https://{_pick(rng, HEX, 32)}@o123456.ingest.sentry.io/1234567",
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
        f"DISCORD_CLIENT_ID={_pick(rng, string.digits, 18)}",
        f"GOOGLE_CLIENT_ID={_pick(rng, string.digits, 12)}-{_pick(rng, LOWER, 32)}.apps.googleusercontent.com",
        f"NEXT_PUBLIC_SUPABASE_URL=https://{_pick(rng, LOWER[:26], 20)}.supabase.co",
        "ssh://git@github.com/acme/app.git",
        "git@github.com:acme/app.git",
        "postgres://app@localhost/app",
        "http://localhost:8080/health",
        "https://github.com/acme/app/settings/hooks/123456789",
        "https://example.org/webhooks/stripe",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xoxb-your-bot-token-here",
        "sk_live_your_secret_key_here",
        "AKIAXXXXXXXXXXXXXXXX",
        "Merge pull request #123 from acme/fix-token-refresh",
        "task-runner-configuration-for-everything: enabled",
        "https://api.example.org/search?q=token&page=2&sort=desc",
        'WWW-Authenticate: Basic realm="staging"',
    ]
