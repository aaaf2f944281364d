"""Lint output formats, exit-code options, baselines and the pre-commit hook."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from skillwiki.lint.model import Finding, Severity
from skillwiki.lint.report import to_github
from tests.support import REPO, Invoke, write


def _break(demo: Path) -> None:
    """One error (a broken link) and one warning (template text) in the demo."""
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nSee [the runbook](runbook.md).\n")
    lesson = next((demo / ".wiki" / "raw" / "lessons").glob("*cost-budget.md"))
    lesson.write_text(
        lesson.read_text().replace(
            "The planner checked the budget only at the end of a run, not after each replan.",
            "_Not yet filled in: why did it happen? Name the cause, not the symptom._",
        )
    )


def test_json_format_snapshot(demo: Path, invoke: Invoke) -> None:
    _break(demo)
    invoke("compile", "-w", str(demo))
    result = invoke("lint", "-w", str(demo), "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "findings": [
            {
                "rule": "SW007",
                "severity": "warning",
                "path": ".wiki/raw/lessons/2026-11-30-stop-a-run-at-twice-its-cost-budget.md",
                "line": 23,
                "column": 1,
                "message": "lesson section '## Root Cause' still holds the template text; fill it in",
            },
            {
                "rule": "SW001",
                "severity": "error",
                "path": ".wiki/wiki/docs/ci.md",
                "line": 26,
                "column": 19,
                "message": "broken link to runbook.md: runbook.md does not exist; fix the link in the raw file",
                "source": {"path": ".wiki/raw/docs/ci.md", "line": 16},
                "target": "runbook.md",
            },
        ],
        "summary": {"errors": 1, "warnings": 1, "baselined": 0},
    }


def test_github_format_and_step_summary(
    demo: Path, invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _break(demo)
    invoke("compile", "-w", str(demo))
    summary = tmp_path / "summary.md"
    summary.write_text("before\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = invoke("lint", "-w", str(demo), "--format", "github")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::warning file=.wiki/raw/lessons/2026-11-30-stop-a-run-at-twice-its-cost-budget.md,line=23,col=1,"
        "title=SW007::lesson section '## Root Cause' still holds the template text; fill it in",
        "::error file=.wiki/wiki/docs/ci.md,line=26,col=19,title=SW001::broken link to runbook.md: "
        "runbook.md does not exist; fix the link in the raw file",
    ]
    text = summary.read_text()
    assert text.startswith("before\n## skillwiki lint\n\n1 error(s), 1 warning(s)\n")
    assert "| SW001 | error | `.wiki/wiki/docs/ci.md` | 26 | broken link to runbook.md" in text


def test_github_escaping() -> None:
    finding = Finding("a:b,c%d.md", 3, 4, "SW001", Severity.ERROR, "100% broken\r\nsee: a, b")
    assert to_github([finding]) == (
        "::error file=a%3Ab%2Cc%25d.md,line=3,col=4,title=SW001::100%25 broken%0D%0Asee: a, b\n"
    )


def test_sarif_format(demo: Path, invoke: Invoke) -> None:
    _break(demo)
    invoke("compile", "-w", str(demo))
    (demo / ".git").mkdir()  # the workspace is the repository root
    result = invoke("lint", "-w", str(demo), "--format", "sarif")
    log = json.loads(result.stdout)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "skillwiki" and driver["version"] == "0.1.0"
    assert [rule["id"] for rule in driver["rules"]] == [f"SW{n:03d}" for n in range(1, 15)]
    assert all(
        rule["shortDescription"]["text"] and rule["help"]["text"] for rule in driver["rules"]
    )
    error = run["results"][1]
    assert error["ruleId"] == "SW001" and error["level"] == "error"
    assert driver["rules"][error["ruleIndex"]]["id"] == "SW001"
    assert error["message"]["text"].startswith("broken link to runbook.md")
    location = error["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": ".wiki/wiki/docs/ci.md"},
        "region": {"startLine": 26, "startColumn": 19},
    }


def test_paths_are_relative_to_the_repository(tmp_path: Path, demo: Path, invoke: Invoke) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    nested = repo / "sub" / "demo"
    nested.parent.mkdir()
    demo.rename(nested)
    _break(nested)
    invoke("compile", "-w", str(nested))
    log = json.loads(invoke("lint", "-w", str(nested), "--format", "sarif").stdout)
    uri = log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"
    ]
    assert uri == "sub/demo/.wiki/wiki/docs/ci.md"


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ((), 0),
        (("--strict",), 1),
        (("--fail-on", "warning"), 1),
        (("--fail-on", "error"), 0),
        (("--strict", "--exit-zero"), 0),
    ],
)
def test_exit_codes_with_only_a_warning(
    demo: Path, invoke: Invoke, options: tuple[str, ...], code: int
) -> None:
    lesson = next((demo / ".wiki" / "raw" / "lessons").glob("*cost-budget.md"))
    lesson.write_text(
        lesson.read_text().replace("status: active", "status: active\nsummary_extra: x")
    )
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    article.write_text(article.read_text() + "\nhand edit\n")  # SW005, a warning
    invoke("compile", "-w", str(demo))
    result = invoke("lint", "-w", str(demo), *options)
    assert result.exit_code == code, result.output


def test_baseline_round_trip(demo: Path, invoke: Invoke, tmp_path: Path) -> None:
    _break(demo)
    invoke("compile", "-w", str(demo))
    baseline = tmp_path / "baseline.json"
    written = invoke("lint", "-w", str(demo), "--write-baseline", str(baseline))
    assert written.exit_code == 0
    assert "0 error(s), 0 warning(s), 2 hidden by the baseline" in written.stdout
    entries = json.loads(baseline.read_text())["findings"]
    assert sorted((e["rule"], e["path"]) for e in entries) == [
        ("SW001", ".wiki/wiki/docs/ci.md"),
        ("SW007", ".wiki/raw/lessons/2026-11-30-stop-a-run-at-twice-its-cost-budget.md"),
    ]
    # Lines move: the accepted findings stay hidden.
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(
        raw.read_text().replace(
            "# Continuous integration\n",
            "# Continuous integration\n\nA new first paragraph.\n\nAnd another one.\n",
        )
    )
    invoke("compile", "-w", str(demo))
    shifted = invoke("lint", "-w", str(demo), "--baseline", str(baseline), "--format", "json")
    assert shifted.exit_code == 0, shifted.stdout
    assert json.loads(shifted.stdout)["summary"] == {"errors": 0, "warnings": 0, "baselined": 2}
    # A new finding fails, and only it is shown.
    raw.write_text(raw.read_text() + "\nAnd [another](gone-too.md).\n")
    invoke("compile", "-w", str(demo))
    new = invoke("lint", "-w", str(demo), "--baseline", str(baseline), "--format", "json")
    assert new.exit_code == 1
    assert [f["message"][:27] for f in json.loads(new.stdout)["findings"]] == [
        "broken link to gone-too.md:"
    ]
    # A fixed finding no longer counts.
    raw.write_text(raw.read_text().replace("See [the runbook](runbook.md).\n", ""))
    invoke("compile", "-w", str(demo))
    fixed = json.loads(
        invoke("lint", "-w", str(demo), "--baseline", str(baseline), "--format", "json").stdout
    )
    assert fixed["summary"]["baselined"] == 1


def test_missing_baseline_is_exit_2(demo: Path, invoke: Invoke, tmp_path: Path) -> None:
    result = invoke("lint", "-w", str(demo), "--baseline", str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"Error: {tmp_path / 'nope.json'}: no such baseline file; create it with --write-baseline\n"
    )


def test_pre_commit_hook_runs_like_pre_commit(demo: Path) -> None:
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "skillwiki-lint"
    assert hook["pass_filenames"] is False and hook["files"] == r"^\.wiki/"
    argv = shlex.split(hook["entry"])
    executable = Path(sys.executable).parent / argv[0]
    assert executable.exists(), "the console script the hook calls is installed"
    env = {**os.environ, "NO_COLOR": "1"}
    clean = subprocess.run(
        [str(executable), *argv[1:]], cwd=demo, capture_output=True, text=True, env=env
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr
    _break(demo)
    subprocess.run([str(executable), "compile"], cwd=demo, capture_output=True, check=True)
    broken = subprocess.run(
        [str(executable), *argv[1:]], cwd=demo, capture_output=True, text=True, env=env
    )
    assert broken.returncode == 1
    assert "SW001 broken link to runbook.md" in broken.stdout


def test_unchanged_wiki_reuses_the_last_report_until_a_file_changes(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    import marshal
    import time

    image = demo / "docs" / "img.png"
    image.write_bytes(b"\x89PNG")
    raw = demo / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\n![diagram](img.png)\n")
    from skillwiki import statcache

    invoke("compile", "-w", str(demo))
    old = time.time() - 3600
    for path in demo.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))
    # a file is settled once its ctime too is out of the racy window: made short, waited out
    for module in (statcache, statcache.cache):
        monkeypatch.setattr(module, "RACY_NS", 50_000_000)
    time.sleep(0.1)
    assert invoke("lint", "-w", str(demo), "--format", "json").exit_code == 0
    report = demo / ".wiki" / ".cache" / "lint-report.marshal"
    data = marshal.loads(report.read_bytes())
    assert str(image) in data["outside"]
    data["findings"] = [(".wiki/index.md", 1, 1, "SW010", "error", "planted", None, None)]
    report.write_bytes(marshal.dumps(data))
    reused = json.loads(invoke("lint", "-w", str(demo), "--format", "json").stdout)
    assert [f["message"] for f in reused["findings"]] == ["planted"]  # nothing changed: reused
    monkeypatch.setattr("skillwiki.lint.__version__", "0.0.0-another")  # rules judge otherwise
    other = json.loads(invoke("lint", "-w", str(demo), "--format", "json").stdout)
    assert other["findings"] == []
    report.write_bytes(marshal.dumps(data))
    monkeypatch.undo()
    image.unlink()  # a file outside .wiki/ that an article links to
    fresh = json.loads(invoke("lint", "-w", str(demo), "--format", "json").stdout)
    assert [f["rule"] for f in fresh["findings"]] == ["SW001"]


def test_a_baseline_cannot_be_used_to_guess_a_secret(
    ws: Path, invoke: Invoke, tmp_path: Path
) -> None:
    """The fingerprint of a line holding a secret does not depend on the secret."""
    from skillwiki.lint.baseline import line_fingerprints
    from skillwiki.lint.model import Finding, Severity
    from skillwiki.workspace import Workspace

    fingerprints = []
    for password in ("Summer2024!", "Winter2025?"):
        write(ws / "notes.md", f"# Notes\n\npassword = {password}\n")
        finding = Finding("notes.md", 3, 1, "SW011", Severity.ERROR, "a secret (password)")
        fingerprints += line_fingerprints(Workspace(ws), [finding])
    assert fingerprints[0] == fingerprints[1]  # a guess cannot be checked against it
    baseline = tmp_path / "baseline.json"
    write(ws / ".wiki" / "raw" / "leak.md", "# Leak\n\npassword = Summer2024!\n")
    invoke("compile", "-w", str(ws))
    assert invoke("lint", "-w", str(ws), "--write-baseline", str(baseline)).exit_code == 0
    assert "Summer2024" not in baseline.read_text()
    hidden = invoke("lint", "-w", str(ws), "--baseline", str(baseline), "--format", "json")
    assert json.loads(hidden.stdout)["summary"]["errors"] == 0
