from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Invoke, write


def _query(invoke: Invoke, root: Path, *args: str) -> dict:
    result = invoke("query", "-w", str(root), *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_query_json_shape_and_ranking(demo: Path, invoke: Invoke) -> None:
    report = _query(invoke, demo, "tool failure retry")
    assert list(report) == ["query", "refreshed", "results"]
    assert report["query"] == "tool failure retry" and report["refreshed"] == 0
    first = report["results"][0]
    assert list(first) == ["path", "title", "type", "score", "snippet"]
    assert first["path"].startswith(".wiki/wiki/")
    paths = [hit["path"] for hit in report["results"][:3]]
    assert ".wiki/wiki/docs/tool-calls.md" in paths
    scores = [hit["score"] for hit in report["results"]]
    assert scores == sorted(scores, reverse=True)
    assert "**" in first["snippet"]


def test_query_finds_chinese_by_bigram(demo: Path, invoke: Invoke) -> None:
    report = _query(invoke, demo, "重试")
    assert report["results"][0]["path"] == ".wiki/wiki/docs/重试策略.md"
    assert "**重试**" in report["results"][0]["snippet"]


def test_query_filters_by_type_and_tag(demo: Path, invoke: Invoke) -> None:
    lessons = _query(invoke, demo, "retry", "--type", "lesson")
    assert lessons["results"] and all(hit["type"] == "lesson" for hit in lessons["results"])
    tagged = _query(invoke, demo, "retry", "--tag", "backoff")
    assert [hit["path"] for hit in tagged["results"]] == [".wiki/wiki/docs/retry-policy.md"]


def test_query_limit_and_no_hits(demo: Path, invoke: Invoke) -> None:
    assert len(_query(invoke, demo, "agent", "--limit", "2")["results"]) == 2
    none = invoke("query", "-w", str(demo), "zzzyyyxxx")
    assert none.exit_code == 0
    assert none.stdout == "No results for 'zzzyyyxxx'.\n"


def test_query_refreshes_first_and_never_returns_raw(demo: Path, invoke: Invoke) -> None:
    write(demo / ".wiki" / "raw" / "docs" / "animal.md", "# Quokka\n\nThe quokka note.\n")
    report = _query(invoke, demo, "quokka")
    assert report["refreshed"] == 1
    assert [hit["path"] for hit in report["results"]] == [".wiki/wiki/docs/animal.md"]
    changed = demo / ".wiki" / "raw" / "docs" / "animal.md"
    changed.write_text("# Wombat\n\nNow about wombats.\n")
    assert _query(invoke, demo, "quokka")["results"] == []
    assert _query(invoke, demo, "wombat")["results"][0]["title"] == "Wombat"


def test_query_no_compile_searches_what_is_compiled(demo: Path, invoke: Invoke) -> None:
    write(demo / ".wiki" / "raw" / "docs" / "quokka.md", "# Quokka\n\nThe quokka note.\n")
    report = _query(invoke, demo, "quokka", "--no-compile")
    assert report == {"query": "quokka", "refreshed": 0, "results": []}
    assert not (demo / ".wiki" / "wiki" / "docs" / "quokka.md").exists()


def test_corrupt_or_missing_index_is_rebuilt_silently(demo: Path, invoke: Invoke) -> None:
    expected = _query(invoke, demo, "deploy")
    index = demo / ".wiki" / ".cache" / "search.sqlite"
    for name in ("search.sqlite-wal", "search.sqlite-shm"):
        (index.parent / name).unlink(missing_ok=True)
    index.write_bytes(b"this is not a database" * 100)
    result = invoke("query", "-w", str(demo), "deploy", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout) == expected
    index.unlink()
    assert _query(invoke, demo, "deploy") == expected


def test_hand_edited_article_is_searchable(demo: Path, invoke: Invoke) -> None:
    _query(invoke, demo, "deploy")
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    article.write_text(article.read_text() + "\nplatypus\n")
    assert _query(invoke, demo, "platypus")["results"][0]["path"] == ".wiki/wiki/docs/ci.md"


def test_query_text_output(demo: Path, invoke: Invoke) -> None:
    result = invoke("query", "-w", str(demo), "idempotency key", "--limit", "1")
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "1. Do not retry non-idempotent tool calls without an idempotency key  [lesson, "
    )
    assert (
        lines[1]
        == "   .wiki/wiki/lessons/2026-11-30-do-not-retry-non-idempotent-tool-calls-without-an.md"
    )
