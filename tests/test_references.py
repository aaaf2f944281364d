"""How central an article is (references.py): what counts as a reference, and how the count
reorders pages the text finds about equally good, kept in step article by article."""

from __future__ import annotations

import json
from pathlib import Path

from skillwiki import references
from tests.support import Invoke, hit_names, write


def test_what_counts_as_a_reference() -> None:
    links = [
        ("inline", "../tools/rsync.md#options"),
        ("reference", "tar.md"),
        ("inline", "https://example.org/a.md"),
        ("inline", "#local"),
        ("inline", "/absolute.md"),
        ("inline", "../../outside.md"),
        ("image", "diagram.md"),
        ("inline", "picture.png"),
        ("wikilink", "Git Rebase|rebasing#steps"),
        ("inline", "self.md"),
    ]
    mentions = ["curl", "Self", "CURL", "--"]
    found = references.refs(links, mentions, "docs/self.md", "The Self")
    assert found == ("k:curl", "k:gitrebase", "p:docs/tar.md", "p:tools/rsync.md")


def test_an_article_is_known_by_its_path_file_name_and_title() -> None:
    assert references.names("docs/git-rebase.md", "Git rebase") == (
        "p:docs/git-rebase.md",
        "k:gitrebase",
    )
    assert references.names("docs/a.txt.md", "重试策略") == ("p:docs/a.txt.md", "k:a", "k:重试策略")


def test_inbound_counts_distinct_other_articles() -> None:
    pairs = [("k:a", 2), ("p:a.md", 2), ("k:a", 3), ("k:a", 1), ("k:b", 4)]
    wanted = {1: ("p:a.md", "k:a"), 4: ("k:c",)}
    assert references.inbound(pairs, wanted) == {1: 2, 4: 0}  # 2 twice is once; 1 is itself
    assert references.boost(0) == 1.0 < references.boost(1) < references.boost(10) < 1.5


def test_a_page_others_refer_to_ranks_first_and_follows_every_change(
    demo: Path, invoke: Invoke
) -> None:
    raw = demo / ".wiki" / "raw" / "docs"
    same = "Cross the zebra crossing only when the light is green.\n"
    write(raw / "alpha.md", f"# Alpha\n\n{same}")
    write(raw / "beta.md", f"# Beta\n\n{same}")
    assert hit_names(invoke, demo, "zebra crossing")[:2] == ["alpha.md", "beta.md"]  # a tie
    write(raw / "notes.md", "# Notes\n\nSee `beta` first.\n")
    assert hit_names(invoke, demo, "zebra crossing")[:2] == ["beta.md", "alpha.md"]
    write(raw / "more.md", "# More\n\nRead [alpha](alpha.md) and [[Alpha]], and `alpha`.\n")
    write(raw / "again.md", "# Again\n\nSee [the first](alpha.md).\n")
    assert hit_names(invoke, demo, "zebra crossing")[:2] == ["alpha.md", "beta.md"]  # 2 against 1
    (raw / "more.md").unlink()
    (raw / "again.md").write_text("# Again\n\nNothing here.\n")
    assert hit_names(invoke, demo, "zebra crossing")[:2] == ["beta.md", "alpha.md"]
    # The prior reorders equals only: a page that matches the words better stays first.
    write(raw / "gamma.md", "# Zebra crossing\n\nZebra crossing, zebra crossing.\n")
    assert hit_names(invoke, demo, "zebra crossing")[0] == "gamma.md"


def test_explain_says_what_ranked_each_hit(demo: Path, invoke: Invoke) -> None:
    raw = demo / ".wiki" / "raw" / "docs"
    write(raw / "beta.md", "# Beta\n\nZebra crossings and the green light.\n")
    write(raw / "notes.md", "# Notes\n\nSee `beta` and [beta](beta.md).\n")
    plain = json.loads(invoke("query", "-w", str(demo), "zebra green", "--json").stdout)
    assert "signals" not in plain["results"][0]  # the plain output keeps its shape
    explained = invoke("query", "-w", str(demo), "zebra green", "--json", "--explain")
    first = json.loads(explained.stdout)["results"][0]
    assert first["path"].endswith("/beta.md")
    signals = first["signals"]
    assert signals["words"] == 2 and signals["near"] == 2 and signals["referred_by"] == 1
    assert signals["boost"] == round(references.boost(1), 4) and signals["bm25"] > 0
    assert {k: v for k, v in first.items() if k != "signals"} == plain["results"][0]
    text = invoke("query", "-w", str(demo), "zebra green", "--explain").stdout
    assert "ranked by: 2 of the query's words (2 close together), BM25 " in text
    assert "referred to by 1" in text


def test_a_code_span_refers_to_the_names_it_starts_with(demo: Path, invoke: Invoke) -> None:
    from skillwiki import markdown

    text = 'Run `tail -f app.log`, then `git commit -m "fix"` or `rsync`.\n\n```\ncat x\n```\n'
    names = [name for name, _ in markdown.analyze(text).mentions]
    assert names == ["tail", "git", "git commit", "rsync"]  # not `tail -f`, nor code blocks
    assert references.refs([], names, "notes.md", "Notes") == (
        "k:git",
        "k:gitcommit",
        "k:rsync",
        "k:tail",
    )
    raw = demo / ".wiki" / "raw" / "tools"
    write(raw / "tail.md", "# tail\n\nFollow the end of a growing file.\n")
    write(raw / "git-commit.md", "# git commit\n\nRecord the staged changes: follow a file.\n")
    write(raw / "notes.md", '# Notes\n\nRun `tail -f app.log`, then `git commit -m "x"`.\n')
    result = invoke("query", "-w", str(demo), "follow file", "--json", "--explain")
    found = {
        hit["path"].rsplit("/", 1)[-1]: hit["signals"]["referred_by"]
        for hit in json.loads(result.stdout)["results"]
    }
    assert found["tail.md"] == 1 and found["git-commit.md"] == 1
