"""Peak memory and wall time of `skillwiki ingest` of a folder of N synthetic pages.

Usage:
  python bench/ingest_memory.py [--pages 2000 10000 20000] [--kib 8] [--against REV]
                                [--compile]

For each N, a temporary repository gets a workspace and a `docs/` folder of N Markdown pages
of about --kib KiB each (frontmatter, headings, paragraphs, a code block, links between pages),
100 to a folder; then `skillwiki ingest docs --no-compile` (with --compile, the compile after
it too) runs in a child process, which reports its own peak resident set size
(`ru_maxrss`) and wall time. --against REV measures that commit too, from `git archive REV`
put on PYTHONPATH, on the same trees, so that two versions are compared on one machine.
Run by hand: CI does not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
WORDS = (
    "deploy release build cluster node replica range lease raft store query index table schema "
    "column primary key transaction commit rollback backup restore upgrade version config flag "
    "setting timeout retry latency throughput monitor metric alert log trace span region zone"
).split()


def page(number: int, count: int, size: int, rng: random.Random) -> str:
    """One page of about `size` bytes that links to two others."""
    words = " ".join(rng.choice(WORDS) for _ in range(12))
    parts = [f"---\ntitle: Page {number}\ntags: [bench, t{number % 17}]\n---\n# Page {number}\n"]
    while sum(map(len, parts)) < size:
        other = rng.randrange(count)
        parts.append(
            f"\n## {words.split()[0].title()} {len(parts)}\n\n"
            + " ".join(rng.choice(WORDS) for _ in range(90))
            + f" See [page {other}](../s{other // 100}/p{other}.md).\n\n"
            + "```sh\nskillwiki ingest docs/\n```\n"
        )
    return "".join(parts)


def build_tree(root: Path, count: int, kib: int) -> None:
    rng = random.Random(count)
    for number in range(count):
        folder = root / "docs" / f"s{number // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"p{number}.md").write_text(page(number, count, kib * 1024, rng))


def child(argv: list[str], report: str) -> None:
    """Run the CLI in this process, then write its peak RSS and wall time to `report`."""
    import resource

    from skillwiki.cli.app import main as cli  # the package's main ends the process

    started = time.perf_counter()
    code: object = 0
    try:
        sys.argv = ["skillwiki", *argv]
        cli()
    except SystemExit as exc:
        code = exc.code
    seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    Path(report).write_text(json.dumps({"code": code, "seconds": seconds, "kib": peak_kib}))


def measure(source: Path, repo: Path, compile_after: bool) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(source), "SKILLWIKI_WORKERS": "1"}
    subprocess.run(
        [sys.executable, "-m", "skillwiki", "init", "-w", str(repo)],
        env=env,
        cwd=repo,  # not this checkout: the current folder comes first on sys.path
        check=True,
        capture_output=True,
    )
    argv = ["ingest", "-w", str(repo), str(repo / "docs")]
    if not compile_after:
        argv.append("--no-compile")
    report = repo / "report.json"
    script = "; ".join(
        [
            "import sys",
            f"sys.path.insert(0, {str(HERE / 'bench')!r})",
            "import skillwiki",
            f"assert skillwiki.__file__.startswith({str(source)!r}), skillwiki.__file__",
            "import ingest_memory",
            f"ingest_memory.child({argv!r}, {str(report)!r})",
        ]
    )
    subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=repo, check=True, capture_output=True
    )
    result: dict[str, object] = json.loads(report.read_text())
    report.unlink()
    return result


def archived(rev: str, into: Path) -> Path:
    """The skillwiki package of `rev`, unpacked into `into`."""
    data = subprocess.run(
        ["git", "-C", str(HERE), "archive", rev, "skillwiki"], check=True, capture_output=True
    ).stdout
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=data, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[2000, 10000, 20000])
    parser.add_argument("--kib", type=int, default=8)
    parser.add_argument("--against", default=None, help="a commit to measure too")
    parser.add_argument("--compile", action="store_true", help="time the compile after it too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        versions = {"this": HERE}
        if args.against:
            versions[args.against] = archived(args.against, Path(temp) / "against")
        print(f"{'version':<12} {'pages':>6} {'MiB of text':>11} {'peak MiB':>9} {'seconds':>8}")
        for count in args.pages:
            tree = Path(temp) / f"tree-{count}"
            build_tree(tree, count, args.kib)
            text = sum(p.stat().st_size for p in (tree / "docs").rglob("*.md")) / 2**20
            for label, source in versions.items():
                repo = Path(temp) / f"repo-{count}-{len(label)}-{abs(hash(label))}"
                subprocess.run(["cp", "-r", str(tree), str(repo)], check=True)
                result = measure(source, repo, args.compile)
                peak = int(str(result["kib"])) / 1024
                print(
                    f"{label:<12} {count:>6} {text:>11.0f} {peak:>9.0f} "
                    f"{float(str(result['seconds'])):>8.1f}"
                    + ("" if result["code"] in (0, None) else f"  (exit {result['code']})"),
                    flush=True,
                )
                subprocess.run(["rm", "-rf", str(repo)], check=True)
            subprocess.run(["rm", "-rf", str(tree)], check=True)


if __name__ == "__main__":
    main()
