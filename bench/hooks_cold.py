"""The agent hooks on a fresh clone: how long SessionStart and UserPromptSubmit take, and
whether they answer, where `.wiki/.cache/` (not in git) does not exist yet.

Usage:
  python bench/hooks_cold.py                 # tldr (en) + 3 lessons, 7 runs a figure
  python bench/hooks_cold.py --runs 9 --shared ../shared

A workspace of the tldr pages and the demo's three lessons is built once and committed; each
run then clones it afresh (so every hook meets a clone without `.wiki/.cache/`) and runs one
hook as the client does: `skillwiki hook claude-code EVENT` with the documented payload on
stdin. Each figure is the median of whole-process runs, with and without the `semantic`
extra (SKILLWIKI_SEMANTIC=0), beside `skillwiki --version` (the interpreter's start-up) in
the same session, then the same hook again in the same clone (warm). Run by hand: CI does
not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CLI = [sys.executable, "-m", "skillwiki"]
BUDGET = 5.0  # SKILLWIKI_HOOK_SECONDS's default
PROMPT = "the weekly digest failed: telegram_send was refused, should I retry the tool?"


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def build(root: Path, shared: Path) -> Path:
    """A committed workspace: tldr's English pages and three lessons, compiled."""
    origin = root / "origin"
    shutil.copytree(shared / "corpora" / "tldr" / "en", origin / "pages")
    git("init", "-q", cwd=origin)
    for argv in (["init"], ["ingest", "pages", "--no-compile"]):
        subprocess.run([*CLI, *argv], cwd=origin, check=True, capture_output=True)
    lessons = origin / ".wiki" / "raw" / "lessons"
    lessons.mkdir(parents=True, exist_ok=True)
    for lesson in sorted((REPO / "fixtures" / "demo" / ".wiki" / "raw" / "lessons").glob("*.md")):
        shutil.copy(lesson, lessons / lesson.name)
    subprocess.run([*CLI, "-w", str(origin), "compile"], check=True, capture_output=True)
    git("add", "-A", cwd=origin)
    git(
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "-qm",
        "wiki",
        cwd=origin,
    )
    return origin


def payload(event: str, clone: Path, session: str) -> str:
    data: dict[str, object] = {
        "session_id": session,
        "transcript_path": str(clone / "no-transcript.jsonl"),
        "cwd": str(clone),
        "hook_event_name": event,
    }
    if event == "SessionStart":
        data["source"] = "startup"
    else:
        data["prompt"] = PROMPT
    return json.dumps(data)


def hook(clone: Path, event: str, session: str, env: dict[str, str]) -> tuple[float, bool]:
    """One hook process: its wall time, and whether it answered with lessons."""
    name = "session-start" if event == "SessionStart" else "user-prompt"
    started = time.perf_counter()
    done = subprocess.run(
        [*CLI, "hook", "claude-code", name, "--agent", "channel-op"],
        input=payload(event, clone, session),
        capture_output=True,
        text=True,
        cwd=clone,
        env=env,
        timeout=60,
    )
    elapsed = time.perf_counter() - started
    return elapsed, "Lessons learned" in done.stdout


def figures(origin: Path, root: Path, runs: int, env: dict[str, str]) -> list[str]:
    rows = []
    version = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([*CLI, "--version"], capture_output=True, env=env, check=True)
        version.append(time.perf_counter() - started)
    base = statistics.median(version) * 1000
    rows.append(f"| `skillwiki --version` (start-up) | {base:.0f} ms | 1.0 | |")
    for event in ("SessionStart", "UserPromptSubmit"):
        cold: list[float] = []
        warm: list[float] = []
        with_lessons = 0
        for number in range(runs):
            clone = root / f"clone-{event}-{number}"
            git("clone", "-q", str(origin), str(clone), cwd=root)
            seconds, lessons = hook(clone, event, f"cold-{number}", env)
            cold.append(seconds)
            with_lessons += lessons
            warm.append(hook(clone, event, f"warm-{number}", env)[0])
            shutil.rmtree(clone)
        for label, times in ((f"{event}, fresh clone", cold), (f"{event}, again", warm)):
            value = statistics.median(times) * 1000
            shown = f"{with_lessons}/{runs}" if times is cold else ""
            rows.append(f"| {label} | {value:.0f} ms | {value / base:.1f} | {shown} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="skillwiki-hooks-"))
    try:
        origin = build(root, args.shared)
        pages = sum(1 for _ in (origin / ".wiki" / "wiki").rglob("*.md"))
        print(f"### hooks on a fresh clone: {pages} articles, 3 lessons, budget {BUDGET:g} s\n")
        semantic = (
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "from skillwiki.search import semantic; print(semantic.available())",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            == "True"
        )
        modes = [("SKILLWIKI_SEMANTIC=0", "0")] + ([("semantic extra", "")] if semantic else [])
        for label, value in modes:
            env = {**os.environ, "SKILLWIKI_SEMANTIC": value}
            print(f"{label}:\n\n| figure | median | × start-up | with lessons |\n|---|---|---|---|")
            print("\n".join(figures(origin, root, args.runs, env)) + "\n")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
