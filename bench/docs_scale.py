"""What skillwiki costs on whole documentation trees, and how well it finds pages in them.

    python bench/docs_scale.py TREE [TREE ...] [--source DIR] [--rounds N]
    python bench/docs_trees.py --scale TREE [TREE ...] (the same)

TREE is a folder holding a documentation repository as exported from git (its name picks the
settings below: cockroachdb, tldr, powershell, astro, hugo, fastapi; any other is ingested whole
with the default settings and no questions). For each tree, in a fresh repository that links
the tree's files (a hard-link copy, so that nothing of the tree is written): `init`, the
tree's `[lint]` copies and `[lint.links]` settings as docs/ci.md gives them for its site
generator, `ingest --no-compile` of its folders, `compile`, a first `query`, then each question
asked, then `lint` twice (cold, then warm: nothing changed since).

Each command runs in its own process, whose CPU seconds (user + system) and peak resident
memory are read from the kernel when it ends (`wait4`). Printed per tree, one JSON line:
articles written and files refused, ingest and compile CPU-s and peak MiB, the first query's
CPU-s and peak MiB, lint cold and warm CPU-s (the median of --rounds warm runs), the SW001
count, and for each question the rank of the page it should find (1 = first hit; a page shown
as a copy of a hit counts at that hit's rank; null: not in the first 20).

The questions are written before a run, one page each that a reader would want: not a copy in
an older version, not a page that only mentions the words. --source DIR runs the skillwiki
package under DIR (a `git archive` of another commit) instead of this checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

JEKYLL = {"root": "src/current", "html": True, "directories": True}
HUGO = {"root": "content/en", "static": ["static"], "directories": True, "case_insensitive": True}
ASTRO_LANGUAGES = "ar de es fr hi it ja ko pl pt-br ru zh-cn zh-tw".split()
STARLIGHT = {
    "root": "src/content/docs",
    "static": ["public"],
    "directories": True,
    "languages": ASTRO_LANGUAGES,
    "fallback": "en",
}


@dataclass(frozen=True)
class Tree:
    """How one known tree is ingested and linted, and what it is asked."""

    folders: tuple[str, ...]  # to ingest, as globs; () is the whole tree
    links: dict[str, object] = field(default_factory=dict)  # [lint.links]
    copies: tuple[str, ...] = ()  # [lint] copies
    prefer: tuple[str, ...] = ()  # [search] prefer
    # question -> the end of the path of the page it should find (below .wiki/wiki/)
    questions: dict[str, str] = field(default_factory=dict)


TREES = {
    "cockroachdb": Tree(
        ("src/current",),
        JEKYLL,
        ("v[0-9]*",),
        ("v26.1",),
        {
            "multi-region survival goals": "/multiregion-survival-goals.md",
            "alter table add column": "/alter-table.md",
            "changefeed kafka sink": "/changefeed-sinks.md",
            "cockroach start flags": "/cockroach-start.md",
        },
    ),
    "tldr": Tree(
        ("pages*",),
        {},
        ("pages*",),
        ("pages",),
        {
            "extract a tar archive": "pages/common/tar.md",
            "compress files into a zip": "pages/common/zip.md",
            "undo the last git commit": "pages/common/git-reset.md",
            "list files in a directory": "pages/common/ls.md",
        },
    ),
    "powershell": Tree(
        ("reference",),
        {"case_insensitive": True},
        ("[0-9].[0-9]",),
        ("7.5",),
        {
            "execution policies": "/About/about_Execution_Policies.md",
            "list the files of a folder recursively": "/Get-ChildItem.md",
            "call a REST API": "/Invoke-RestMethod.md",
        },
    ),
    "astro": Tree(
        ("src/content/docs",),
        STARLIGHT,
        ("en", *ASTRO_LANGUAGES),
        ("en",),
        {
            "deploy to netlify": "en/guides/deploy/netlify.mdx",
            "environment variables": "en/guides/environment-variables.mdx",
            "content collections": "en/guides/content-collections.mdx",
            "add tailwind": "en/guides/integrations-guide/tailwind.mdx",
        },
    ),
    "hugo": Tree(
        ("content/en",),
        HUGO,
        (),
        (),
        {
            "create a shortcode": "content-management/shortcodes.md",
            "resize an image": "content-management/image-processing",
            "taxonomies": "content-management/taxonomies.md",
            "add a menu": "content-management/menus.md",
        },
    ),
    "fastapi": Tree(
        ("docs/en/docs",),
        {"directories": True},
        (),
        (),
        {"add middleware": "tutorial/middleware.md", "cors": "tutorial/cors.md"},
    ),
}


def toml_value(value: object) -> str:
    return json.dumps(value)


def config_text(tree: Tree) -> str:
    lines = ["[lint]", f"copies = {toml_value(list(tree.copies))}"]
    lines += ["", "[search]", f"prefer = {toml_value(list(tree.prefer))}", "", "[lint.links]"]
    lines += [f"{key} = {toml_value(value)}" for key, value in tree.links.items()]
    return "\n".join(lines) + "\n"


def run(source: Path, repo: Path, *argv: str) -> tuple[int, float, float, str]:
    """Run one skillwiki command in a process of its own: exit code, CPU-s, peak MiB, stdout.

    A child's peak is at least what this process held when it started the child (Linux keeps
    the high-water mark of the memory the child began with across exec), so each tree is
    measured by a bench process of its own, which has read no other tree's output."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    out, err = repo.parent / "stdout", repo.parent / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "skillwiki", "-w", str(repo), *argv],
            cwd=repo.parent,  # not the checkout: the current folder comes first on sys.path
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if "Traceback" in err.read_text(errors="replace"):
        print(err.read_text(errors="replace")[-2000:], file=sys.stderr)
    cpu = usage.ru_utime + usage.ru_stime
    return process.returncode, round(cpu, 2), round(usage.ru_maxrss / 1024), out.read_text()


def rank(results: list[dict[str, object]], wanted: str) -> int | None:
    for place, hit in enumerate(results, start=1):
        paths = [str(hit["path"]), *map(str, hit.get("copies", []) or [])]  # type: ignore[call-overload]
        # an .mdx page's article is x.mdx.md
        ends = (wanted, wanted + ".md")
        if any(path.endswith(ends) or f"/{wanted}/" in path for path in paths):
            return place
    return None


def measure(source: Path, path: Path, rounds: int) -> dict[str, object]:
    tree = TREES.get(path.name, Tree(()))
    folders = sorted(str(found.relative_to(path)) for g in tree.folders for found in path.glob(g))
    folders = folders or ["."]  # an unknown tree: the whole of it (Path.glob takes no ".")
    row: dict[str, object] = {"tree": path.name}
    with tempfile.TemporaryDirectory() as temp:
        repo = Path(temp) / "repo"
        subprocess.run(["cp", "-al", str(path), str(repo)], check=True)
        run(source, repo, "init")
        (repo / ".wiki" / "config.toml").write_text(config_text(tree))
        code, cpu, mib, out = run(
            source, repo, "ingest", "--no-compile", "--json", *(str(repo / f) for f in folders)
        )
        ingested = json.loads(out) if code == 0 else {}
        row |= {"ingest exit": code, "ingest CPU-s": cpu, "ingest MiB": mib}
        code, cpu, mib, out = run(source, repo, "compile", "--json")
        compiled = json.loads(out) if out.startswith("{") else {}
        row["articles"] = sum(1 for _ in (repo / ".wiki" / "wiki").rglob("*.md*"))
        row["refused"] = len(ingested.get("refused", [])) + len(compiled.get("problems", []))
        row |= {"compile exit": code, "compile CPU-s": cpu, "compile MiB": mib}
        code, cpu, mib, _ = run(source, repo, "query", "--json", "install")
        row |= {"first query CPU-s": cpu, "first query MiB": mib}
        ranks: dict[str, int | None] = {}
        for question, wanted in tree.questions.items():
            _, _, _, out = run(source, repo, "query", "--json", "--limit", "20", question)
            ranks[question] = rank(json.loads(out)["results"], wanted)
        code, cpu, mib, out = run(source, repo, "lint", "--format", "json", "--exit-zero")
        row |= {"lint exit": code, "lint cold CPU-s": cpu, "lint MiB": mib}
        findings = json.loads(out)["findings"] if code == 0 else []
        row["SW001"] = sum(1 for finding in findings if finding["rule"] == "SW001")
        row["SW011"] = sum(1 for finding in findings if finding["rule"] == "SW011")
        lint = ("lint", "--format", "json", "--exit-zero")
        warm = [run(source, repo, *lint)[1] for _ in range(rounds)]
        row["lint warm CPU-s"] = statistics.median(warm)
        row["ranks"] = ranks
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="exported documentation trees")
    parser.add_argument("--source", type=Path, default=HERE, help="where skillwiki/ is")
    parser.add_argument("--rounds", type=int, default=3, help="warm lints")
    args = parser.parse_args(argv)
    if len(args.trees) > 1:  # each tree measured by a bench process of its own: see `one`
        for path in args.trees:
            again = [sys.executable, __file__, str(path), "--source", str(args.source)]
            subprocess.run([*again, "--rounds", str(args.rounds)], check=True)
        return
    row = measure(args.source.resolve(), args.trees[0].resolve(), max(1, args.rounds))
    print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
