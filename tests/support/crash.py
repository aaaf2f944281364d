"""Kill trials: SIGKILL a writer at random moments, then check that nothing is torn.

Used by tests/compiler/test_crash.py (a few trials in CI) and bench/stress.py (as many as asked).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from skillwiki.fingerprint import matches
from skillwiki.frontmatter.documents import body_of, decode, split

CLI = [sys.executable, "-m", "skillwiki"]


@dataclass
class Tally:
    trials: int = 0
    torn: list[str] = field(default_factory=list)


def make_workspace(root: Path, files: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run([*CLI, "init", "-w", str(root)], check=True, capture_output=True)
    for n in range(files):
        note = root / "docs" / f"part{n % 5}" / f"note-{n:04d}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(
            f"# Note {n}\n\nSee [the first](note-{n % 5:04d}.md). 重试 {n}.\n\n## Part\n\nText.\n"
        )
    subprocess.run(
        [*CLI, "-w", str(root), "ingest", "docs", "--no-compile"],
        cwd=root,
        check=True,
        capture_output=True,
    )


def torn_files(root: Path) -> list[str]:
    """Every file under .wiki/ that is not a complete version of itself."""
    problems = []
    for path in sorted((root / ".wiki").rglob("*")):
        if not path.is_file() or ".cache" in path.parts:
            continue
        rel = path.relative_to(root).as_posix()
        if path.name.endswith(".tmp") and not path.name.startswith("."):
            problems.append(f"{rel}: a temp file that could be mistaken for content")
        elif not path.name.startswith("."):
            try:
                problem = _incomplete(rel, path.read_bytes())
            except Exception as exc:  # noqa: BLE001 - any failure to read back is a torn file
                problem = str(exc)
            if problem:
                problems.append(f"{rel}: {problem}")
    return problems


def unlogged(root: Path) -> list[str]:
    """Raw files that an ingest or record-lesson put in place without its log.md line."""
    log = (root / ".wiki" / "log.md").read_text(encoding="utf-8")
    raw = root / ".wiki" / "raw"
    found = []
    for folder in ("incoming", "lessons"):
        for path in sorted((raw / folder).rglob("*.md")):
            rel = path.relative_to(raw).as_posix()
            if f" -> raw/{rel}\n" not in log:
                found.append(f".wiki/raw/{rel}: in place, but no log line names it")
    return found


def _incomplete(rel: str, data: bytes) -> str | None:
    text = decode(data, rel, len(data) + 1)
    if rel.endswith("index.json"):
        json.loads(text)
    elif rel.endswith("log.md") and not text.endswith("\n"):
        return "a line written in half"
    elif rel.startswith(".wiki/wiki/"):
        meta = split(text, rel).meta
        if not matches(body_of(text).encode(), str(meta.get("compiled_fingerprint"))):
            return "body does not match its compiled_fingerprint"
    elif rel.endswith(".md"):
        split(text, rel)
    return None


def _settle(root: Path) -> list[str]:
    """The next command must bring the wiki back to fresh and lint-clean."""
    problems = []
    done = subprocess.run([*CLI, "-w", str(root), "compile"], capture_output=True, text=True)
    if done.returncode != 0:
        problems.append(f"compile after the kill failed: {done.stderr.strip()}")
    status = subprocess.run(
        [*CLI, "-w", str(root), "status", "--check"], capture_output=True, text=True
    )
    if status.returncode != 0:
        problems.append(f"not fresh after compile: {status.stdout.strip()}")
    lint = subprocess.run(
        [*CLI, "-w", str(root), "lint", "--format", "json"], capture_output=True, text=True
    )
    errors = [
        f
        for f in json.loads(lint.stdout or '{"findings": []}')["findings"]
        if f["severity"] == "error"
    ]
    if lint.returncode != 0 or errors:
        problems.append(f"lint not clean: {errors[:3]}")
    query = subprocess.run(
        [*CLI, "-w", str(root), "query", "note", "--json"], capture_output=True, text=True
    )
    if query.returncode != 0 or not json.loads(query.stdout)["results"]:
        problems.append(f"query failed after the kill: {query.stderr.strip()}")
    return problems


def _kill_after(argv: list[str], delay: float) -> None:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def run_trials(root: Path, trials: int, seed: int = 7, files: int = 300) -> Tally:
    """Kill `compile` and `record-lesson` at random moments; collect what is torn."""
    rng = random.Random(seed)
    make_workspace(root, files)
    tally = Tally()
    raw = sorted((root / ".wiki" / "raw" / "docs").rglob("*.md"))
    for trial in range(trials):
        for path in rng.sample(raw, k=min(len(raw), 120)):  # new work for the compile to do
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"\nEdit {trial}.\n")
        if trial % 4 == 1:  # an ingest of new files: none may arrive without its log line
            batch = root / "incoming" / f"t{trial}"
            batch.mkdir(parents=True)
            for n in range(60):
                (batch / f"new-{n:03d}.md").write_text(f"# New {trial} {n}\n\nA note.\n")
            argv = [*CLI, "-w", str(root), "ingest", str(batch), "--no-compile"]
            _kill_after(argv, rng.uniform(0.02, 0.6))
        elif trial % 4 == 3:
            argv = [
                *CLI,
                "-w",
                str(root),
                "record-lesson",
                "--title",
                f"Killed lesson {trial}",
                "--summary",
                "Recorded while being killed.",
                "--tag",
                "crash",
            ]
            _kill_after(argv, rng.uniform(0.02, 0.5))
        else:
            _kill_after([*CLI, "-w", str(root), "compile"], rng.uniform(0.05, 1.5))
        tally.trials += 1
        tally.torn += [f"trial {trial}: {problem}" for problem in torn_files(root)]
        tally.torn += [f"trial {trial}: {problem}" for problem in unlogged(root)]
        tally.torn += [f"trial {trial}: {problem}" for problem in _settle(root)]
    return tally


def main() -> None:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description="SIGKILL trials against a real workspace.")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillwiki-stress-") as folder:
        tally = run_trials(Path(folder) / "repo", args.trials, args.seed, args.files)
    print(f"kill trials: {tally.trials}, torn files or unrecovered states: {len(tally.torn)}")
    for problem in tally.torn:
        print(f"  {problem}")
    sys.exit(1 if tally.torn else 0)


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    main()
