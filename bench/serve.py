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
server is started on it; with --baseline, a copy of the workspace gets a server of the
baseline's code (one server per workspace). Every round runs each figure once, in turn: rg,
then each command without the server (SKILLWIKI_NO_SERVER=1, the server running all the
same) and through it, with this code and the baseline's; figures are the medians over the
rounds, so that a machine busy for a while slows every figure alike. Whole processes, stdout
to /dev/null (a pipe for the hook, whose payload comes on stdin), as an agent's shell or hook
runs them.
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

from skillwiki import channel  # noqa: E402

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


def serve(root: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A server on `root`, run with `env`, once it listens."""
    # In the workspace, as the clients run: `python -m` puts the working directory first on
    # the module path, and a server started in a checkout would run that checkout's code.
    server = subprocess.Popen(
        [*CLI, "-w", str(root), "serve"],
        cwd=root,
        env=env,
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


# A figure: its command line, the hook's payload (or None), where it runs and its environment.
Figure = tuple[list[str], bytes | None, Path, dict[str, str]]


def by_turns(figures: dict[str, Figure], runs: int) -> dict[str, list[float]]:
    """Each figure run once a round, in turn, for a warm-up round and `runs` more: the seconds
    of each run, by figure."""
    times: dict[str, list[float]] = {label: [] for label in figures}
    for _ in range(runs + 1):
        for label, (argv, stdin, cwd, env) in figures.items():
            times[label].append(timed(argv, cwd, env, stdin))
    return times


def figures_of(root: Path, query: str, env: dict[str, str], code: str) -> dict[str, Figure]:
    """Query, status and the hook on `root`, without the server and served, run with `env`
    (`code` names it in the labels)."""
    w = ["-w", str(root)]
    payload = json.dumps({"session_id": "bench", "prompt": query, "cwd": str(root)}).encode()
    commands: dict[str, tuple[list[str], bytes | None]] = {
        "query": ([*CLI, *w, "query", query], None),
        "status": ([*CLI, *w, "status"], None),
        "hook user-prompt": ([*CLI, "hook", "claude-code", "user-prompt"], payload),
    }
    env = {**env, "CLAUDE_PROJECT_DIR": str(root)}
    env.pop("SKILLWIKI_NO_SERVER", None)
    ways = {"without the server": {**env, "SKILLWIKI_NO_SERVER": "1"}, "served": env}
    return {
        f"{command}, {way}{code}": (argv, stdin, root, way_env)
        for command, (argv, stdin) in commands.items()
        for way, way_env in ways.items()
    }


def bench(
    name: str, shared: Path, runs: int, baseline: Path | None, built: Path | None = None
) -> list[str]:
    """The table for one corpus; `built`: a workspace built already (its pages in pages/)."""
    root = built or Path(tempfile.mkdtemp(prefix=f"skillwiki-serve-{name}-"))
    twin = Path(tempfile.mkdtemp(prefix=f"skillwiki-serve-{name}-baseline-")) / "ws"
    servers = []
    try:
        word, query = WORDS.get(name, ("retry", "retry backoff timeout"))
        if built is None:
            prepare(name, root, shared)
        subprocess.run(
            [*CLI, "-w", str(root), "query", query], cwd=root, check=True, stdout=subprocess.DEVNULL
        )
        pages = root / "pages"
        env = dict(os.environ)
        figures: dict[str, Figure] = {
            f"rg -il {word}": (["rg", "-il", word, str(pages)], None, root, env)
        }
        # The floor of a served command: the interpreter's start (with site, and without), and
        # the client's (`--version` imports what a client imports before it asks).
        figures["python -S -c pass"] = ([sys.executable, "-S", "-c", "pass"], None, root, env)
        figures["python -c pass"] = ([sys.executable, "-c", "pass"], None, root, env)
        figures["skillwiki --version"] = ([*CLI, "--version"], None, root, env)
        figures.update(figures_of(root, query, env, ""))
        if baseline is not None:
            ignored = shutil.ignore_patterns(channel.SOCKET, channel.LOCK)
            shutil.copytree(root, twin, symlinks=True, ignore=ignored)
            old = {**env, "PYTHONPATH": str(baseline)}
            figures.update(figures_of(twin, query, old, " (baseline code)"))
            servers.append(serve(twin, old))
        time.sleep(2.5)  # files written in the last 2 s are re-checked (racily clean): settle
        servers.append(serve(root, env))
        times = by_turns(figures, runs)
        rg = statistics.median(times[f"rg -il {word}"][1:])
        files = sum(1 for _ in pages.rglob("*.md"))
        rows = [f"### {name}: {files} files", "", "| figure | median | × rg |", "|---|---|---|"]
        for label, seconds in times.items():
            value = statistics.median(seconds[1:])
            rows.append(f"| {label} | {value * 1000:.1f} ms | {value / rg:.2f} |")
        return [*rows, ""]
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
            server.communicate()
        shutil.rmtree(twin.parent, ignore_errors=True)
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
