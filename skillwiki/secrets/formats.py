"""Secrets by their format: the token formats services publish, each found wherever it
stands, and the private key blocks (PEM, PGP, PuTTY) whose header or body is one."""

from __future__ import annotations

import re

# Token formats, after gitleaks' published rules (config/gitleaks.toml, rule ids in comments)
# and the formats vendors document: (kind, the lower-cased literal parts that any match holds,
# the token's pattern). Written as linear Python patterns with bounded quantifiers; each is
# run only on text holding one of its parts. The token is judged random enough (not words,
# more than one kind of character) before it counts.
TOKENS: tuple[tuple[str, tuple[str, ...], str], ...] = (
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

# A PEM body without its header (a key pasted alone): DER's SEQUENCE, base64 `MII`/`MIG`.
PEM_BODY_PARTS = ("mii", "mig")
PEM_BODY = (
    r"\b(MI[IG][A-Za-z0-9+/]{61}(?:\s{1,4}[A-Za-z0-9+/]{64}){1,}(?:\s{1,4}[A-Za-z0-9+/=]{1,64})?)"
)
KEY_HEADER = r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
KEY_FOOTER = re.compile(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# What follows a private key's header: its own headers (Proc-Type, DEK-Info, PGP's Version),
# then lines of base64, separated by line breaks (or `\n` written out, in JSON), or spaces
# where a key was pasted on one line; it ends after a short line (or with PGP's =checksum).
_SEP = r"(?:\\r)?\\n|\r?\n|[ \t]"
KEY_BODY = re.compile(
    rf"(?:{_SEP})*+(?:[A-Za-z][\w-]{{0,40}}:[^\n\\]{{0,200}}(?:{_SEP}){{1,3}})*+"
    rf"(?:[A-Za-z0-9+/]{{40,20000}}+={{0,2}}(?:{_SEP}){{1,3}})*+[A-Za-z0-9+/]{{0,20000}}+={{0,2}}"
    rf"(?:(?:{_SEP}){{1,3}}=[A-Za-z0-9+/]{{4}})?"
)
