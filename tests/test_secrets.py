"""The secret corpus: never stored or printed by record-lesson and suggest; every one found by SW011."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.secret_corpus import lookalikes, secrets
from tests.support import Invoke, write

pytestmark = pytest.mark.own
SECRETS = secrets()
LOOKALIKES = lookalikes()


def test_corpus_sizes() -> None:
    assert len(SECRETS) >= 25 and len(LOOKALIKES) >= 25
    assert len({kind for kind, _, _ in SECRETS}) >= 14


def test_record_lesson_never_stores_or_prints_a_secret(ws: Path, invoke: Invoke) -> None:
    for number, (kind, text, secret) in enumerate(SECRETS):
        result = invoke(
            "record-lesson",
            "-w",
            str(ws),
            "--title",
            f"Leak {number}",
            "--summary",
            f"The tool printed: {text.splitlines()[0]}",
            "--body",
            f"Log:\n\n{text}\n",
            "--json",
        )
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert kind in out["redacted"], (kind, text)
        assert f"[REDACTED:{kind}]" in (ws / out["path"]).read_text()
        assert secret not in result.stdout + result.stderr
    everything = "".join(
        p.read_text() for p in (ws / ".wiki").rglob("*") if p.is_file() and ".cache" not in p.parts
    )
    for _, _, secret in SECRETS:
        for piece in secret.splitlines():
            if len(piece) >= 12 and "-----" not in piece:
                assert piece not in everything


def test_suggest_never_prints_a_secret(ws: Path, invoke: Invoke) -> None:
    for kind, text, secret in SECRETS:
        feedback = {
            "task": "deploy",
            "tool_calls": [{"tool": "shell", "success": False, "error": text}] * 3,
        }
        result = invoke("suggest", "-w", str(ws), input=json.dumps(feedback))
        assert result.exit_code == 0
        assert f"[REDACTED:{kind}]" in result.stdout, kind
        for piece in secret.splitlines():
            if len(piece) >= 12 and "-----" not in piece:
                assert piece not in result.stdout, kind


def _sw011(invoke: Invoke, root: Path) -> list[dict]:
    result = invoke("lint", "-w", str(root), "--format", "json")
    return [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "SW011"]


def test_sw011_finds_every_secret_that_is_ingested(ws: Path, invoke: Invoke) -> None:
    for number, (_, text, _) in enumerate(SECRETS):
        write(
            ws / "notes" / f"note-{number:02d}.md",
            f"# Note {number}\n\nSomething happened.\n\n{text}\n",
        )
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    found = _sw011(invoke, ws)
    raw_found = {f["path"] for f in found if f["path"].startswith(".wiki/raw/")}
    assert raw_found == {f".wiki/raw/notes/note-{n:02d}.md" for n in range(len(SECRETS))}
    kinds = {f["path"]: f["message"] for f in found}
    for number, (kind, _, _) in enumerate(SECRETS):
        assert f"({kind})" in kinds[f".wiki/raw/notes/note-{number:02d}.md"]
    report = json.dumps(found)
    for _, _, secret in SECRETS:  # the report says where and what kind, never the secret itself
        assert secret.splitlines()[0] not in report


def test_lookalikes_are_not_secrets(ws: Path, invoke: Invoke) -> None:
    body = "\n\n".join(f"- {line}" for line in LOOKALIKES)
    write(ws / "notes" / "lookalikes.md", f"# Things that are not secrets\n\n{body}\n")
    invoke("ingest", "-w", str(ws), str(ws / "notes"))
    assert _sw011(invoke, ws) == []  # false positives: 0 of the look-alikes
    result = invoke(
        "record-lesson",
        "-w",
        str(ws),
        "--title",
        "Look-alikes",
        "--summary",
        "S.",
        "--body",
        body,
        "--json",
    )
    assert json.loads(result.stdout)["redacted"] == []


def _written(ws: Path) -> str:
    return "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in (ws / ".wiki").rglob("*")
        if p.is_file() and ".cache" not in p.parts
    )


def _pieces(secret: str) -> list[str]:
    return [piece for piece in secret.splitlines() if len(piece) >= 12 and "-----" not in piece]


def test_every_field_that_is_written_is_redacted(ws: Path, invoke: Invoke) -> None:
    """Besides title, summary and body: agents, tags, category, prevention rule, the reason of
    a rejection, the note of a feedback, and the agent of a suggested command. One secret of
    each kind: every field goes through the same redaction, which the body's test holds to
    every secret of the corpus."""
    one_of_each = list({kind: (kind, text, secret) for kind, text, secret in SECRETS}.values())
    for number, (_, text, secret) in enumerate(one_of_each):
        line = text.replace("\n", " ") if "PRIVATE KEY" not in text else text
        recorded = invoke(
            "record-lesson", "-w", str(ws), "--title", f"Fields {number}", "--summary", "S.",
            "--agent", line, "--tag", line, "--category", line, "--prevention-rule", line,
            "--json",
        )  # fmt: skip
        assert recorded.exit_code == 0, recorded.output
        lesson_id = json.loads(recorded.stdout)["id"]
        noted = invoke("feedback", "-w", str(ws), lesson_id, "--outcome", "helped", "--note", text)
        assert noted.exit_code == 0, noted.output
        rejected = invoke("review", "-w", str(ws), lesson_id, "--reject", "--reason", text)
        assert rejected.exit_code == 0, rejected.output
        feedback = {"task": "t", "agent": text, "tool_calls": [{"tool": "x", "success": False}] * 3}
        suggested = invoke("suggest", "-w", str(ws), input=json.dumps(feedback))
        for piece in _pieces(secret):
            assert piece not in suggested.stdout, number
    everything = _written(ws)
    for number, (_, _, secret) in enumerate(one_of_each):
        for piece in _pieces(secret):
            assert piece not in everything, number
