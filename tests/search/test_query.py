from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from skillwiki.search import hits, rank
from skillwiki.search.terms import query_terms
from skillwiki.search.vectors import Nearest
from tests.support import Invoke, write


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


def test_chinese_pairs_of_one_run_are_not_a_phrase_boost() -> None:
    """A CJK run's overlapping pairs are its words, not neighbouring words: no phrase boost of
    two of them (three characters as written), while their NEAR and a phrase across a space
    or across scripts stay."""
    terms, boosts = query_terms("同步两个目录")
    assert terms == ['"同步"', '"步两"', '"两个"', '"个目"', '"目录"']
    assert boosts == ['NEAR("同步" "步两" "两个" "个目" "目录", 10)']
    assert query_terms("安装 Python 包")[1][:2] == ['"安装 python"', '"python 包"']
    assert query_terms("同步 目录")[1] == ['"同步 目录"']
    assert query_terms("merge two branches")[1][:2] == ['"merge two"', '"two branches"']


def _snippets(ws: Path, invoke: Invoke, page: str, text: str, *queries: str) -> list[str]:
    """The first hit's snippet for each query, after ingesting one page of `text`."""
    write(ws / page, text)
    assert invoke("ingest", "-w", str(ws), str(ws / page)).exit_code == 0
    return [_query(invoke, ws, query)["results"][0]["snippet"] for query in queries]


@pytest.mark.parametrize(
    "signals",
    [
        None,
        hits.Signals(2, 3.25, 4, 1.1, near=2),
        hits.Signals(0, 0.0, 0, 1.0, fused=True, semantic_rank=3, similarity=0.61),
    ],
)
def test_a_hit_s_json_is_its_fields_in_order(signals: hits.Signals | None) -> None:
    """`to_json` builds the dict itself (asdict deep-copies): the same keys, order and values."""
    from dataclasses import asdict

    hit = hits.Hit(".wiki/wiki/a.md", "A", "document", 2.5, "a **b**", signals)
    whole = asdict(hit)  # the signals as a named tuple's fields, not a list of values
    whole["signals"] = None if signals is None else signals._asdict()
    del whole["copies"]  # shown only where a hit has any
    assert json.dumps(hit.to_json(explain=True)) == json.dumps(whole)
    del whole["signals"]
    assert json.dumps(hit.to_json()) == json.dumps(whole)


def test_equal_fused_scores_go_by_the_text_ranking() -> None:
    """A page found by meaning alone, first there, scores as the text ranking's first that is
    not among the nearest (the one page holding a rare word): the text ranking decides, not
    the path; at each tie after it, the text ranking's page comes first again."""
    ranked = [
        rank.Ranked(1.9, "z/rare.md", "Rare", "document", 7),
        rank.Ranked(1.5, "z/also.md", "Also", "document", 8),
    ]
    near = [
        Nearest(3, 0.8, "a/alike.md", "Alike", "document"),
        Nearest(4, 0.7, "a/near.md", "Near", "document"),
    ]

    def signals_of(rowid: int) -> hits.Signals:
        return hits.Signals(1, 1.0, 0, 1.0)

    fused = rank.fuse(ranked, [(rank.Extra.WORDS, near)], 10, signals_of)
    assert [row.path for row in fused] == ["z/rare.md", "a/alike.md", "z/also.md", "a/near.md"]
    assert (
        fused[0].score == fused[1].score and fused[2].score == fused[3].score
    )  # ties, each of them


def test_a_snippet_is_text_not_an_anchor(ws: Path, invoke: Invoke) -> None:
    """Books put an anchor before each heading, its id made of the heading's words: that line
    of tags alone is not shown as the snippet, the text is (both ways of finding it agree)."""
    text = (
        '# Threads\n\n<a id="share-data-between-threads"></a>\n\n## Sharing\n\n'
        "To share data between threads, wrap it in a mutex.\n"
    )
    assert _snippets(ws, invoke, "book/threads.md", text, "share data between threads") == [
        "To **share** **data** **between** **threads**, wrap it in a mutex."
    ]


def test_a_snippet_marks_words_inside_the_texts_own_bold(ws: Path, invoke: Invoke) -> None:
    """The text's own `**` are dropped from the snippet: a mark inside them would nest."""
    text = "# Kinds\n\nIt decides if it is a **single page** or a list.\n"
    assert _snippets(ws, invoke, "notes/kinds.md", text, "single page") == [
        "It decides if it is a **single** **page** or a list."
    ]


def test_a_snippet_shows_the_line_with_most_of_the_query_s_words(ws: Path, invoke: Invoke) -> None:
    """A word met in three forms counts once: the line that holds two of the query's words is
    shown, not the one that says "update" three ways."""
    text = (
        "# Updates\n\n* Copy the model, updating it with the partial updates (`update`).\n\n"
        "To update an item, send only its changed fields.\n"
    )
    assert _snippets(ws, invoke, "notes/updates.md", text, "update an item") == [
        "To **update** an **item**, send only its changed fields."
    ]


def test_a_snippet_is_not_a_code_fence_s_marker_line(ws: Path, invoke: Invoke) -> None:
    """A fence's info string (a file name, a language) is markup: the snippet is the line of
    code (or text) after it that holds the word, though the marker line comes first."""
    text = (
        "# Pipelines\n\nSet the job up.\n\n"
        '```yaml title=".gitlab-ci.yml"\nscript: uv sync --locked  # in ci\n```\n\n'
        "~~~ ci\nci: true\n~~~\n"
    )
    assert _snippets(ws, invoke, "notes/pipelines.md", text, "ci") == [
        "script: uv sync --locked  # in **ci**"
    ]


def test_a_snippet_shows_a_heading_s_text_without_its_marks(ws: Path, invoke: Invoke) -> None:
    """A heading line is shown as its text: `#` marks, opening and closing, are markup."""
    text = (
        "# Publishing\n\nRead this first.\n\n#### Publishing to a private repository\n\n"
        "Set the token.\n\n### Mirrors of a **private** index ###\n\nUse C# or not.\n\n"
        "## Tokens for a private index { #private-tokens }\n"
    )
    queries = ("private repository", "mirrors private", "publishing private", "private tokens")
    assert _snippets(ws, invoke, "notes/publish.md", text, *queries) == [
        "Publishing to a **private** **repository**",
        "**Mirrors** of a **private** index",
        "**Publishing** to a **private** repository",
        "**Tokens** for a **private** index",
    ]


def test_a_snippet_comes_from_anywhere_in_a_long_page(ws: Path, invoke: Invoke) -> None:
    """A one-word query reads each hit whole for its snippet: the line may be at the end of a
    page far longer than one read of the file."""
    filler = "".join(f"Line {number} of the changelog says nothing.\n" for number in range(4000))
    text = f"# Changelog\n\n{filler}\nThe axolotl release closes it.\n"
    assert len(text.encode()) > 1 << 17
    assert _snippets(ws, invoke, "notes/changelog.md", text, "axolotl") == [
        "The **axolotl** release closes it."
    ]


def test_a_snippet_of_a_long_line_shows_no_word_cut(ws: Path, invoke: Invoke) -> None:
    """A line longer than a snippet is cut about a third of its width before the first of the
    query's words, and a width after: each end at a space, so no word is shown in part (the
    cut fell mid-word: "…nd call was refused"). Where no space is near (a long address), the
    line is cut where it falls."""
    words = " ".join(f"word{number}" for number in range(60))
    text = f"# Long\n\n{words} the axolotl {words}\n\n{'x' * 300} okapi {'y' * 300}\n"
    shown, unspaced = _snippets(ws, invoke, "notes/long.md", text, "axolotl", "okapi")
    assert shown.startswith("…word") and shown.endswith("…") and "**axolotl**" in shown
    inner = shown.removeprefix("…").removesuffix("…")
    assert f" {inner} " in f" {words} the axolotl {words} ".replace("axolotl", "**axolotl**")
    assert len(inner) <= 160
    assert unspaced == "…" + "x" * 52 + " **okapi** " + "y" * 101 + "…"


def test_a_page_found_by_a_word_no_mark_can_go_on_shows_its_first_line(
    ws: Path, invoke: Invoke
) -> None:
    """The index finds "tools" in `allowedTools` (cut at its camel-case break), where a mark
    cannot go: the hit shows the page's first line of text, as one found by meaning alone
    does, not an empty snippet."""
    text = "# Gateway\n\nThe gateway checks each call.\n\nSee `allowedTools` below.\n"
    assert _snippets(ws, invoke, "notes/gateway.md", text, "tools") == [
        "The gateway checks each call."
    ]


def test_a_snippet_marks_the_words_the_index_matched(ws: Path, invoke: Invoke) -> None:
    """The index stems words (SQLite's porter): "substitutions" finds "substituted", so the
    snippet marks it there, where a fixed cut of the word marked nothing and the hit showed
    no snippet. A word is not marked by a longer one it begins (kubectl is not kubernetes;
    "tar" finds neither "target" nor "tarball"), save the query's last word, which the index
    also matches by its start; a word split at `_` or at a camel-case break is marked by its
    first part, as the index finds it."""
    text = (
        "# Links\n\nVariables are substituted for the parts of the link.\n\n"
        "Kubernetes runs it; kubectl applies it.\n\n"
        "Pack files with tar into the target folder, or make a tarball.\n\n"
        "Set the TarOptions and tar_path.\n"
    )
    queries = ("substitutions", "kubectl", "tar files", "files tar", "tar set")
    assert _snippets(ws, invoke, "notes/links.md", text, *queries) == [
        "Variables are **substituted** for the parts of the link.",
        "Kubernetes runs it; **kubectl** applies it.",
        "Pack **files** with **tar** into the target folder, or make a tarball.",
        "Pack **files** with **tar** into the **target** folder, or make a **tarball**.",
        "**Set** the **TarOptions** and **tar_path**.",
    ]


def test_a_snippet_finds_words_whose_letters_are_marked_and_shows_them_as_written(
    ws: Path, invoke: Invoke
) -> None:
    """Pages mark a letter inside a word (`[d]elete`, `E[x]tract`, `Lis[t]`) and the index
    finds the word: the snippet finds it too, in the line that holds the most of the query's
    words, and shows the line as written, each word marked whole; code such as `v[0]` stays
    as it is."""
    text = (
        "# Sed\n\n- Print the lines of a file, as v[0] does:\n\n"
        "- [d]elete lines 1 to 5 of a file:\n\n- E[x]tract the archive, then Lis[t] it:\n"
    )
    queries = ("delete lines", "extract archive", "list archive", "print lines")
    assert _snippets(ws, invoke, "notes/sed.md", text, *queries) == [
        "- **[d]elete** **lines** 1 to 5 of a file:",
        "- **E[x]tract** the **archive**, then Lis[t] it:",
        "- E[x]tract the **archive**, then **Lis[t]** it:",
        "- **Print** the **lines** of a file, as v[0] does:",
    ]


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
    pasted = " ".join(f"zq{number}" for number in range(30000))  # a log pasted whole
    none = invoke("query", "-w", str(demo), pasted)
    assert none.exit_code == 0
    assert none.stdout == f"No results for {pasted[:79] + '…'!r}.\n"  # quoted in part


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


def _settle(root: Path) -> None:
    """Date every file and folder of the wiki well in the past, as in a long-lived checkout."""
    past = time.time_ns() - 3600 * 10**9
    for path in (root / ".wiki").rglob("*"):
        if ".cache" not in path.parts:
            os.utime(path, ns=(past, past))


def test_article_replaced_by_hand_is_searchable_at_once(demo: Path, invoke: Invoke) -> None:
    # git, editors that save safely, and skillwiki itself replace a file by renaming over it
    _settle(demo)
    _query(invoke, demo, "deploy")
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    replacement = article.with_name("ci.md.new")
    replacement.write_text(article.read_text() + "\nplatypus\n")
    os.replace(replacement, article)
    assert _query(invoke, demo, "platypus")["results"][0]["path"] == ".wiki/wiki/docs/ci.md"


def _edit_in_place_after_a_query(demo: Path, invoke: Invoke, text: str) -> Path:
    """Settle the demo, query it, then append to a compiled article in place (same inode)."""
    _settle(demo)
    _query(invoke, demo, "deploy")
    article = demo / ".wiki" / "wiki" / "docs" / "ci.md"
    with article.open("a") as handle:
        handle.write(text)
    return article


def test_article_edited_in_place_is_searchable_after_compile(demo: Path, invoke: Invoke) -> None:
    _edit_in_place_after_a_query(demo, invoke, "\nplatypus\n")
    assert invoke("compile", "-w", str(demo)).exit_code == 0
    assert _query(invoke, demo, "platypus")["results"][0]["path"] == ".wiki/wiki/docs/ci.md"


def test_query_never_overwrites_an_article_edited_in_place(demo: Path, invoke: Invoke) -> None:
    article = _edit_in_place_after_a_query(demo, invoke, "\nA note of my own.\n")
    edited = article.read_bytes()
    with (demo / ".wiki" / "raw" / "docs" / "ci.md").open("a") as handle:
        handle.write("\nA change to the source.\n")
    report = _query(invoke, demo, "deploy")
    assert article.read_bytes() == edited
    assert report["refreshed"] == 0
    status = invoke("status", "-w", str(demo), "--json")
    states = {f["article"]: f["state"] for f in json.loads(status.stdout)["files"]}
    assert states[".wiki/wiki/docs/ci.md"] == "edited"


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


def test_the_index_kept_in_step_folder_by_folder_equals_one_built_anew(
    demo: Path, invoke: Invoke
) -> None:
    _settle(demo)
    _query(invoke, demo, "deploy")
    raw = demo / ".wiki" / "raw"
    with (raw / "docs" / "ci.md").open("a") as handle:
        handle.write("\nThe wombat checks the pipeline.\n")
    write(raw / "notes" / "wombat.md", "# Wombat\n\nA wombat note, new.\n")
    lesson = next((raw / "lessons").glob("*.md"))
    lesson.unlink()
    kept = _query(invoke, demo, "wombat pipeline")
    assert {hit["path"] for hit in kept["results"]} == {
        ".wiki/wiki/docs/ci.md",
        ".wiki/wiki/notes/wombat.md",
    }
    gone = f".wiki/wiki/lessons/{lesson.name}"
    assert all(hit["path"] != gone for hit in _query(invoke, demo, "tool")["results"])
    answers = [_query(invoke, demo, text) for text in ("wombat", "deploy", "tool retry", "重试")]
    for name in ("search.sqlite", "search.sqlite-wal", "search.sqlite-shm"):
        (demo / ".wiki" / ".cache" / name).unlink(missing_ok=True)
    assert [_query(invoke, demo, text) for text in ("wombat", "deploy", "tool retry", "重试")] == [
        {**answer, "refreshed": 0} for answer in answers
    ]


def test_a_big_folder_is_kept_in_step_bucket_by_bucket(ws: Path, invoke: Invoke) -> None:
    from skillwiki import statcache

    assert statcache.bucket_of("notes.txt", 8) == statcache.bucket_of("notes.txt.md", 8)
    raw = ws / ".wiki" / "raw" / "big"
    for number in range(statcache.BUCKET_FILES + 100):
        write(
            raw / f"page-{number:04d}.md",
            f"# Page {number}\n\nPlain text, marker m{number:04d}x.\n",
        )
    write(raw / "notes.txt", "Notes kept as text.\n")
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    _settle(ws)
    _query(invoke, ws, "plain text")
    with (raw / "page-0007.md").open("a") as handle:
        handle.write("\nThe numbat was here.\n")
    (raw / "page-0008.md").unlink()
    wiki = ws / ".wiki" / "wiki" / "big"
    replacement = wiki / "page-0009.md.new"
    replacement.write_text((wiki / "page-0009.md").read_text() + "\nA quoll, by hand.\n")
    os.replace(replacement, wiki / "page-0009.md")
    assert [hit["path"] for hit in _query(invoke, ws, "numbat")["results"]] == [
        ".wiki/wiki/big/page-0007.md"
    ]
    assert [hit["path"] for hit in _query(invoke, ws, "quoll")["results"]] == [
        ".wiki/wiki/big/page-0009.md"
    ]
    assert _query(invoke, ws, "m0008x")["results"] == []
    assert [hit["path"] for hit in _query(invoke, ws, "m0010x")["results"]] == [
        ".wiki/wiki/big/page-0010.md"
    ]
    status = json.loads(invoke("status", "-w", str(ws), "--json").stdout)
    assert status["totals"] == {
        "fresh": statcache.BUCKET_FILES + 99,
        "new": 0,
        "stale": 0,
        "orphan": 0,
        "edited": 1,
    }
    answers = [_query(invoke, ws, text, "--limit", "50") for text in ("page", "text", "notes")]
    for name in ("search.sqlite", "search.sqlite-wal", "search.sqlite-shm"):
        (ws / ".wiki" / ".cache" / name).unlink(missing_ok=True)
    assert [_query(invoke, ws, text, "--limit", "50") for text in ("page", "text", "notes")] == [
        {**answer, "refreshed": 0} for answer in answers
    ]


def test_a_big_folder_s_rows_are_read_whole_only_when_an_article_went(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit in a big folder the sync reads the rows of the articles looked at, by
    path, and counts the rest: they are in step. Only when an article went does it read the
    folder's rows (to find which), and the article leaves the index."""
    from skillwiki import statcache
    from skillwiki.search import differences

    raw = ws / ".wiki" / "raw" / "big"
    for number in range(statcache.BUCKET_FILES + 100):
        write(raw / f"page-{number:04d}.md", f"# Page {number}\n\nMarker m{number:04d}x.\n")
    # Rows below the folder, which its own count leaves out: a subfolder, and one reached
    # through a folder that holds no file of its own.
    write(raw / "sub" / "inner.md", "# Inner\n\nMarker one.\n")
    write(raw / "sub" / "deeper" / "inner.md", "# Deeper\n\nMarker two.\n")
    write(raw / "empty" / "only" / "inner.md", "# Only\n\nMarker three.\n")
    assert invoke("compile", "-w", str(ws)).exit_code == 0
    _settle(ws)
    _query(invoke, ws, "marker")
    read_whole: list[str] = []
    whole = differences.gone_rows

    def spy(db: Any, folder: str, *rest: Any) -> dict[str, str]:
        read_whole.append(folder)
        return whole(db, folder, *rest)

    monkeypatch.setattr(differences, "gone_rows", spy)
    with (raw / "page-0007.md").open("a") as handle:
        handle.write("\nThe numbat was here.\n")
    assert [hit["path"] for hit in _query(invoke, ws, "numbat")["results"]] == [
        ".wiki/wiki/big/page-0007.md"
    ]
    assert read_whole == []
    (raw / "page-0008.md").unlink()
    assert _query(invoke, ws, "m0008x")["results"] == []
    assert read_whole == ["big/"]


def test_a_folder_s_own_rows_are_counted_without_those_below_it() -> None:
    """The count a sync compares is of the rows right in a folder, not in its subfolders
    (those of today counted off, at any depth, whatever folder leads to them); a subfolder
    not among today's folders leaves rows over, and the folder is read whole."""
    import sqlite3

    from skillwiki.search.differences import MAX_SUBFOLDERS, rows_in
    from skillwiki.search.schema import create_schema

    db = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(db)
    paths = [f"big/p{n}.md" for n in range(30)] + [
        "big/sub/a.md",
        "big/sub/b.md",
        "big/sub/deep/c.md",
        "big/empty/only/d.md",
        "big-other/e.md",
        "big.md",
        "bigger/f.md",
    ]
    for path in paths:
        db.execute(
            "INSERT INTO docs(path, stamp, title, type, status, tags, packed)"
            " VALUES (?, '', '', '', '', '', x'')",
            (path,),
        )
    folders = ["", "big/", "big/sub/", "big/sub/deep/", "big/empty/only/", "big-other/", "bigger/"]
    assert rows_in(db, "big/", folders) == 30
    assert rows_in(db, "big/sub/", folders) == 2
    assert rows_in(db, "", folders) == 1
    # big/empty/only/ gone from today's folders: its row is left over
    assert rows_in(db, "big/", [f for f in folders if "empty" not in f]) == 31
    many = [f"big/s{n}/" for n in range(MAX_SUBFOLDERS + 1)]
    assert rows_in(db, "big/", [*folders, *many]) == 30


def _found(invoke: Invoke, demo: Path, text: str) -> list[str]:
    result = invoke("query", "-w", str(demo), text, "--json")
    assert result.exit_code == 0, result.output
    return [hit["path"].rsplit("/", 1)[-1] for hit in json.loads(result.stdout)["results"]]


def test_words_are_found_in_every_inflection(demo: Path, invoke: Invoke) -> None:
    """The index and the queries stem words alike (FTS5's Porter stemmer): deploy, deploys,
    deployed, deploying and deployment find the same page."""
    for text in ("deploy", "deploys", "deployed", "deploying", "deployment"):
        assert _found(invoke, demo, text)[0] == "deployment.md", text


def test_identifiers_are_found_by_their_words(demo: Path, invoke: Invoke) -> None:
    write(
        demo / ".wiki" / "raw" / "docs" / "naming.md",
        "# Naming\n\nThe HTTPServer calls getUserName; max_retry_count is read by "
        "git-rebase-helper.\n",
    )
    for text in (
        "HTTPServer",
        "http server",
        "getUserName",
        "get user name",
        "max_retry_count",
        "retry count",
        "git-rebase-helper",
        "rebase helper",
    ):
        assert _found(invoke, demo, text)[0] == "naming.md", text
    assert "naming.md" not in _found(invoke, demo, "userserver")  # no made-up joins


def test_stop_words_never_empty_a_query(demo: Path, invoke: Invoke) -> None:
    write(demo / ".wiki" / "raw" / "docs" / "who.md", "# The Who\n\nWho are they?\n")
    assert _found(invoke, demo, "who")[0] == "who.md"  # only stop words: all are kept
    assert _found(invoke, demo, "the who")[0] == "who.md"
    # and the snippet shows them, marked, as it shows the words of any other query
    result = invoke("query", "-w", str(demo), "the who", "--json")
    assert json.loads(result.stdout)["results"][0]["snippet"] == "**Who** are they?"
    # With other words beside them, stop words are left out: "how" alone matches nothing here.
    assert _found(invoke, demo, "how do we deploy")[0] == "deployment.md"


def test_the_index_syncs_to_disk_at_checkpoints_not_at_each_commit(demo: Path) -> None:
    """The search index is made from the articles, and a sync's transaction names what it
    synced to: it is written in WAL mode with synchronous=NORMAL (a commit's fsync was 1 ms of
    the look after a change), which a killed process still leaves whole (tests/compiler/test_crash.py)."""
    import sqlite3
    from contextlib import closing

    from skillwiki.search import index
    from skillwiki.workspace import find_workspace

    path = index.index_path(find_workspace(demo))
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        index.prepare_connection(db)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA synchronous").fetchone() == (1,)


def test_what_an_apostrophe_leaves_of_a_word_is_no_query_word() -> None:
    """A query's "isn't" and "user's" are cut at the apostrophe, as the index cuts them: the
    "t" and "s" they leave are on most pages, and a page was ranked for holding "don't"."""
    from skillwiki.search import query_terms

    assert query_terms("why isn't the user's key set") == query_terms("why is the user key set")
    assert query_terms("we'll see, they've gone") == query_terms("we see, they gone")
    assert query_terms("don't") == (['"don"', '"t"'], ['"don t"'])  # nothing else: all kept


def test_a_query_of_one_stop_word_repeated_is_that_word_once() -> None:
    """A query of stop words alone keeps them, each once: 400 repeats of "the" (a pasted log)
    made 400 terms and 399 phrases, and took 14 s where one takes milliseconds."""
    from skillwiki.search import query_terms

    assert query_terms("the " * 400) == query_terms("the")
    assert query_terms("a the a the") == query_terms("a the")
