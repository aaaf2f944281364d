"""Ingest, compile and lint real documentation trees; compare SW001 with a reference checker.

    python bench/docs_trees.py [CORPORA_DOCS_DIR]
    python bench/docs_trees.py --scale TREE [TREE ...] [--source DIR] [--rounds N]

The second form prints, for whole fetched trees, what each step costs and where the questions'
pages rank: see bench/docs_scale.py.

For each tree: copy it into a fresh repository, `skillwiki init`, `ingest` the folder, then
`lint --format json`. The reference checker below reads the *original* tree with plain
markdown-it-py tokens (CommonMark, tables, footnotes) and the files on disk, written apart
from skillwiki's code; both use the same documented link settings per tree. Printed per tree:
ingest exit code, articles made / Markdown files, SW001 findings, and agreement as
(file, target) pairs: flagged by both, by skillwiki only, by the reference only, precision
and recall of SW001 against the reference, and tracebacks seen.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT.parent / "shared" / "corpora" / "docs"
# tree -> (folder to ingest, [lint.links] settings as the site generator resolves links)
TREES = {
    "fastapi": ("docs/en/docs", {"directories": True}),
    "rust-book": ("src", {"html": True}),
    "hugo-docs": ("content/en", {"root": "content/en", "directories": True}),
}
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
SHORTCODE = re.compile(r"^ {0,3}\{\{<\s*([\w./-]+)")
ATTR_ID = re.compile(r"\{:?[^{}]*#([\w:.-]+)[^{}]*\}\s*$")
HTML_ID = re.compile(r"\b(?:id|name)\s*=\s*[\"']?([^\"'\s>]+)")
SLUG_DROP = re.compile(r"[^\w\- ]")
PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
PARSER.use(footnote_plugin)


def body(text: str) -> str:
    for mark in ("---", "+++"):
        if text.startswith(mark + "\n"):
            end = re.search(rf"^(?:{re.escape(mark)}|\.\.\.)\s*$", text[4:], re.MULTILINE)
            if end:
                return text[4 + end.end() :]
    return text


def raw_code_lines(lines: list[str]) -> set[int]:
    """Lines inside paired Hugo shortcodes `{{< x >}} ... {{< /x >}}` (not Markdown)."""
    inside: set[int] = set()
    for number, line in enumerate(lines):
        found = SHORTCODE.match(line)
        if not found or line.rstrip().endswith("/>}}"):  # self-closing: no inner text
            continue
        closing = "{{< /" + found.group(1)
        for end in range(number, len(lines)):
            if closing in lines[end].replace("{{</", "{{< /"):
                inside.update(range(number, end + 1))
                break
    return inside


def anchors_of(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        found: set[str] = set()
        tokens = PARSER.parse(body(path.read_text(encoding="utf-8")))
        seen: dict[str, int] = {}
        for index, token in enumerate(tokens):
            if token.type == "heading_open":
                inline = tokens[index + 1]
                text = "".join(
                    c.content for c in inline.children or [] if c.type in ("text", "code_inline")
                )
                custom = ATTR_ID.search(text)
                if custom:
                    found.add(custom.group(1))
                    text = text[: custom.start()]
                base = SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")
                count = seen.get(base, 0)
                found.add(base if count == 0 else f"{base}-{count}")
                seen[base] = count + 1
            for piece in [token, *(token.children or [])]:
                if piece.type in ("html_block", "html_inline"):
                    found.update(HTML_ID.findall(piece.content))
        cache[path] = found
    return cache[path]


def resolve(tree: Path, folder: Path, target: str, settings: dict[str, object]) -> Path | None:
    path = unquote(target.partition("#")[0].partition("?")[0])
    if path.startswith("/"):
        base = tree / str(settings.get("root", ""))
        candidate = Path(posixpath.normpath(f"{base}/{path.lstrip('/')}"))
    else:
        candidate = Path(posixpath.normpath(f"{folder}/{path}"))
    names = [candidate]
    if settings.get("html") and candidate.suffix in (".html", ".htm"):
        names.append(candidate.with_suffix(".md"))
    if settings.get("directories"):
        bare = str(candidate).rstrip("/")
        pages = ("index.md", "_index.md", "README.md")
        names += [Path(bare + ".md")] + [Path(bare) / page for page in pages]
    for name in names:
        if name.is_file():
            return name
    return candidate if candidate.is_dir() else None


def link_targets(text: str) -> Iterator[str]:
    """Every link and image target of a page's body (outside raw code), unquoted, that is
    neither external, nor templated, nor an autolink."""
    skip = raw_code_lines(text.split("\n"))
    for token in PARSER.parse(text):
        if token.type != "inline" or (token.map and token.map[0] in skip):
            continue
        for child in token.children or []:
            href = child.attrs.get("href") if child.type == "link_open" else None
            href = child.attrs.get("src") if child.type == "image" else href
            if not isinstance(href, str) or child.markup == "autolink":
                continue
            target = unquote(href)
            if target and not SCHEME.match(target) and "{{" not in target and "{%" not in target:
                yield target


def is_broken(
    tree: Path, path: Path, target: str, settings: dict[str, object], anchors: dict[Path, set[str]]
) -> bool:
    """Whether a link of the page at `path` leads nowhere: no file, or no such heading."""
    if target.startswith("#"):
        return target[1:] not in anchors_of(path, anchors)
    found = resolve(tree, path.parent, target, settings)
    if found is None:
        return True
    fragment = target.partition("#")[2]
    missing = fragment and fragment not in anchors_of(found, anchors) if found.is_file() else True
    return found.suffix == ".md" and bool(missing)


def reference(tree: Path, folder: Path, settings: dict[str, object]) -> set[tuple[str, str]]:
    broken: set[tuple[str, str]] = set()
    anchors: dict[Path, set[str]] = {}
    for path in sorted(folder.rglob("*.md")):
        rel = path.relative_to(tree).as_posix()
        for target in link_targets(body(path.read_text(encoding="utf-8"))):
            if is_broken(tree, path, target, settings, anchors):
                broken.add((rel, target))
    return broken


def run_tree(corpora: Path, name: str) -> dict[str, object]:
    folder, settings = TREES[name]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(corpora / name, repo)
        cli = [sys.executable, "-m", "skillwiki", "-w", str(repo)]
        subprocess.run([*cli, "init"], check=True, capture_output=True)
        lines = [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
        (repo / ".wiki" / "config.toml").write_text("[lint.links]\n" + "\n".join(lines) + "\n")
        ingest = subprocess.run(
            [*cli, "ingest", str(repo / folder)], capture_output=True, text=True
        )
        lint = subprocess.run([*cli, "lint", "--format", "json"], capture_output=True, text=True)
        sources = list((repo / folder).rglob("*.md"))
        articles = list((repo / ".wiki" / "wiki").rglob("*.md"))
        findings = [f for f in json.loads(lint.stdout)["findings"] if f["rule"] == "SW001"]
        ours = {
            (f["source"]["path"].removeprefix(".wiki/raw/"), unquote(f["target"]))
            for f in findings
            if f.get("source")
        }
        unmapped = sum(1 for f in findings if not f.get("source"))
        theirs = reference(repo, repo / folder, settings)
        both = ours & theirs
        tracebacks = sum("Traceback" in out for out in (ingest.stderr, lint.stderr))
        return {
            "tree": name,
            "ingest exit": ingest.returncode,
            "articles / md files": f"{len(articles)} / {len(sources)}",
            "SW001": len(findings),
            "unmapped": unmapped,
            "both": len(both),
            "skillwiki only": sorted(ours - theirs)[:5],
            "reference only": sorted(theirs - ours)[:5],
            "precision": round(len(both) / len(ours), 3) if ours else 1.0,
            "recall": round(len(both) / len(theirs), 3) if theirs else 1.0,
            "tracebacks": tracebacks,
        }


def main() -> None:
    if sys.argv[1:2] == ["--scale"]:
        import docs_scale  # beside this script, which Python puts first on sys.path

        docs_scale.main(sys.argv[2:])
        return
    corpora = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    for name in TREES:
        print(json.dumps(run_tree(corpora, name), ensure_ascii=False))


if __name__ == "__main__":
    main()
