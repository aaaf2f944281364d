from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillwiki.memory.lessons import TEMPLATE_TEXT
from tests.support import TODAY, Invoke, snapshot, write


def _record(invoke: Invoke, root: Path, *args: str, input: str | None = None) -> dict:
    result = invoke("record-lesson", "-w", str(root), *args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_record_lesson_writes_all_sections_and_compiles(ws: Path, invoke: Invoke) -> None:
    report = _record(
        invoke,
        ws,
        "--title",
        "Retry storms on 429",
        "--summary",
        "The agent retried a 429 at once.",
        "--severity",
        "HIGH",
        "--agent",
        "fetcher",
        "--tag",
        "retry",
        "--category",
        "network",
        "--trigger",
        "retries",
        "--prevention-rule",
        "Back off on 429 using Retry-After.",
    )
    lesson_id = f"{TODAY}-retry-storms-on-429"
    assert report == {
        "id": lesson_id,
        "path": f".wiki/raw/lessons/{lesson_id}.md",
        "status": "candidate",  # two sections still hold the template: not recalled yet
        "created": True,
        "similar": [],
        "redacted": [],
        "unfinished": ["Root Cause", "Optimization"],
        "rules_in_review": [],
    }
    raw = (ws / report["path"]).read_text()
    assert raw == (
        "---\ntype: lesson\n"
        f"id: {lesson_id}\n"
        "title: Retry storms on 429\nsummary: The agent retried a 429 at once.\n"
        "trigger: retries\nseverity: HIGH\nscope: targeted\nagents:\n  - fetcher\n"
        "tags:\n  - retry\ncategory: network\n"
        "prevention_rule: Back off on 429 using Retry-After.\n"
        f"status: candidate\ncreated: {TODAY}\n---\n"
        "## What Happened\n\nThe agent retried a 429 at once.\n\nTrigger: retries.\n\n"
        f"## Root Cause\n\n{TEMPLATE_TEXT['Root Cause']}\n\n"
        f"## Optimization\n\n{TEMPLATE_TEXT['Optimization']}\n\n"
        "## Next Time\n\n- Back off on 429 using Retry-After.\n"
    )
    article = ws / ".wiki" / "wiki" / "lessons" / f"{lesson_id}.md"
    assert "severity: HIGH" in article.read_text()
    index = json.loads((ws / ".wiki" / "index.json").read_text())
    assert index["articles"][0]["id"] == lesson_id


def test_same_lesson_twice_creates_one_file(ws: Path, invoke: Invoke) -> None:
    args = ("--title", "Same", "--summary", "Same summary.")
    first = _record(invoke, ws, *args)
    second_run = invoke("record-lesson", "-w", str(ws), *args)
    assert second_run.exit_code == 0
    assert f"already recorded as {first['id']}; nothing new written" in second_run.stdout
    second = _record(invoke, ws, *args)
    assert second["created"] is False and second["id"] == first["id"]
    assert len(list((ws / ".wiki" / "raw" / "lessons").iterdir())) == 1


def test_same_title_other_body_gets_a_new_id_and_is_named_similar(ws: Path, invoke: Invoke) -> None:
    first = _record(invoke, ws, "--title", "Same", "--summary", "One.")
    second = _record(invoke, ws, "--title", "Same", "--summary", "Two.")
    assert second["id"] == first["id"] + "-2"
    assert second["similar"] == [first["id"]]


def test_multiline_summary_and_body_from_stdin(ws: Path, invoke: Invoke) -> None:
    body = "## What Happened\n\nA\n\n## Root Cause\n\nB\n\n## Optimization\n\nC\n\n## Next Time\n\n- D\n"
    report = _record(
        invoke, ws, "--title", "T", "--summary", "line one\nline two", "--body", "-", input=body
    )
    raw = (ws / report["path"]).read_text()
    assert "summary: line one line two\n" in raw
    assert raw.endswith("---\n" + body)


def test_secrets_are_redacted_with_notice(ws: Path, invoke: Invoke) -> None:
    token = "ghp_" + "a1B2c3D4e5" * 4
    result = invoke(
        "record-lesson",
        "-w",
        str(ws),
        "--title",
        "Leaked token",
        "--summary",
        f"The run printed {token} and password=hunter2hunter2",
    )
    assert result.exit_code == 0
    assert result.stderr.startswith(
        "Warning: redacted secrets from the lesson: github_token, password\n"
    )
    raw = next((ws / ".wiki" / "raw" / "lessons").iterdir()).read_text()
    assert token not in raw and "hunter2hunter2" not in raw
    assert "[REDACTED:github_token]" in raw and "password=[REDACTED:password]" in raw


def test_path_is_fingerprinted(ws: Path, invoke: Invoke) -> None:
    write(ws / "agents" / "a.json", "{}\n")
    report = _record(
        invoke, ws, "--title", "T", "--summary", "S.", "--path", str(ws / "agents" / "a.json")
    )
    raw = (ws / report["path"]).read_text()
    assert "paths:\n  - agents/a.json=xxh3:" in raw


def test_require_review_makes_candidates(ws: Path, invoke: Invoke) -> None:
    (ws / ".wiki" / "config.toml").write_text("[lessons]\nrequire_review = true\n")
    assert _record(invoke, ws, "--title", "T", "--summary", "S.")["status"] == "candidate"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--severity", "URGENT"),
            "Error: --severity 'URGENT' is not one of LOW, MEDIUM, HIGH, CRITICAL\n",
        ),
        (("--scope", "local"), "Error: --scope 'local' is not one of global, targeted\n"),
        (
            ("--trigger", "oops"),
            "Error: --trigger 'oops' is not one of replan, consecutive_tool_failures, "
            "repeated_tool_failures, retries, cost_overrun, low_confidence, rejected, manual\n",
        ),
        (("--scope", "targeted"), "Error: --scope targeted needs at least one --agent\n"),
        (
            ("--path", "missing.json"),
            "Error: missing.json: --path names no file; give a file the lesson is about\n",
        ),
    ],
)
def test_bad_values_are_exit_2_and_write_nothing(
    ws: Path, invoke: Invoke, args: tuple[str, ...], message: str
) -> None:
    before = snapshot(ws)
    result = invoke("record-lesson", "-w", str(ws), "--title", "T", "--summary", "S.", *args)
    assert result.exit_code == 2
    assert result.stderr == message
    assert snapshot(ws) == before


def test_a_lesson_whose_frontmatter_broke_is_never_written_over(ws: Path, invoke: Invoke) -> None:
    args = ["--title", "Pin the image", "--summary", "Builds drifted."]
    first = invoke("record-lesson", "-w", str(ws), *args, "--json")
    path = ws / json.loads(first.stdout)["path"]
    broken = "---\ntitle: [unclosed\n---\nMy hand-written notes.\n"
    path.write_text(broken, encoding="utf-8")
    second = invoke("record-lesson", "-w", str(ws), *args, "--json")
    assert second.exit_code == 0, second.output
    assert path.read_text(encoding="utf-8") == broken
    assert json.loads(second.stdout)["path"].endswith("-pin-the-image-2.md")


def _flags(**options: str) -> list[str]:
    """record-lesson's options from keywords: root_cause="X" is --root-cause X."""
    return [
        part for name, value in options.items() for part in ("--" + name.replace("_", "-"), value)
    ]


def _body(raw: str) -> str:
    return raw.split("\n---\n", 1)[1]


def test_section_flags_fill_the_card_and_make_it_active(ws: Path, invoke: Invoke) -> None:
    options = _flags(
        title="Retry storms on 429",
        summary="The agent retried a 429 at once.",
        trigger="retries",
        what_happened="Forty retries in one second.",
        root_cause="The client ignored Retry-After.",
        optimization="The client now sleeps for Retry-After.",
        next_time="- Read Retry-After before retrying.",
        prevention_rule="Back off on 429 using Retry-After.",
    )
    report = _record(invoke, ws, *options)
    assert report["status"] == "active" and report["unfinished"] == []
    assert _body((ws / report["path"]).read_text()) == (
        "## What Happened\n\nForty retries in one second.\n\nTrigger: retries.\n\n"
        "## Root Cause\n\nThe client ignored Retry-After.\n\n"
        "## Optimization\n\nThe client now sleeps for Retry-After.\n\n"
        "## Next Time\n\n- Read Retry-After before retrying.\n"
    )


def test_a_section_flag_left_out_keeps_its_placeholder(ws: Path, invoke: Invoke) -> None:
    options = _flags(title="T", summary="S.", root_cause="The cause.", prevention_rule="Check.")
    report = _record(invoke, ws, *options)
    assert report["status"] == "candidate" and report["unfinished"] == ["Optimization"]
    body = _body((ws / report["path"]).read_text())
    assert "## Root Cause\n\nThe cause.\n\n" in body
    assert f"## Optimization\n\n{TEMPLATE_TEXT['Optimization']}\n\n" in body
    assert body.endswith("## Next Time\n\n- Check.\n")  # from the prevention rule


def test_a_body_with_section_headings_fills_those_sections(ws: Path, invoke: Invoke) -> None:
    """The body's own headings, in any case and either heading syntax, fill their sections:
    nothing is nested under What Happened, no placeholder follows them. A `## Root Cause`
    line in a code fence is code, and a level-3 heading stays in its section."""
    body = (
        "The deploy served stale pages.\n\n"
        "## root cause\n\n"
        "The cache was never cleared:\n\n"
        "```md\n## Root Cause\nin a fence: text, not a section\n```\n\n"
        "### Details\n\nA level-3 heading stays inside.\n\n"
        "Optimization\n------------\n\n"
        "The deploy now clears the cache.\n"
    )
    options = _flags(
        title="Stale pages after deploy",
        summary="Pages were stale.",
        body=body,
        prevention_rule="Clear the cache on every deploy.",
    )
    report = _record(invoke, ws, *options)
    assert report["status"] == "active" and report["unfinished"] == []
    assert _body((ws / report["path"]).read_text()) == (
        "## What Happened\n\nThe deploy served stale pages.\n\nTrigger: manual.\n\n"
        "## Root Cause\n\nThe cache was never cleared:\n\n"
        "```md\n## Root Cause\nin a fence: text, not a section\n```\n\n"
        "### Details\n\nA level-3 heading stays inside.\n\n"
        "## Optimization\n\nThe deploy now clears the cache.\n\n"
        "## Next Time\n\n- Clear the cache on every deploy.\n"
    )
    assert invoke("lint", "-w", str(ws)).exit_code == 0


def test_a_body_and_a_flag_may_fill_different_sections(ws: Path, invoke: Invoke) -> None:
    body = "## Root Cause\n\nThe cause.\n\n## What Happened\n\nIt broke.\n"
    options = _flags(
        title="T", summary="S.", body=body, optimization="Fixed it.", next_time="- Check it."
    )
    report = _record(invoke, ws, *options)
    assert _body((ws / report["path"]).read_text()) == (
        "## What Happened\n\nIt broke.\n\n"
        "## Root Cause\n\nThe cause.\n\n"
        "## Optimization\n\nFixed it.\n\n"
        "## Next Time\n\n- Check it.\n"
    )
    assert report["unfinished"] == ["prevention rule"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"body": "## Root Cause\n\nA.\n", "root_cause": "B."},
            "Root Cause is given twice, by --root-cause and by --body's '## Root Cause'; "
            "give it once",
        ),
        (
            {"body": "It broke.\n\n## Next Time\n\n- Check.\n", "what_happened": "B."},
            "What Happened is given twice, by --what-happened and by --body's text before its "
            "first section; give it once",
        ),
        (
            {"body": "It broke.", "what_happened": "B."},
            "What Happened is given twice, by --what-happened and by --body's text; give it once",
        ),
        (
            {"body": "## Root Cause\n\nA.\n\n## ROOT CAUSE\n\nB.\n"},
            "--body has '## Root Cause' twice; give each section once",
        ),
    ],
)
def test_a_section_given_twice_is_exit_2_and_writes_nothing(
    ws: Path, invoke: Invoke, options: dict[str, str], message: str
) -> None:
    before = snapshot(ws)
    result = invoke("record-lesson", "-w", str(ws), *_flags(title="T", summary="S.", **options))
    assert result.exit_code == 2
    assert result.stderr == f"Error: {message}\n"
    assert snapshot(ws) == before


@pytest.mark.parametrize(
    ("sections", "unfinished"),
    [
        # The placeholder of another section, or of none (What Happened has none).
        ({"Root Cause": TEMPLATE_TEXT["Optimization"]}, ["Root Cause"]),
        ({"What Happened": TEMPLATE_TEXT["Root Cause"]}, ["What Happened"]),
        ({"Next Time": "- Check.\n\n" + TEMPLATE_TEXT["Next Time"]}, ["Next Time"]),
        ({}, []),
    ],
)
def test_placeholder_text_in_any_section_keeps_it_a_candidate(
    ws: Path, invoke: Invoke, sections: dict[str, str], unfinished: list[str]
) -> None:
    names = ("What Happened", "Root Cause", "Optimization", "Next Time")
    texts = {name: f"Filled {name}." for name in names} | sections
    body = "".join(f"## {name}\n\n{text}\n\n" for name, text in texts.items())
    report = _record(invoke, ws, *_flags(title="T", summary="S.", body=body, prevention_rule="R."))
    assert report["unfinished"] == unfinished
    assert report["status"] == ("candidate" if unfinished else "active")


def _help_examples(invoke: Invoke, command: str) -> list[list[str]]:
    """The examples of a command's --help that run it, each as its argv (continued lines
    joined); those that read stdin through a pipe are left out."""
    import shlex

    text = invoke(command, "--help").stdout
    block = text.split("Examples:\n", 1)[1].split("\n\n", 1)[0]
    lines = block.replace("\\\n", " ").splitlines()
    found = [shlex.split(line) for line in lines]
    return [argv for argv in found if argv[:2] == ["skillwiki", command] and "|" not in argv]


def test_the_help_example_records_an_active_lesson_that_recall_shows(
    ws: Path, invoke: Invoke
) -> None:
    examples = _help_examples(invoke, "record-lesson")
    assert examples
    for argv in examples:
        result = invoke(*argv[1:], "-w", str(ws), "--json")
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["status"] == "active" and report["unfinished"] == []
        agents = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--agent"]
        chosen = ["--agent", agents[0]] if agents else []
        recalled = invoke("recall", "-w", str(ws), *chosen, "--format", "json")
        assert recalled.exit_code == 0, recalled.output
        lessons = json.loads(recalled.stdout)["lessons"]
        assert any(item["id"] == report["id"] and item["included"] for item in lessons)


def test_the_mcp_tool_takes_the_section_arguments(ws: Path) -> None:
    """record_lesson builds the lesson as the CLI does: its sections by their arguments, and
    suggest's command line turned into them records an active lesson once they are filled."""
    pytest.importorskip("mcp")
    import anyio

    from skillwiki import server
    from skillwiki.api import record_lesson_fields
    from skillwiki.config import SuggestConfig
    from skillwiki.memory.suggest import read_run, suggest
    from skillwiki.server.live import WorkspaceLookup

    arguments = {
        "title": "Pin the runner image",
        "summary": "The runner image moved under a build.",
        "what_happened": "The build broke when the image moved.",
        "root_cause": "The image was named by tag.",
        "optimization": "The image is pinned by digest.",
        "prevention_rule": "Pin runner images by digest.",
    }
    failures = {"task": "build", "tool_calls": [{"tool": "docker", "error": "not found"}] * 3}
    proposal = suggest(read_run(failures, "feedback"), SuggestConfig())
    assert proposal is not None
    proposed = record_lesson_fields(proposal.lesson)
    filled = {**proposed, "root_cause": "The tag moved.", "optimization": "Pinned by digest."}
    wiki = server.build(WorkspaceLookup(ws), read_only=False)
    try:
        calls = [
            anyio.run(wiki.call_tool, "record_lesson", given)
            for given in (
                arguments,
                {**arguments, "title": "Other", "body": "## Root Cause\n\nA.\n"},
                proposed,
                filled,
            )
        ]
    finally:
        wiki.workspace.close()
    recorded, twice, as_proposed, as_filled = calls
    assert not recorded.is_error, recorded.content
    report = recorded.structured_content
    assert report["status"] == "active" and report["unfinished"] == []
    body = _body((ws / report["path"]).read_text())
    assert "## Root Cause\n\nThe image was named by tag.\n\n" in body
    assert body.endswith("## Next Time\n\n- Pin runner images by digest.\n")
    assert twice.is_error
    assert "Root Cause is given twice, by --root-cause and by --body's" in str(twice.content)
    assert as_proposed.structured_content["status"] == "candidate"
    assert as_proposed.structured_content["unfinished"] == ["Root Cause", "Optimization"]
    assert as_filled.structured_content["status"] == "active"
