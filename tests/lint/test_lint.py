from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import Invoke, put_in_every_state, write


def _touch_index(demo: Path) -> None:
    """Make index.md out of date while it still links every article."""
    index = demo / ".wiki" / "index.md"
    index.write_text(index.read_text() + "\nA hand-written line.\n")


def _lint(invoke: Invoke, root: Path, *args: str) -> tuple[int, list[dict]]:
    result = invoke("lint", "-w", str(root), "--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)["findings"]


def _rules(findings: list[dict]) -> list[tuple[str, str, str]]:
    return [(f["rule"], f["severity"], f["path"]) for f in findings]


def test_demo_is_lint_clean(demo: Path, invoke: Invoke) -> None:
    assert _lint(invoke, demo) == (0, [])


def test_sw001_broken_links_and_anchors(demo: Path, invoke: Invoke) -> None:
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(
        raw.read_text()
        + "\nSee [gone](gone.md), [bad anchor](agents.md#nope), [ok](agents.md#adding-a-tool-to-an-agent),"
        " [[Retry policy]], [[Nowhere]], [[Retry policy#Budget]], [[Retry policy#Nope]].\n"
        "\n`[code](gone.md)`\n"
    )
    invoke("compile", "-w", str(demo))
    code, findings = _lint(invoke, demo)
    assert code == 1
    messages = [f["message"] for f in findings if f["rule"] == "SW001"]
    assert messages == [
        "broken link to gone.md: gone.md does not exist; fix the link in the raw file",
        "broken anchor in agents.md#nope: wiki/docs/agents.md has no heading for #nope",
        "broken wikilink [[Nowhere]]: no article has that title or path",
        "broken wikilink [[Retry policy#Nope]]: wiki/docs/retry-policy.md has no heading 'Nope'",
    ]
    lines = (demo / ".wiki" / "wiki" / "docs" / "ci.md").read_text().splitlines()
    expected_line = next(n for n, text in enumerate(lines, start=1) if "(gone.md)" in text)
    assert findings[0]["line"] == expected_line


def test_freshness_rules(demo: Path, invoke: Invoke) -> None:
    put_in_every_state(demo)
    code, findings = _lint(invoke, demo)
    assert code == 1
    rules = _rules(findings)
    assert ("SW002", "error", ".wiki/wiki/docs/ci.md") in rules
    assert ("SW003", "error", ".wiki/raw/docs/new.md") in rules
    assert ("SW004", "error", ".wiki/wiki/docs/deployment.md") in rules
    assert ("SW005", "warning", ".wiki/wiki/docs/agents.md") in rules
    assert not any(rule == "SW010" for rule, _, _ in rules)  # the index matches the articles


def test_sw006_frontmatter(ws: Path, invoke: Invoke) -> None:
    write(ws / ".wiki" / "raw" / "bad.md", "---\ntitle: [\n---\nx\n")
    write(ws / ".wiki" / "raw" / "typed.md", "---\ntags: {a: 1}\n---\nx\n")
    # one string of tags, as compile and search read it: `deploy, ci` is two tags
    write(ws / ".wiki" / "raw" / "listed.md", "---\ntags: deploy, ci\n---\nx\n")
    write(ws / ".wiki" / "wiki" / "plain.md", "# No frontmatter\n")
    _, findings = _lint(invoke, ws)
    sw006 = [(f["path"], f["line"], f["message"]) for f in findings if f["rule"] == "SW006"]
    assert sw006[1:] == [
        (".wiki/raw/typed.md", 2, "frontmatter key 'tags' must be a list of strings"),
        (
            ".wiki/wiki/plain.md",
            1,
            "frontmatter missing: the file must start with a '---' YAML block",
        ),
    ]
    assert sw006[0][0] == ".wiki/raw/bad.md" and "unparsable YAML frontmatter" in sw006[0][2]


def test_sw007_lesson_sections_template_and_enums(ws: Path, invoke: Invoke) -> None:
    invoke("record-lesson", "-w", str(ws), "--title", "Template", "--summary", "S.")
    write(
        ws / ".wiki" / "raw" / "lessons" / "hand.md",
        "---\ntype: lesson\nid: hand\ntitle: Hand\nsummary: S.\ntrigger: whim\nseverity: URGENT\n"
        "scope: global\nstatus: active\n---\n## What Happened\n\nX\n",
    )
    _, findings = _lint(invoke, ws)
    sw007 = [
        (f["severity"], f["path"].rsplit("/", 1)[1], f["message"])
        for f in findings
        if f["rule"] == "SW007"
    ]
    assert (
        "error",
        "hand.md",
        "unknown trigger 'whim'; use one of replan, consecutive_tool_failures, "
        "repeated_tool_failures, retries, cost_overrun, low_confidence, rejected, manual",
    ) in sw007
    assert (
        "error",
        "hand.md",
        "unknown severity 'URGENT'; use one of LOW, MEDIUM, HIGH, CRITICAL",
    ) in sw007
    assert (
        "error",
        "hand.md",
        "lesson section '## Root Cause' is missing; lessons have What Happened, "
        "Root Cause, Optimization, Next Time",
    ) in sw007
    warnings = [m for s, name, m in sw007 if s == "warning"]
    assert warnings == [
        "lesson section '## Root Cause' still holds the template text; fill it in",
        "lesson section '## Optimization' still holds the template text; fill it in",
        "lesson section '## Next Time' still holds the template text; fill it in",
    ]


def test_sw008_duplicate_ids_and_titles(ws: Path, invoke: Invoke) -> None:
    lesson = (
        "---\ntype: lesson\nid: same\ntitle: {title}\nsummary: S.\ntrigger: manual\nseverity: LOW\n"
        "scope: global\nstatus: active\n---\n## What Happened\n\nX\n\n## Root Cause\n\nY\n\n"
        "## Optimization\n\nZ\n\n## Next Time\n\n- W\n"
    )
    write(ws / ".wiki" / "raw" / "lessons" / "a.md", lesson.format(title="One"))
    write(ws / ".wiki" / "raw" / "lessons" / "b.md", lesson.format(title="Two"))
    write(ws / ".wiki" / "raw" / "x.md", "# Two\n")
    invoke("compile", "-w", str(ws))
    code, findings = _lint(invoke, ws)
    assert code == 1
    assert [(f["path"], f["message"]) for f in findings if f["rule"] == "SW008"] == [
        (
            ".wiki/raw/lessons/b.md",
            "duplicate lesson id 'same', also used by .wiki/raw/lessons/a.md; make it unique",
        ),
        (
            ".wiki/wiki/x.md",
            "duplicate article title 'Two', also used by .wiki/wiki/lessons/b.md; make it unique",
        ),
    ]


def test_sw008_copies_of_a_tree_are_one_page(ws: Path, invoke: Invoke) -> None:
    """The folders `[lint] copies` names hold copies of one tree, a language or a version
    each: a title its copies share is no duplicate, and a title two pages share is reported
    once, at the first copy."""
    pages = {
        "pages/common/tar.md": "# tar\n\n> Archiving utility.\n",
        "pages.de/common/tar.md": "# tar\n\n> Archivierungsprogramm.\n",
        "pages.fr/common/tar.md": "# tar\n\n> Utilitaire d'archivage.\n",
        "docs/v23.1/install.md": "# Install\n\nDownload it.\n",
        "docs/v23.2/install.md": "# Install\n\nDownload it again.\n",
        "docs/v23.1/setup.md": "# Install\n\nSet it up.\n",
        "docs/v23.2/setup.md": "# Install\n\nSet it up again.\n",
    }
    for rel, text in pages.items():
        write(ws / ".wiki" / "raw" / rel, text)
    invoke("compile", "-w", str(ws))
    _, findings = _lint(invoke, ws)
    # without the setting, each page but the first to hold its title
    assert len([f for f in findings if f["rule"] == "SW008"]) == 5
    (ws / ".wiki" / "config.toml").write_text('[lint]\ncopies = ["pages*", "v[0-9]*"]\n')
    _, findings = _lint(invoke, ws)
    assert [(f["path"], f["message"]) for f in findings if f["rule"] == "SW008"] == [
        (
            ".wiki/wiki/docs/v23.1/setup.md",
            "duplicate article title 'Install', also used by .wiki/wiki/docs/v23.1/install.md; "
            "make it unique",
        )
    ]


@pytest.mark.parametrize("pattern", ["docs/v*", "", ".."])
def test_copies_are_folder_names(demo: Path, invoke: Invoke, pattern: str) -> None:
    (demo / ".wiki" / "config.toml").write_text(f"[lint]\ncopies = [{pattern!r}]\n")
    result = invoke("lint", "-w", str(demo))
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: .wiki/config.toml: lint.copies: must be folder names (globs such as "
        f"'v[0-9]*'), not paths: {pattern!r}\n"
    )


def test_sw010_index_out_of_date(demo: Path, invoke: Invoke) -> None:
    _touch_index(demo)
    code, findings = _lint(invoke, demo)
    assert code == 1
    assert _rules(findings) == [("SW010", "error", ".wiki/index.md")]


def test_rules_can_be_switched_off_or_regraded(demo: Path, invoke: Invoke) -> None:
    _touch_index(demo)
    (demo / ".wiki" / "config.toml").write_text('[lint.rules]\nSW010 = "warning"\n')
    code, findings = _lint(invoke, demo)
    assert code == 0 and _rules(findings) == [("SW010", "warning", ".wiki/index.md")]
    assert invoke("lint", "-w", str(demo), "--strict").exit_code == 1
    (demo / ".wiki" / "config.toml").write_text('[lint.rules]\nSW010 = "off"\n')
    assert _lint(invoke, demo) == (0, [])


def test_lint_text_output_groups_by_file(demo: Path, invoke: Invoke) -> None:
    _touch_index(demo)
    result = invoke("lint", "-w", str(demo))
    assert result.exit_code == 1
    assert result.stdout == (
        ".wiki/index.md\n"
        "  1:1 error SW010 index.md is out of date; run 'skillwiki compile'\n"
        "1 error(s), 0 warning(s)\n"
    )


@pytest.mark.parametrize("setting", ["SW099 = 'off'", "SW001 = 'loud'"])
def test_bad_rule_config_is_exit_2(demo: Path, invoke: Invoke, setting: str) -> None:
    (demo / ".wiki" / "config.toml").write_text(f"[lint.rules]\n{setting}\n")
    result = invoke("lint", "-w", str(demo))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and "lint.rules.SW0" in result.stderr
