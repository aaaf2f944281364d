"""How central an article is (references.py): what counts as a reference, and how the count
reorders pages the text finds about equally good, kept in step article by article."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from skillwiki import search
from skillwiki.markdown import references
from skillwiki.search import sync
from skillwiki.workspace import find_workspace
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
    assert found == ("k:absolute", "k:curl", "k:gitrebase", "p:docs/tar.md", "p:tools/rsync.md")


def test_a_link_to_a_site_address_refers_to_the_page_it_names() -> None:
    """Sites link their pages by address (Astro, Hugo, Docusaurus by path, mdBook by its
    .html): the last part names the page, as the site serves it from its file's name."""
    links = [
        ("inline", "/en/guides/content-collections/"),
        ("inline", "../deploy/netlify/#options"),
        ("reference", "ch03-02-data-types.html"),
        ("inline", "/docs/tar.md?plain=1"),
        ("inline", "/en/guides/deploy/"),
        ("inline", "/img/logo.svg"),  # a file, not a page
        ("inline", "../../raw/docs/oncall.txt"),  # an article's raw source
        ("inline", "../../raw/docs/notes.md"),
        ("inline", "/en/reference/index.html"),  # names its folder's page
        ("inline", "//cdn.example.org/x/"),
        ("inline", "mailto:team@example.org"),
        ("inline", "/en/self/"),  # the page itself
    ]
    found = references.refs(links, [], "docs/self.md", "Self")
    assert found == ("k:ch0302datatypes", "k:contentcollections", "k:deploy", "k:netlify", "k:tar")


def test_an_article_is_known_by_its_path_file_name_and_title() -> None:
    assert references.names("docs/git-rebase.md", "Git rebase") == (
        "p:docs/git-rebase.md",
        "k:gitrebase",
    )
    assert references.names("docs/a.txt.md", "重试策略") == ("p:docs/a.txt.md", "k:a", "k:重试策略")


def _counted_from_refs(db: sqlite3.Connection) -> dict[int, int]:
    """Each article's inbound count worked out from the references kept, by its names: the
    distinct other articles referring to one of them (none: left out)."""
    by_key: dict[str, set[int]] = {}
    for key, source in db.execute("SELECT key, src FROM refs"):
        by_key.setdefault(key, set()).add(source)
    counts = {}
    for doc, path, title in db.execute("SELECT id, path, title FROM docs"):
        names = references.names(path, title)
        sources = set().union(*(by_key.get(name, set()) for name in names)) - {doc}
        if sources:
            counts[doc] = len(sources)
    return counts


@pytest.mark.parametrize("bulk", [False, True], ids=["article by article", "all at once"])
def test_the_index_keeps_each_inbound_count_in_step(
    demo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, bulk: bool
) -> None:
    """The counts the index keeps equal those the references give after every kind of change:
    an article that comes, one whose references change, one retitled, one gone, one renamed;
    counted for the articles a change can move, or (a bulk sync) for all."""
    if bulk:
        monkeypatch.setattr(sync, "OPTIMIZE_AFTER", 1)
    raw = demo / ".wiki" / "raw" / "docs"
    steps: list[Callable[[], object]] = [
        lambda: write(raw / "alpha.md", "# Alpha\n\nThe first.\n"),
        lambda: write(raw / "beta.md", "# Beta\n\nSee `alpha` and [[Alpha]].\n"),
        lambda: write(raw / "notes.md", "# Notes\n\nRead [beta](beta.md), then `alpha`.\n"),
        lambda: write(raw / "notes.md", "# Notes\n\nRead [beta](beta.md) only.\n"),
        lambda: write(raw / "alpha.md", "# Gamma\n\nThe first, renamed.\n"),
        lambda: write(raw / "more.md", "# More\n\n`gamma` and `beta`, and `beta` again.\n"),
        lambda: (raw / "beta.md").unlink(),
        lambda: (raw / "notes.md").rename(raw / "notes-2.md"),
    ]
    seen = []
    for step in steps:
        step()
        assert invoke("query", "-w", str(demo), "first").exit_code == 0
        with closing(sqlite3.connect(search.index_path(find_workspace(demo, demo)))) as db:
            kept = dict(db.execute("SELECT id, inbound FROM prior"))
            assert kept == _counted_from_refs(db)
            seen.append(
                {path: kept.get(doc, 0) for doc, path in db.execute("SELECT id, path FROM docs")}
            )
    assert seen[2]["docs/alpha.md"] == 2 and seen[3]["docs/alpha.md"] == 1  # beta, then notes
    assert seen[5]["docs/beta.md"] == 2 and "docs/beta.md" not in seen[6]
    assert seen[6]["docs/alpha.md"] == 1  # by its new title, from more.md


def test_the_boost_grows_slowly_with_the_count() -> None:
    assert references.boost(0) == 1.0 < references.boost(1) < references.boost(10) < 1.5


def _two_equal_pages(demo: Path, invoke: Invoke) -> Path:
    """Pages alpha and beta, which the text finds equally good (a tie, by path); their
    raw folder."""
    raw = demo / ".wiki" / "raw" / "docs"
    same = "Cross the zebra crossing only when the light is green.\n"
    write(raw / "alpha.md", f"# Alpha\n\n{same}")
    write(raw / "beta.md", f"# Beta\n\n{same}")
    assert hit_names(invoke, demo, "zebra crossing")[:2] == ["alpha.md", "beta.md"]
    return raw


def test_a_page_others_refer_to_ranks_first_and_follows_every_change(
    demo: Path, invoke: Invoke
) -> None:
    raw = _two_equal_pages(demo, invoke)
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


def test_a_page_named_by_a_site_address_ranks_first(demo: Path, invoke: Invoke) -> None:
    raw = _two_equal_pages(demo, invoke)
    write(raw / "guide.md", "# Guide\n\nRead [the beta page](/en/docs/beta/) first.\n")
    assert hit_names(invoke, demo, "zebra crossing")[:2] == ["beta.md", "alpha.md"]


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
