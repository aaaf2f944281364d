"""What tests share besides fixtures: the repository's paths, the fixed clock, and helpers
that write files and take snapshots of the disk."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

REPO = Path(__file__).resolve().parent.parent.parent
DATA = REPO / "tests" / "data"
DEMO = REPO / "fixtures" / "demo"
# Real Markdown nobody here wrote (documentation trees, tldr pages), beside the checkout in CI
# but in no clone: tests over them ask corpora(), which skips them, saying so, without them.
CORPORA = REPO.parent / "shared" / "corpora"
NO_CORPORA = "needs the real corpora in ../shared/corpora beside the checkout (CI has them)"
# tldr's pages all follow one short template, where the docs trees hold the variety that real
# projects write: tests over real Markdown take every docs page and every fourth tldr page.
TLDR_STRIDE = 4

Invoke = Callable[..., Result]

# Every test runs at this moment, whatever the wall clock says: lesson ids, `created:` dates,
# evidence ages and archive decisions do not drift as days pass (subprocesses inherit it).
NOW = "2026-11-30T12:00:00Z"
TODAY = NOW[:10]


def hit_names(invoke: Invoke, workspace: Path, text: str) -> list[str]:
    """The file names of `query TEXT`'s hits in a workspace, best first."""
    import json

    result = invoke("query", "-w", str(workspace), text, "--json")
    assert result.exit_code == 0, result.output
    return [hit["path"].rsplit("/", 1)[-1] for hit in json.loads(result.stdout)["results"]]


def corpora() -> Path:
    """Return the real corpora beside the checkout; without them, skip the calling test."""
    if not CORPORA.is_dir():
        pytest.skip(NO_CORPORA)
    return CORPORA


def real_pages(*languages: str) -> list[Path]:
    """Markdown nobody here wrote (see corpora): every page of the docs trees, then every
    TLDR_STRIDE-th tldr page of each language named."""
    root = corpora()
    pages = sorted((root / "docs").rglob("*.md"))
    for language in languages:
        pages += sorted((root / "tldr" / language).rglob("*.md"))[::TLDR_STRIDE]
    return pages


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root (but the disposable cache and lock) with its bytes."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if ".wiki/.cache" in rel or rel.endswith(".wiki/.lock") or not path.is_file():
            continue
        found[rel] = path.read_bytes()
    return found


def mtimes(root: Path) -> dict[str, int]:
    return {
        path.relative_to(root).as_posix(): path.stat().st_mtime_ns
        for path in root.rglob("*")
        if path.is_file() and ".cache" not in path.parts and path.name != ".lock"
    }


def replace_by_hand(article: Path, line: str) -> None:
    """Replace a file as an editor saves it (a temp file renamed over it), with `line` added,
    once the file system's clock has ticked (the stat then differs)."""
    time.sleep(0.05)
    temp = article.with_name(f".{article.name}.by-hand")
    temp.write_text(article.read_text() + f"\n{line}\n")
    os.replace(temp, article)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def put_in_every_state(demo: Path) -> None:
    """Make the demo hold one new, one stale, one orphan and one edited article."""
    wiki = demo / ".wiki"
    write(wiki / "raw" / "docs" / "new.md", "# New\n")
    (wiki / "raw" / "docs" / "ci.md").write_text("# CI\n\nChanged.\n")
    (wiki / "raw" / "docs" / "deployment.md").unlink()
    edited = wiki / "wiki" / "docs" / "agents.md"
    edited.write_text(edited.read_text() + "\nmine\n")


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[Any, ...]]:
    """Count the calls of `owner.name` from now on, each with its arguments."""
    calls: list[tuple[Any, ...]] = []
    real: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls
