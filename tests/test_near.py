"""The query's words a page holds close together (search/near.py), and how that ranks pages:
a long page that holds the words in different sections no longer outranks the page about
them, and reading only the candidates that can still rank among the best changes nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from skillwiki import search
from skillwiki.search import near, rank
from skillwiki.workspace import find_workspace
from tests.support import CORPORA, REPO, Invoke, write


def held(body: str, *roots: str) -> int:
    return near.held_near(body.encode(), roots)


def test_words_in_one_sentence_count_together_and_a_blank_line_parts_them() -> None:
    assert held("Send only the fields that changed to update an item.", "field", "updat") == 2
    assert held("Fields.\n\nThe rest.\n\nUpdate.", "field", "updat") == 1
    # A paragraph wrapped over lines is one block; a word 11 words on is out of reach.
    assert held("update the\nfields", "updat", "field") == 2
    assert held("update " + "x " * 10 + "fields", "updat", "field") == 1
    assert held("update " + "x " * 9 + "fields", "updat", "field") == 2
    # The most of them in any one place, not the most of each.
    body = "alpha beta\n\nalpha gamma delta\n\nbeta"
    assert held(body, "alpha", "beta", "gamma", "delta") == 3


def test_words_start_where_the_index_splits_them() -> None:
    assert held("call getUserName() once", "user", "name") == 2
    assert held("the user_name column", "user", "name") == 2
    assert held("the HTTPServer class", "http", "server") == 2
    assert held("usernames and filenames", "user", "name") == 1  # inside a word: not one
    assert held("Value and VALUE", "valu") == 1
    assert held("Écrire le fichier", "écri", "fichier") == 2  # capitalized beyond ASCII
    assert held("éfile file", "file") == 1
    assert held("café file", "caf", "file") == 2
    assert held("重试策略", "重试", "试策", "策略") == 3  # CJK: anywhere, overlapping


def test_the_compiler_s_sources_are_not_the_article() -> None:
    body = "Update it.\n\n## Sources\n- [raw/fields.md](../raw/fields.md) update fields\n"
    assert held(body, "updat", "field") == 1


def _order(invoke: Invoke, demo: Path, text: str) -> list[str]:
    result = invoke("query", "-w", str(demo), text, "--json", "--explain")
    assert result.exit_code == 0, result.output
    return [hit["path"].rsplit("/", 1)[-1] for hit in json.loads(result.stdout)["results"]]


def test_the_page_about_the_words_outranks_a_long_page_that_scatters_them(
    demo: Path, invoke: Invoke
) -> None:
    raw = demo / ".wiki" / "raw" / "docs"
    write(raw / "partial.md", "# Partial\n\nSend only the fields that changed to update an item.\n")
    sections = ["Update the index.", "Some say so.", "Fields are typed.", "An item is a row."]
    filler = " ".join(["More words about other things entirely."] * 20)
    write(raw / "log.md", "# Log\n\n" + "".join(f"{s} {filler}\n\n" for s in sections))
    assert _order(invoke, demo, "update some fields of an item")[:2] == ["partial.md", "log.md"]
    result = invoke("query", "-w", str(demo), "update some fields of an item", "--explain")
    assert "4 of the query's words (1 close together)" in result.stdout
    assert "3 of the query's words (3 close together)" in result.stdout


@pytest.mark.corpus
@pytest.mark.paths
def test_reading_only_the_candidates_that_may_rank_changes_nothing(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best `limit` hits are the same when every candidate's article is read: on the demo
    and, beside the corpora, fastapi's documentation and the evaluation queries."""
    raw = demo / ".wiki" / "raw"
    if CORPORA.is_dir():
        shutil.copytree(CORPORA / "docs" / "fastapi", raw / "fastapi")
    assert invoke("query", "-w", str(demo), "anything").exit_code == 0  # builds the index
    ws = find_workspace(demo, demo)
    db = sqlite3.connect(search.index_path(ws))
    queries = ["tool failure retry", "agents config", "deploy the app", "重试策略 配置"]
    for name in ("fastapi.tsv", "en.tsv"):
        lines = (REPO / "bench" / "eval" / name).read_text(encoding="utf-8").splitlines()
        queries += [line.split("\t")[0] for line in lines if line and not line.startswith("#")]

    def hits() -> list[list[tuple[rank.Hit, rank.Signals | None]]]:
        return [
            [(hit, hit.signals) for hit in rank.search(ws, query, limit=limit, db=db)]
            for query in queries
            for limit in (1, 3, 10)
        ]

    some = hits()
    closeness = rank._closeness
    monkeypatch.setattr(
        rank,
        "_closeness",
        lambda ws, rows, held, roots, limit, bodies: closeness(
            ws, rows, held, roots, len(rows) + 1, bodies
        ),
    )
    every = hits()
    db.close()
    assert [[hit for hit, _ in found] for found in some] == [
        [hit for hit, _ in found] for found in every
    ]
    # Signals agree too, but for the closeness of pages that were not looked at.
    for found, full in zip(some, every, strict=True):
        for (_, mine), (_, theirs) in zip(found, full, strict=True):
            assert mine is not None and theirs is not None
            assert mine.near is not None and mine == theirs
    assert sum(len(found) > 1 for found in every) >= 30
