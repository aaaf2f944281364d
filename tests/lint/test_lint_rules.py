"""SW009, SW011, SW012, SW013 and more of SW001: each with a case found and a near miss."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.support import DATA, Invoke, write

LESSON = """---
type: lesson
id: {id}
title: {title}
summary: S.
trigger: manual
severity: LOW
scope: global
status: {status}
category: {category}
tags: [{tags}]
---
## What Happened

X

## Root Cause

Y

## Optimization

Z

## Next Time

- W
"""


def _findings(invoke: Invoke, root: Path, rule: str) -> list[dict]:
    result = invoke("lint", "-w", str(root), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return [f for f in json.loads(result.stdout)["findings"] if f["rule"] == rule]


def _lesson(root: Path, name: str, category: str, tags: str, status: str = "active") -> None:
    text = LESSON.format(id=name, title=name.title(), category=category, tags=tags, status=status)
    write(root / ".wiki" / "raw" / "lessons" / f"{name}.md", text)


def test_sw009_near_duplicate_lessons(ws: Path, invoke: Invoke) -> None:
    _lesson(ws, "a-first", "net", "retry, backoff, timeout")
    _lesson(ws, "b-second", "net", "retry, backoff, timeout, jitter")  # 3/4 = 0.75
    _lesson(ws, "c-other-category", "disk", "retry, backoff, timeout")
    _lesson(ws, "d-far", "net", "dns, tls")
    _lesson(ws, "e-retired", "net", "retry, backoff, timeout", status="archived")
    invoke("compile", "-w", str(ws))
    found = _findings(invoke, ws, "SW009")
    assert [(f["path"], f["severity"], f["message"]) for f in found] == [
        (
            ".wiki/raw/lessons/b-second.md",
            "warning",
            "near-duplicate of .wiki/raw/lessons/a-first.md (category 'net', tag similarity "
            "0.75); merge the two lessons",
        )
    ]
    (ws / ".wiki" / "config.toml").write_text("[lint]\nnear_duplicate_jaccard = 0.8\n")
    assert _findings(invoke, ws, "SW009") == []


def test_sw011_secrets_are_located_never_shown(ws: Path, invoke: Invoke) -> None:
    token = "ghp_" + "Z9y8X7w6V5" * 4
    write(ws / "notes.md", f"# Notes\n\nThe deploy used\n  {token} by mistake.\n")
    write(
        ws / "hashes.md",
        "# Hashes\n\nsha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
        "uuid 123e4567-e89b-12d3-a456-426614174000, password: ${DB_PASSWORD}\n",
    )
    invoke("ingest", "-w", str(ws), str(ws / "notes.md"), str(ws / "hashes.md"))
    result = invoke("lint", "-w", str(ws), "--format", "json")
    assert token not in result.stdout
    found = [
        (f["path"], f["line"], f["column"], f["message"])
        for f in json.loads(result.stdout)["findings"]
        if f["rule"] == "SW011"
    ]
    message = "possible secret (github_token); remove it from the raw file, recompile, and rotate the credential"
    assert found == [(".wiki/raw/notes.md", 7, 3, message)]  # its copies are not reported
    for path, line, column, _ in found:  # every location points at the token itself
        text = (ws / path).read_text().splitlines()[line - 1]
        assert text[column - 1 :].startswith(token)
    assert result.exit_code == 1


def test_sw011_a_secret_and_its_copies_are_one_finding(ws: Path, invoke: Invoke) -> None:
    """A secret in the first paragraph is copied into the article twice (summary, body),
    then into index.md and index.json: reported once, in the raw file. One written into an
    article by hand is reported there."""
    write(ws / "deploy.md", "# Deploy\n\nConnect with DB_PASSWORD=Xk9#mQ2v_Lp7z and go.\n")
    invoke("ingest", "-w", str(ws), str(ws / "deploy.md"))
    assert "DB\\_PASSWORD=Xk9#mQ2v\\_Lp7z" in (ws / ".wiki" / "index.md").read_text()
    found = [(f["path"], f["line"]) for f in _findings(invoke, ws, "SW011")]
    assert found == [(".wiki/raw/deploy.md", 6)]
    article = ws / ".wiki" / "wiki" / "deploy.md"
    article.write_text(article.read_text() + "\nOr with password = 'Qz3$uV8w#Rt5'.\n")
    last = article.read_text().count("\n")
    found = [(f["path"], f["line"]) for f in _findings(invoke, ws, "SW011")]
    assert found == [(".wiki/raw/deploy.md", 6), (".wiki/wiki/deploy.md", last)]


def test_sw011_copies_of_a_page_hold_a_secret_once(ws: Path, invoke: Invoke) -> None:
    """With `[lint] copies`, the versions of a page are one page, as for SW008: a secret they
    hold alike is one finding at the first copy, naming the others; a secret one version
    alone holds, or one written twice in a page, is its own finding."""
    deploy = "# Deploy\n\nConnect with DB_PASSWORD=Xk9#mQ2v_Lp7z and go.\n"
    write(ws / "docs" / "v23.1" / "deploy.md", deploy)
    write(ws / "docs" / "v23.2" / "deploy.md", deploy + "\nOr with password = 'Qz3$uV8w#Rt5'.\n")
    write(ws / "docs" / "v24.1" / "deploy.md", "# Deploy\n\nText.\n\n" + deploy[10:] * 2)
    invoke("ingest", "-w", str(ws), str(ws / "docs"))
    found = [(f["path"], f["line"]) for f in _findings(invoke, ws, "SW011")]
    assert len(found) == 5  # one per copy, without the setting
    (ws / ".wiki" / "config.toml").write_text('[lint]\ncopies = ["v[0-9]*"]\n')
    shown = [(f["path"], f["line"], f["message"]) for f in _findings(invoke, ws, "SW011")]
    said = "possible secret (password); remove it from the raw file, recompile, and rotate the credential"
    assert shown == [
        (
            ".wiki/raw/docs/v23.1/deploy.md",
            6,
            f"{said}; also in its copies .wiki/raw/docs/v23.2/deploy.md:6, "
            ".wiki/raw/docs/v24.1/deploy.md:8",
        ),
        (".wiki/raw/docs/v23.2/deploy.md", 8, said),
        (".wiki/raw/docs/v24.1/deploy.md", 9, said),
    ]


def test_sw011_reads_a_key_written_in_any_script(ws: Path, invoke: Invoke) -> None:
    """A value in a key's place that is not ASCII is no base64 of `user:password` (a
    translated page's example, `auth: "ключключ"`): lint goes on, and finds no secret."""
    write(ws / "ru.md", '# Настройка\n\n```yaml\nauth: "ключключ"\ntoken: ÄbcdÄbcdÄbcd\n```\n')
    invoke("ingest", "-w", str(ws), str(ws / "ru.md"))
    assert _findings(invoke, ws, "SW011") == []


def test_sw011_leaves_placeholders_type_names_and_prompts_alone(ws: Path, invoke: Invoke) -> None:
    """Documentation says what to type (`{password}`), declares a setting's type
    (`DB_PASSWORD: string;`) or asks for the value (`Read-Host`): none is a secret."""
    write(
        ws / "docs.md",
        "# Connect\n\n"
        "```shell\ncockroach sql --url 'postgresql://{username}:{password}@{host}:26257/db'\n"
        "mysql -u root -p{password}\n```\n\n"
        "Set `Password={password};` in the connection string.\n\n"
        "```ts\ninterface Env {\n  DB_PASSWORD: string;\n  login(password: string): void;\n}\n```\n\n"
        "```powershell\n$password = Read-Host -Prompt 'Password' -AsSecureString\n"
        "$secure = ConvertTo-SecureString $plain -AsPlainText -Force\n```\n",
    )
    invoke("ingest", "-w", str(ws), str(ws / "docs.md"))
    assert _findings(invoke, ws, "SW011") == []


def test_sw012_unreachable_article(demo: Path, invoke: Invoke) -> None:
    index = demo / ".wiki" / "index.md"
    lines = index.read_text().splitlines(keepends=True)
    index.write_text(
        "".join(
            line
            for line in lines
            if "wiki/docs/ci.md" not in line and "wiki/docs/oncall" not in line
        )
    )
    found = _findings(invoke, demo, "SW012")
    # ci.md is linked from no other article; oncall.txt.md is linked from deployment.md.
    assert [(f["path"], f["severity"]) for f in found] == [(".wiki/wiki/docs/ci.md", "warning")]


def test_sw013_lesson_paths_changed_or_gone(demo: Path, invoke: Invoke) -> None:
    assert _findings(invoke, demo, "SW013") == []
    config = demo / "agents" / "channel-op.json"
    config.write_text(config.read_text().replace("0.2", "0.5"))
    found = _findings(invoke, demo, "SW013")
    lesson = ".wiki/raw/lessons/2026-11-30-channel-op-allowedtools-must-include-telegram-send.md"
    assert [(f["path"], f["message"]) for f in found] == [
        (
            lesson,
            "agents/channel-op.json changed since this lesson was recorded; check that it still holds",
        )
    ]
    config.unlink()
    assert [f["message"] for f in _findings(invoke, demo, "SW013")] == [
        "agents/channel-op.json, which this lesson is about, no longer exists; review the lesson"
    ]


def test_sw001_images_references_and_code(ws: Path, invoke: Invoke) -> None:
    write(ws / "img" / "ok.png", b"\x89PNG")
    write(
        ws / "doc.md",
        "# Doc\n\n![ok](img/ok.png) ![gone](img/gone.png) [used][ref]\n\n[ref]: missing.md\n\n"
        "`[not](checked.md)`\n\n```\n[also](not-checked.md)\n```\n\n## Real Heading\n\n[top](#real-heading)\n",
    )
    invoke("ingest", "-w", str(ws), str(ws / "doc.md"))
    found = [f["message"] for f in _findings(invoke, ws, "SW001")]
    assert found == [
        "broken link to img/gone.png: img/gone.png does not exist; fix the link in the raw file",
        "broken link to missing.md: missing.md does not exist; fix the link in the raw file",
    ]


def test_each_rule_declares_itself_once() -> None:
    """A rule is its module: the module's RULE names its id (the module name's start), and
    the list of rules, the SARIF rule table and the ids a config may name all come from it."""
    import importlib

    from skillwiki.config import rule_ids, rule_modules
    from skillwiki.lint.model import Rule
    from skillwiki.lint.rules import RULES

    modules = rule_modules()
    assert [rule.id for rule in RULES] == rule_ids() == [f"SW{n:03d}" for n in range(1, 15)]
    for name, rule in zip(modules, RULES, strict=True):
        declared = importlib.import_module(f"skillwiki.lint.rules.{name}").RULE
        assert declared is rule and isinstance(rule, Rule)
        assert name.startswith(rule.id.lower() + "_")
        assert rule.name and rule.description and rule.help
    assert len({rule.name for rule in RULES}) == len(RULES)


LINT_FIXTURES = DATA / "lint"


def test_lint_fixtures_give_the_expected_findings(ws: Path, invoke: Invoke) -> None:
    """tests/data/lint/raw holds files written to trip each content rule once, beside near
    misses that must stay silent; expected.json is every finding lint gives on them, read and
    checked by hand. SKILLWIKI_REGEN=1 writes it anew (then read the diff)."""
    shutil.copytree(LINT_FIXTURES / "raw", ws / ".wiki" / "raw", dirs_exist_ok=True)
    invoke("compile", "-w", str(ws))  # two of the files cannot be compiled: exit 1
    result = invoke("lint", "-w", str(ws), "--format", "json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.stdout)["findings"]
    expected_file = LINT_FIXTURES / "expected.json"
    if os.environ.get("SKILLWIKI_REGEN"):
        expected_file.write_text(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    assert found == json.loads(expected_file.read_text(encoding="utf-8"))
    rules = {finding["rule"] for finding in found}
    assert rules == {"SW001", "SW003", "SW006", "SW007", "SW008", "SW009", "SW013"}
