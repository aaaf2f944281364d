"""What `skillwiki serve` saves: CLI query, status and a hook, with the server and without,
by turns beside `rg -il WORD`, on tldr (en) and a synthetic 50k-file tree.

Usage:
  python bench/serve.py                           # tldr-en and 50k, medians of 9 runs
  python bench/serve.py --corpora tldr-en --runs 15
  python bench/serve.py --baseline ../old         # also the code at ../old (a checkout's
                                                  # `git archive HEAD`), on PYTHONPATH
  python bench/serve.py --corpora tldr-en --workspace WS --text-only
                                                  # a workspace built already (pages/ in it);
                                                  # the text ranking alone

Each corpus is built as bench/run.py builds it (ingested, compiled, queried once), then a
server is started on it. Every round runs each figure once, in turn: rg, then each command
without the server (SKILLWIKI_NO_SERVER=1, the server running all the same), through it, and
with the baseline's code; figures are the medians over the rounds, so that a machine busy
for a while slows every figure alike. Whole processes, stdout to /dev/null (a pipe for the
hook, whose payload comes on stdin), as an agent's shell or hook runs them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import CLI, build  # noqa: E402

WORDS = {"tldr-en": ("archive", "extract files from archive")}


def timed(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None) -> float:
    """Seconds the process took, start to end."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    _, status, _ = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(argv)}")
    return elapsed


def serve(root: Path) -> subprocess.Popen[bytes]:
    """A server on `root`, once it listens."""
    # In the workspace, as the clients run: `python -m` puts the working directory first on
    # the module path, and a server started in a checkout would run that checkout's code.
    server = subprocess.Popen(
        [*CLI, "-w", str(root), "serve"],
        cwd=root,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    assert server.stderr is not None
    said = server.stderr.readline().decode()
    if not said.startswith("skillwiki serve: answering"):
        raise SystemExit(f"the server did not start: {said}")
    return server


def prepare(name: str, root: Path, shared: Path) -> None:
    """The corpus as bench/run.py builds it: its pages copied or made, ingested, compiled."""
    build(name, root, shared)
    for step in (["ingest", "pages", "--no-compile"], ["compile"]):
        subprocess.run(
            [*CLI, "-w", str(root), *step], cwd=root, check=True, stdout=subprocess.DEVNULL
        )


def by_turns(
    commands: dict[str, tuple[list[str], bytes | None]],
    ways: dict[str, dict[str, str]],
    root: Path,
    runs: int,
) -> dict[str, list[float]]:
    """Each command run each way once a round (rg once, first), for a warm-up round and
    `runs` more: the seconds of each run, by figure."""
    rg = next(label for label in commands if label.startswith("rg "))
    figures: dict[str, list[float]] = {rg: []}
    for command in commands:
        if command != rg:
            figures.update({f"{command}, {way}": [] for way in ways})
    for _ in range(runs + 1):
        figures[rg].append(timed(commands[rg][0], root, next(iter(ways.values()))))
        for command, (argv, stdin) in commands.items():
            for way, env in ways.items():
                if command != rg:
                    figures[f"{command}, {way}"].append(timed(argv, root, env, stdin))
    return figures


def bench(
    name: str, shared: Path, runs: int, baseline: Path | None, built: Path | None = None
) -> list[str]:
    """The table for one corpus; `built`: a workspace built already (its pages in pages/)."""
    root = built or Path(tempfile.mkdtemp(prefix=f"skillwiki-serve-{name}-"))
    server = None
    try:
        word, query = WORDS.get(name, ("retry", "retry backoff timeout"))
        w = ["-w", str(root)]
        if built is None:
            prepare(name, root, shared)
        subprocess.run([*CLI, *w, "query", query], cwd=root, check=True, stdout=subprocess.DEVNULL)
        time.sleep(2.5)  # files written in the last 2 s are re-checked (racily clean): settle
        pages = root / "pages"
        server = serve(root)
        base = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
        base.pop("SKILLWIKI_NO_SERVER", None)
        ways = {"without the server": {**base, "SKILLWIKI_NO_SERVER": "1"}, "served": base}
        if baseline is not None:
            ways["baseline code"] = {**base, "PYTHONPATH": str(baseline)}
        payload = json.dumps({"session_id": "bench", "prompt": query, "cwd": str(root)}).encode()
        commands: dict[str, tuple[list[str], bytes | None]] = {
            "query": ([*CLI, *w, "query", query], None),
            "status": ([*CLI, *w, "status"], None),
            "hook user-prompt": ([*CLI, "hook", "claude-code", "user-prompt"], payload),
        }
        commands[f"rg -il {word}"] = (["rg", "-il", word, str(pages)], None)
        figures = by_turns(commands, ways, root, runs)
        rg = statistics.median(figures[f"rg -il {word}"][1:])
        files = sum(1 for _ in pages.rglob("*.md"))
        rows = [f"### {name}: {files} files", "", "| figure | median | × rg |", "|---|---|---|"]
        for label, seconds in figures.items():
            value = statistics.median(seconds[1:])
            rows.append(f"| {label} | {value * 1000:.1f} ms | {value / rg:.2f} |")
        return [*rows, ""]
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            server.communicate()
        if built is None:
            shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default="tldr-en,50k")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    parser.add_argument("--baseline", type=Path, help="another checkout's code, to compare")
    parser.add_argument(
        "--workspace", type=Path, help="a workspace built already, for the one corpus named"
    )
    parser.add_argument(
        "--text-only", action="store_true", help="SKILLWIKI_SEMANTIC=0: the text ranking alone"
    )
    args = parser.parse_args()
    if args.text_only:
        os.environ["SKILLWIKI_SEMANTIC"] = "0"
    if shutil.which("rg") is None:
        raise SystemExit("rg (ripgrep) is needed for the baseline")
    import compileall

    import skillwiki

    compileall.compile_dir(Path(skillwiki.__file__).parent, quiet=1)
    if args.baseline is not None:
        compileall.compile_dir(args.baseline / "skillwiki", quiet=1)
        args.baseline = args.baseline.resolve()
    print(f"skillwiki serve bench, {os.cpu_count()} cores, medians of {args.runs} rounds\n")
    for name in args.corpora.split(","):
        for row in bench(name, args.shared, args.runs, args.baseline, args.workspace):
            print(row, flush=True)


if __name__ == "__main__":
    main()
