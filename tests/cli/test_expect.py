"""--expect-fingerprint: a write happens only if the target is still what the agent read."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import Invoke, snapshot, write

LESSON_ID = "2026-11-30-channel-op-allowedtools-must-include-telegram-send"


def test_feedback_with_the_fingerprint_read(demo: Path, invoke: Invoke) -> None:
    shown = json.loads(invoke("show", "-w", str(demo), LESSON_ID, "--json").stdout)
    assert shown["source"] == f".wiki/raw/lessons/{LESSON_ID}.md"
    read = shown["fingerprint"]
    first = invoke(
        "feedback",
        "-w",
        str(demo),
        LESSON_ID,
        "--outcome",
        "helped",
        "--expect-fingerprint",
        read,
        "--json",
    )
    assert first.exit_code == 0, first.output
    now = json.loads(first.stdout)["fingerprint"]
    before = snapshot(demo)
    stale = invoke(
        "feedback", "-w", str(demo), LESSON_ID, "--outcome", "helped", "--expect-fingerprint", read
    )
    assert stale.exit_code == 2
    assert stale.stderr == (
        f"Error: .wiki/raw/lessons/{LESSON_ID}.md: changed since you read it "
        f"(expected {read}, now {now}); read it again, then retry\n"
    )
    assert snapshot(demo) == before


def test_record_lesson_against_the_catalog(demo: Path, invoke: Invoke) -> None:
    catalog = json.loads(invoke("status", "-w", str(demo), "--json").stdout)["catalog"]
    args = ("record-lesson", "-w", str(demo), "--summary", "S.", "--expect-fingerprint", catalog)
    assert invoke(*args, "--title", "First").exit_code == 0
    before = snapshot(demo)
    late = invoke(*args, "--title", "Second")  # the catalog changed when First was recorded
    assert late.exit_code == 2
    assert late.stderr.startswith("Error: .wiki/index.json: changed since you read it (expected ")
    assert snapshot(demo) == before


def test_ingest_a_single_file(ws: Path, invoke: Invoke) -> None:
    note = write(ws / "a.md", "# A\n\nOne.\n")
    created = invoke("ingest", "-w", str(ws), str(note), "--expect-fingerprint", "none", "--json")
    assert created.exit_code == 0, created.output
    read = json.loads(created.stdout)["files"][0]["fingerprint"]
    note.write_text("# A\n\nTwo.\n")
    assert invoke("ingest", "-w", str(ws), str(note), "--expect-fingerprint", read).exit_code == 0
    note.write_text("# A\n\nThree.\n")
    before = snapshot(ws)
    result = invoke("ingest", "-w", str(ws), str(note), "--expect-fingerprint", read)
    assert result.exit_code == 2 and "changed since you read it" in result.stderr
    assert snapshot(ws) == before
    again = invoke("ingest", "-w", str(ws), str(note), "--expect-fingerprint", "none")
    assert again.exit_code == 2  # it exists now


def test_bad_expectations(ws: Path, invoke: Invoke) -> None:
    write(ws / "d" / "a.md", "# A\n")
    write(ws / "d" / "b.md", "# B\n")
    many = invoke("ingest", "-w", str(ws), str(ws / "d"), "--expect-fingerprint", "none")
    assert many.stderr == "Error: --expect-fingerprint goes with a single file to ingest\n"
    odd = invoke(
        "ingest", "-w", str(ws), str(ws / "d" / "a.md"), "--expect-fingerprint", "md5:1234"
    )
    assert (
        odd.stderr == "Error: --expect-fingerprint must look like xxh3:<16 hex digits> (or none)\n"
    )
