"""Find and redact credentials: lessons never store one, and lint finds any that slip in.

Two kinds of evidence make a secret. A token whose format a service publishes (a prefix such
as `ghp_` or `ATATT3`, a webhook URL, a private key block) is one wherever it stands. Any other
value is one by its place: assigned to a name that holds a password, key, token or secret in
any syntax (env, ini, YAML, JSON, JS, shell flags, XML, URL query, `.netrc`), or the password
of a URL, DSN or `curl -u`. A value in such a place is then judged: a reference to where the
secret lives (`${VAR}`, `process.env.X!`, `!vault`), a path, a public key or words are not
secrets; a key's or token's value must also look random.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from dataclasses import dataclass

# Token formats, after gitleaks' published rules (config/gitleaks.toml, rule ids in comments)
# and the formats vendors document: (kind, the lower-cased literal parts that any match holds,
# the token's pattern). Written as linear Python patterns with bounded quantifiers; each is
# run only on text holding one of its parts. The token is judged random enough (not words,
# more than one kind of character) before it counts.
_TOKENS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("aws_access_key", ("akia", "asia", "abia", "acca", "a3t"),
     r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b"),
    ("aws_access_key", ("qutjq", "qvnjq"), r"\b((?:QUtJQ|QVNJQ)[A-Za-z0-9+/]{22,200}={0,2})"),
    ("aws_bedrock_key", ("absk",), r"\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})"),
    ("aws_bedrock_key", ("bedrock-api-key-",),
     r"(bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]{0,4000})"),
    ("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab_token", ("glpat-", "glcbt-", "gldt-", "glffct-", "glft-", "glimt-", "glagent-",
                      "gloas-", "glptt-", "glrt-", "glsoat-"),
     r"\b(gl(?:pat|cbt|dt|ffct|ft|imt|agent|oas|ptt|rt|soat)-[A-Za-z0-9_.-]{20,300})"),
    ("gitlab_token", ("gr1348941",), r"\b(GR1348941[\w-]{20,50})"),
    ("gitlab_token", ("_gitlab_session=",), r"_gitlab_session=([0-9a-z]{32})\b"),
    ("slack_token", ("xox",), r"\b(xox[abposre](?:\.xox[bp])?-[A-Za-z0-9-]{10,300})"),
    ("slack_token", ("xapp-",), r"\b(xapp-\d-[A-Z0-9]{6,20}-\d{6,20}-[a-z0-9]{32,80})"),
    ("stripe_key", ("_live_", "_test_", "_prod_"),
     r"\b((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99})"),
    ("stripe_webhook_secret", ("whsec_",), r"\b(whsec_[A-Za-z0-9+/=]{32,100})"),
    ("anthropic_key", ("sk-ant-",), r"\b(sk-ant-[A-Za-z0-9_-]{20,300})"),
    # openai-api-key, and the many services that copied its `sk-` (OpenRouter, DeepSeek): the
    # part after the prefix must be random, which a CSS class (`sk-chasing-dots`) is not
    ("openai_key", ("sk-",),
     r"\b(sk-(?:(?:proj|svcacct|admin|or-v1)-)?[A-Za-z0-9][A-Za-z0-9_-]{19,300})"),
    ("google_api_key", ("aiza",), r"\b(AIza[0-9A-Za-z_-]{35})"),
    ("google_oauth_token", ("ya29.",), r"\b(ya29\.[0-9A-Za-z_-]{20,})"),
    ("npm_token", ("npm_",), r"\b(npm_[A-Za-z0-9]{36})\b"),
    ("pypi_token", ("pypi-ageichlwas5vcmc",), r"\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000})"),
    ("huggingface_token", ("hf_", "api_org_"), r"\b((?:hf_|api_org_)[A-Za-z]{34})\b"),
    ("digitalocean_token", ("_v1_",), r"\b(do[opr]_v1_[a-f0-9]{64})\b"),
    ("twilio_key", ("sk",), r"\b(SK[0-9a-fA-F]{32})\b"),
    ("sendgrid_key", ("sg.",), r"\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"),
    ("sendinblue_key", ("xkeysib-", "xsmtpsib-"),
     r"\b(x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16})"),
    ("databricks_token", ("dapi",), r"\b(dapi[a-f0-9]{32}(?:-\d)?)\b"),
    ("mailgun_key", ("key-",), r"\b(key-[0-9a-zA-Z]{32})\b"),
    ("mailchimp_key", ("-us",), r"\b([a-f0-9]{32}-us\d{1,2})\b"),
    ("shopify_token", ("shpat_", "shpca_", "shppa_", "shpss_"),
     r"\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b"),
    ("atlassian_token", ("atatt3", "atctt3", "atbb"),
     r"\b(AT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,250}|ATBB[A-Za-z0-9_=.-]{28,40})"),
    ("onepassword_key", ("a3-",),
     r"\b(A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})\b"),
    ("onepassword_token", ("ops_",), r"\b(ops_eyJ[A-Za-z0-9+/]{250,5000}={0,3})"),
    ("adobe_secret", ("p8e-",), r"\b(p8e-[A-Za-z0-9]{32})\b"),
    ("age_secret_key", ("age-secret-key-1",),
     r"\b(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})"),
    ("airtable_token", ("pat",), r"\b(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})\b"),
    ("alibaba_key", ("ltai",), r"\b(LTAI[A-Za-z0-9]{20})\b"),
    ("artifactory_key", ("akcp", "cmvmd"), r"\b(AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b"),
    ("authress_key", ("sc_", "ext_", "scauth_", "authress_"),
     r"\b((?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120})"),
    ("azure_ad_secret", ("q~",),
     r"(?<![\w~.-])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?![\w~.-])"),
    ("clickhouse_key", ("4b1d",), r"\b(4b1d[A-Za-z0-9]{38})\b"),
    ("clojars_token", ("clojars_",), r"\b(CLOJARS_[a-zA-Z0-9]{60})\b"),
    ("cloudflare_key", ("v1.0-",), r"\b(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})\b"),
    ("defined_networking_key", ("dnkey-",), r"\b(dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52})"),
    ("doppler_token", ("dp.",), r"\b(dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44})\b"),
    ("dropbox_token", ("sl.",), r"\b(sl\.[A-Za-z0-9_=-]{130,1400})"),
    ("duffel_token", ("duffel_",), r"\b(duffel_(?:test|live)_[A-Za-z0-9_=-]{43})"),
    ("dynatrace_token", ("dt0c01.",), r"\b(dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})"),
    ("easypost_token", ("ezak", "eztk"), r"\b(EZ[AT]K[A-Za-z0-9]{54})\b"),
    ("facebook_token", ("eaam", "eaac"), r"\b(EAA[MC][A-Za-z0-9]{100,500})\b"),
    ("facebook_token", ("|", "%7c"), r"(?<![\w|%])(\d{15,16}(?:\||%7[Cc])[0-9A-Za-z_-]{27,40})\b"),
    ("flutterwave_key", ("flwseck",), r"\b(FLWSECK(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?)"),
    ("flyio_token", ("fo1_", "fm1", "fm2_"),
     r"\b(fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,3000}={0,3}|fm2_[A-Za-z0-9+/]{100,3000}={0,3})"),
    ("frameio_token", ("fio-u-",), r"\b(fio-u-[A-Za-z0-9_=-]{64})"),
    ("grafana_token", ("eyjrijoi",), r"\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})"),
    ("grafana_token", ("glc_", "glsa_"),
     r"\b(glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"),
    ("harness_key", ("pat.", "sat."),
     r"\b((?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})"),
    ("terraform_token", ("atlasv1",), r"\b([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})"),
    ("heroku_key", ("hrku-",), r"\b(HRKU-AA[0-9a-zA-Z_-]{58})"),
    ("infracost_token", ("ico-",), r"\b(ico-[A-Za-z0-9]{32})\b"),
    ("intra42_secret", ("s-s4t2",), r"\b(s-s4t2(?:ud|af)-[a-f0-9]{64})\b"),
    ("linear_key", ("lin_api_",), r"\b(lin_api_[A-Za-z0-9]{40})\b"),
    ("maxmind_key", ("_mmk",), r"\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)\b"),
    ("newrelic_key", ("nrak-", "nrii-"), r"\b(NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9-]{32})\b"),
    ("newrelic_key", ("nral",), r"\b([a-f0-9]{36}NRAL)\b"),
    ("notion_token", ("ntn_", "secret_"),
     r"\b(ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b"),
    ("octopus_key", ("api-",), r"\b(API-[A-Z0-9]{26})\b"),
    ("openshift_token", ("sha256~",), r"(sha256~[\w-]{43})(?![\w-])"),
    ("perplexity_key", ("pplx-",), r"\b(pplx-[A-Za-z0-9]{48})"),
    ("plaid_token", ("access-",),
     r"\b(access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"),
    ("planetscale_token", ("pscale_",), r"\b(pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64})"),
    ("postman_key", ("pmak-",), r"\b(PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34})\b"),
    ("prefect_token", ("pnu_",), r"\b(pnu_[A-Za-z0-9]{36})\b"),
    ("pulumi_token", ("pul-",), r"\b(pul-[a-f0-9]{40})\b"),
    ("readme_key", ("rdme_",), r"\b(rdme_[a-z0-9]{70})\b"),
    ("rubygems_key", ("rubygems_",), r"\b(rubygems_[a-f0-9]{48})\b"),
    ("scalingo_token", ("tk-us-",), r"\b(tk-us-[\w-]{48})"),
    ("sentry_token", ("sntrys_", "sntryu_"),
     r"\b(sntrys_eyJ[A-Za-z0-9+/=_]{50,1000}|sntryu_[a-f0-9]{64})"),
    ("settlemint_token", ("sm_aat_", "sm_pat_", "sm_sat_"),
     r"\b(sm_(?:aat|pat|sat)_[A-Za-z0-9]{16})\b"),
    ("shippo_token", ("shippo_",), r"\b(shippo_(?:live|test)_[a-fA-F0-9]{40})\b"),
    ("sonar_token", ("squ_", "sqp_", "sqa_"), r"\b(sq[upa]_[a-f0-9]{40})\b"),
    ("sourcegraph_token", ("sgp_",),
     r"\b(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40})\b"),
    ("square_token", ("sq0atp-", "sq0csp-", "eaaa"),
     r"\b((?:EAAA|sq0atp-)[\w-]{22,60}|sq0csp-[\w-]{43})"),
    ("twitter_bearer_token", ("aaaaaaaaaaaaaaaaaaaaaa",), r"\b(A{22}[A-Za-z0-9%]{80,100})"),
    ("typeform_token", ("tfp_",), r"\b(tfp_[A-Za-z0-9_.=-]{59})"),
    ("vault_token", ("hvs.", "hvb."), r"\b(hvs\.[\w-]{90,120}|hvb\.[\w-]{138,300})"),
    ("yandex_token", ("t1.",), r"\b(t1\.[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]{86}={0,2})"),
    ("yandex_key", ("aqvn",), r"\b(AQVN[A-Za-z0-9_-]{35,38})\b"),
    # formats vendors document that gitleaks has no rule for yet
    ("docker_token", ("dckr_pat_", "dckr_oat_"), r"\b(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,})"),
    ("ai_api_key", ("gsk_", "xai-", "nvapi-", "tvly-", "r8_", "pcsk_", "lsv2_"),
     r"\b(gsk_[A-Za-z0-9]{48,}|xai-[A-Za-z0-9]{60,}|nvapi-[A-Za-z0-9_-]{60,}|tvly-[A-Za-z0-9-]{32,}"
     r"|r8_[A-Za-z0-9]{37}|pcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{50,}|lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})"),
    ("supabase_token", ("sbp_",), r"\b(sbp_[a-f0-9]{40})\b"),
    ("posthog_key", ("phx_",), r"\b(phx_[A-Za-z0-9]{43})\b"),
    ("hubspot_token", ("pat-na1-", "pat-eu1-"),
     r"\b(pat-(?:na|eu)1-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"),
    ("figma_token", ("figd_",), r"\b(figd_[A-Za-z0-9_-]{40})"),
    ("telegram_bot_token", (":",), r"(?<!\d)(\d{8,10}:[A-Za-z0-9_-]{35})(?![\w-])"),
    ("discord_bot_token", (".",),
     r"\b([MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})\b"),
    ("jwt", ("eyj",), r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),
    ("jwt", ("zxlk",), r"\b(ZXlK[A-Za-z0-9+/]{40,4000}={0,2})"),  # jwt-base64
)  # fmt: skip

# (kind, parts, pattern, group): places whose value is a secret. `group` is the secret's
# group (-1: whichever group matched last). Kinds ending in `=` name their secret by the name
# the value is assigned to (group `name`): `password` or `credential`, or none at all.
_PLACES: tuple[tuple[str, tuple[str, ...], str, int], ...] = (
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
# A word run together with `key` that makes a credential's name (`APIKEY`, `secretkey`):
# without one, `monkey` and `hotkey` would be names of secrets.
_KEY_PREFIXES = (
    "api", "access", "secret", "private", "master", "account", "sharedaccess", "shared",
    "signing", "auth", "app", "license", "client", "encryption", "service", "admin", "bot",
    "deploy", "subscription", "consumer", "webhook", "server", "sdk", "merchant",
)  # fmt: skip
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")  # snake, camel, CAPS


def _name_kind(name: str) -> str | None:
    """`password` or `credential` when the name holds one (`PGPASSWORD`, `secretAccessKey`,
    `x-api-key`, `spring.datasource.password`), else None (`password_hash`, `key_id`)."""
    parts = [part.lower() for part in _NAME_PART.findall(name)]
    while parts and (parts[-1].isdigit() or parts[-1] in _QUALIFIERS):
        parts.pop()
    if not parts:
        return None
    last, before = parts[-1], parts[-2] if len(parts) > 1 else ""
    if len(name) - name.lower().rfind(last) - len(last) > 16:  # as far as the hint looks
        return None
    if last in _PASSWORD_WORDS or last.endswith(("password", "passwd", "passphrase")):
        return "password"
    if before in _NOT_CREDENTIAL_BEFORE:
        return None
    if last in _CREDENTIAL_WORDS or last.endswith(("token", "secret")):
        return "credential"
    if last.endswith("key") and last[:-3] in _KEY_PREFIXES:
        return "credential"
    return None


# Values that stand for a secret rather than being one: ${VAR}, %(x)s, <key>, ^PASS^, ***.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[\w\\]*\}?|%\(?\w+\)?s?|<[^>]*>?|\^\w+\^?|[*.x]+)$"
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
# A name in code: `process.env.ACCESS_TOKEN!`, `settings.API_KEY`, `var.db_password`, `self.key`
# A URL without a user or password in it (those are found as url_password).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/@\s]*(?:[/?#]|$)")
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
_CLASSES = (str.islower, str.isupper, str.isdigit)
_JOINERS = frozenset("_-")  # what joins the words of a name: no randomness of their own
# names in code that hold a secret's word (`hashed_password`, `apiKey`): code, not a value
_SECRET_WORDS = frozenset({"password", "passwd", "token", "secret", "key", "keys", "tokens"})
_VOWELS = frozenset("aeiouy")
_CONSONANTS = re.compile(r"[^aeiouy]{5}")


def _looks_made_up(value: str) -> bool:
    """Tell a placeholder (`password`, `FUZZ`, `{{password}}`) from something typed in; a
    name in code is judged without the closing brackets of the call it is passed in
    (`f(password=password)`)."""
    value = value.rstrip(")]}") or value
    if _PLACEHOLDER.search(value):
        return True
    if value.isdigit():
        return len(value) < 16  # a short number is a setting; a long one, a numeric key
    if _one_word(value) or _names_a_secret(value):
        return True  # a word or a name in code (`Struct`, `hashed_password`), not a secret
    classes = {check for check in _CLASSES if any(check(char) for char in value)}
    symbols = any(not char.isalnum() and char not in _JOINERS for char in value)
    # one kind of character only: a word, or words joined (`DEIN_API_SCHLÜSSEL`), not a secret
    return len(classes) + symbols < 2


def _one_word(value: str) -> bool:
    """Letters only, as a word is written (`hunter`, `Struct`, `CamelCase`), not at random
    (`FAgZtODOVmKT`)."""
    return value.isalpha() and _wordy(value)


def _names_a_secret(value: str) -> bool:
    """A name in code with a secret's word as one of its parts: `hashed_password`,
    `settings.API_KEY`, `apiKey` (and not a random token that happens to hold `key`)."""
    if not value.replace(".", "_").isidentifier() or not _wordy(value):
        return False
    return any(part.lower() in _SECRET_WORDS for part in _NAME_PART.findall(value))


def _wordy(value: str) -> bool:
    """Words and numbers, as a person writes (`node-modules-v2-linux`, `sk-chasing-dots`), not
    random characters: nearly every letter stands in a part of three or more that has a
    vowel, and digits are few. A random token's parts are short and often have no vowel."""
    parts = _NAME_PART.findall(value)
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


def _random_token(value: str) -> bool:
    """Random enough to be a key: more than one kind of character, and not words."""
    return not _looks_made_up(value) and not _wordy(value)


def _literal(value: str) -> str | None:
    """The literal part of a value, or None where it only refers to a secret kept elsewhere
    (an interpolation, a variable, a name in code, a YAML tag, a path, a public key)."""
    value = value.strip()
    if len(value) > 2 and value[0] == value[-1] and value[0] in "`'\"":  # quoted in prose
        value = value[1:-1]
    if _URL.match(value):  # where the secret is served or made, not the secret
        return None
    interpolation = _INTERPOLATION.match(value)
    if interpolation and interpolation.end() == len(value):  # what follows `}` is judged too
        op, default = interpolation["op"] or "", interpolation["default"] or ""
        if "?" in op or "+" in op or not default:
            return None
        value = default
    if _REFERENCE.match(value) or _PUBLIC_KEY.match(value):
        return None
    code = value.rstrip(")]};,")
    if _CODE_PATH.match(code) and all(
        _wordy(part) or part.replace("_", "").isalpha() and len(part) < 16
        for part in re.split(r"\?\.|\.|::|->", code.rstrip("!?"))
    ):
        return None
    if _a_path(value):
        return None
    return value


def _a_path(value: str) -> bool:
    """A file's path (`~/.ssh/id_ed25519`, `/run/secrets/db`, `deploy.pem`): where the
    secret is kept. A path from the root is told from base64 that starts with `/` by its
    names."""
    if _PATH.match(value):
        return not value.startswith("/") or any(map(_wordy, value.split("/")))
    if value.endswith("/") and _wordy(value.rstrip("/")):  # a folder (`public/`)
        return True
    return _FILE.search(value) is not None and _wordy(value)


def _basic_credentials(value: str) -> bool:
    """base64 of `user:password` (docker's `auth`, npm's `_auth`), however short."""
    if not 8 <= len(value) <= 400 or len(value) % 4:
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
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


_PEM_BODY = (
    "private_key",
    ("mii", "mig"),
    r"\b(MI[IG][A-Za-z0-9+/]{61}(?:\s{1,4}[A-Za-z0-9+/]{64}){1,}(?:\s{1,4}[A-Za-z0-9+/=]{1,64})?)",
    1,
)
_KEY_HEADER = r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_KEY_FOOTER = re.compile(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# What follows a private key's header: its own headers (Proc-Type, DEK-Info, PGP's Version),
# then lines of base64, separated by line breaks (or `\n` written out, in JSON), or spaces
# where a key was pasted on one line; it ends after a short line (or with PGP's =checksum).
_SEP = r"(?:\\r)?\\n|\r?\n|[ \t]"
_KEY_BODY = re.compile(
    rf"(?:{_SEP})*+(?:[A-Za-z][\w-]{{0,40}}:[^\n\\]{{0,200}}(?:{_SEP}){{1,3}})*+"
    rf"(?:[A-Za-z0-9+/]{{40,20000}}+={{0,2}}(?:{_SEP}){{1,3}})*+[A-Za-z0-9+/]{{0,20000}}+={{0,2}}"
    rf"(?:(?:{_SEP}){{1,3}}=[A-Za-z0-9+/]{{4}})?"
)

_PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("private_key", re.compile(_KEY_HEADER), 0),
    (_PEM_BODY[0], re.compile(_PEM_BODY[2]), _PEM_BODY[3]),
    *((kind, re.compile(pattern), 1) for kind, _, pattern in _TOKENS),
    *((kind, re.compile(pattern), group) for kind, _, pattern, group in _PLACES),
)
# Each pattern runs only on text holding one of its literal parts (checked lower-cased): most
# text holds none, and a substring test costs far less than a regular expression scan.
_TRIGGERS: dict[str, tuple[str, ...]] = {"private_key": ("private key", "private-lines:")}
for _kind, _parts in (
    *((kind, parts) for kind, parts, _ in _TOKENS),
    *((kind, parts) for kind, parts, _, _ in _PLACES),
    (_PEM_BODY[0], _PEM_BODY[1]),
):
    _TRIGGERS[_kind] = tuple(dict.fromkeys(_TRIGGERS.get(_kind, ()) + _parts))
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
# Kinds whose value a person typed (a placeholder or a word is not a secret), and kinds whose
# shape alone is too plain (a random token mixes upper case, lower case and digits).
_TYPED = frozenset({"password", "url_password", "bearer_token", "basic_auth"})
KEY_CHARS = 15  # the shortest value of a key or token taken for one (Dropbox's secrets)
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

# A value judged no secret is searched again for an assignment of its own when it is no
# longer than this: a bound, so that `a=a=a=...` costs a multiple of its length, not its square.
_RESCAN = 100
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/]{16}")


def _holds_assignment(text: str, start: int, end: int) -> bool:
    return end - start <= _RESCAN and "=" in text[start:end] and text[start] != "$"


_TOKEN_KINDS = frozenset(kind for kind, _, _ in _TOKENS) - {kind for kind, *_ in _PLACES}
_LONG_RUN = re.compile(r"[a-z0-9+/=_.~|%-]{15}")
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
    keys = _KeyBlocks(text) if "private_key" in present else None
    for kind, pattern, group in _PATTERNS:
        if kind not in present:
            continue
        at = 0
        while (match := pattern.search(text, at)) is not None:
            which = match.lastindex or 0 if group < 0 else group
            start, end = match.span(which)
            at = match.end()
            if keys is not None and kind == "private_key" and group == 0:
                end = keys.end_of(start, end)  # a header without a body is none (docs)
                named: str | None = kind if _KEY_MATERIAL.search(text, at, end) else None
            else:
                named = _judged(kind, match, match.group(which))
                if named is None and kind.startswith("=") and _holds_assignment(text, start, end):
                    at = start  # `command: PGPASSWORD=x`: the value may hold one itself
            if named is not None and _take(taken, start, end):
                found.append(Secret(named, start, end))
    return sorted(found, key=lambda secret: secret.start)


class _KeyBlocks:
    """Where a private key that starts at a header ends: at its footer when one follows
    before the next header, else (the footer cut off) at the end of its body."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.footers = [(m.start(), m.end()) for m in _KEY_FOOTER.finditer(text)]
        self.headers = [m.start() for m in re.finditer("-----BEGIN", text)]

    def end_of(self, start: int, end: int) -> int:
        body = _KEY_BODY.match(self.text, end)
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
        kind for part, kind in _PARTS if (tokens or kind not in _TOKEN_KINDS) and part in lowered
    }
    present |= {kind for kind, hint in _HINTS.items() if hint.search(lowered)}
    return present


def _judged(kind: str, match: re.Match[str], value: str) -> str | None:
    """The kind of secret the match holds, or None when it holds none: a vendor's documented
    sample, a placeholder, a reference, or text not random enough to be a key."""
    if "EXAMPLE" in value or value in _PUBLIC_SAMPLES:  # vendors' documentation
        return None
    if kind.startswith("="):
        name = match["name"] or match.groupdict().get("tag") or ""
        named = _name_kind(name)
        return named if named is not None and _plausible(named, value) else None
    if kind == "private_key":
        return kind if not value.startswith("MI") or _private_der(value) else None
    if kind == "jwt" and value.startswith("ZXlK"):
        return kind if _base64_jwt(value) else None
    if kind in _WEBHOOKS:
        parts = re.split(r"[/@]", value)
        return kind if any(len(p) >= KEY_CHARS and _random_token(p) for p in parts) else None
    if kind in _TYPED:
        return kind if _plausible("password", value) else None
    if kind in _RANDOM:
        return kind if all(any(check(c) for c in value) for check in _CLASSES) else None
    if kind in _WEAK:  # a plain shape: only a random body makes it a token
        body = _OPENAI_PREFIX.sub("", value) if kind == "openai_key" else value
        return kind if _random_token(body) else None
    # a documented format: only a placeholder (`ghp_xxxx…`, `sk_live_your_key`) is none
    return kind if not _PLACEHOLDER.search(value) and len(set(value)) >= 8 else None


def _plausible(kind: str, value: str) -> bool:
    """A value in a secret's place that may be a real one: `password` counts from 6
    characters (a person chooses it), a key or token (`credential`) from KEY_CHARS, and only
    when random: one shorter is a docs example (`API_KEY=abc123`)."""
    literal = _literal(value)
    if literal is None or "EXAMPLE" in literal:
        return False
    if kind == "credential":
        if _basic_credentials(literal):
            return True
        return len(literal) >= KEY_CHARS and _random_token(literal.rstrip(")]}"))
    return len(literal) >= 6 and not _looks_made_up(literal)


def _base64_jwt(value: str) -> bool:
    """base64 of a JWT (jwt-base64)."""
    value = value[: len(value) - len(value) % 4]
    try:
        decoded = base64.b64decode(value).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return False
    return _JWT.match(decoded) is not None


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
