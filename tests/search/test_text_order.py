"""The text ranking: the order by the query's words a page holds close together fused with the
order by BM25 (rank.text_order), so that a page with one line holding many of the words does
not pass the page about them on that alone; both places in `--explain`; the fused best the
same whether every candidate's article is read or only those that may be shown."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from skillwiki.search import hits, rank
from skillwiki.search.index import index_path
from skillwiki.search.vectors import Nearest
from skillwiki.workspace import find_workspace
from tests.support import Invoke, write


def _page(title: str, summary: str, *examples: tuple[str, str]) -> str:
    """A command's page as tldr writes it: a title, a summary, examples of use."""
    body = "".join(f"- {what}:\n\n`{command}`\n\n" for what, command in examples)
    return f"# {title}\n\n> {summary}\n\n{body}"


# Pages that hold none of the queries' words but "show" and "usage" apart, as most pages of a
# real wiki do: those two say little of a page.
FILLER = {
    f"{name}.md": _page(
        name,
        summary,
        (example, f"{name} {{{{path}}}}"),
        ("Show the version", f"{name} --version"),
        ("Print the usage", f"{name} --help"),
    )
    for name, summary, example in [
        ("ls", "List directory contents.", "List files one per line"),
        ("cp", "Copy files and directories.", "Copy a file to another location"),
        ("tar", "Archiving utility.", "Create an archive from files"),
        ("grep", "Find patterns in files.", "Search for a pattern within a file"),
        ("chmod", "Change the access permissions of a file.", "Give the owner rights"),
        ("curl", "Transfer data from or to a server.", "Download the contents of a URL"),
        ("git-log", "Show a history of commits.", "Print the last commits"),
        ("rsync", "Transfer files either to or from a remote host.", "Copy a folder"),
    ]
}

# "generate a new ssh key pair": `safe` (a secret store) has one example that holds all five
# words; the page about the task, `ssh-keygen`, holds three of them together, and BM25 puts
# it first.
SSH = {
    "safe.md": _page(
        "safe",
        "Interact with the Safe secret store and its vaults.",
        ("Add a vault to the list of targets", "safe target {{vault_addr}} {{target_name}}"),
        ("Authenticate the command-line to the target", "safe auth {{auth_method}}"),
        ("Print the environment variables of the current target", "safe env"),
        ("Display a tree of every secret", "safe tree"),
        ("Move a secret from one path to another", "safe move {{old_path}} {{new_path}}"),
        ("Copy a secret from one path to another", "safe copy {{old_path}} {{new_path}}"),
        ("Delete a secret", "safe delete {{path}}"),
        ("Generate a new 2048-bit SSH key pair and store it", "safe ssh 2048 {{path}}"),
        ("Set the non-sensitive values of a secret", "safe set {{path}} {{name}}={{value}}"),
        ("Print a secret", "safe get {{path}}"),
        ("Print the paths of every secret", "safe paths"),
        ("Export secrets as JSON", "safe export {{path}}"),
        ("Import secrets from JSON", "safe import < {{file}}"),
        ("Rename a vault target", "safe target --rename {{old_name}} {{new_name}}"),
    ),
    "ssh-keygen.md": _page(
        "ssh-keygen",
        "Generate SSH keys used for authentication and password-less logins.",
        ("Generate a key interactively", "ssh-keygen"),
        ("Generate an ed25519 key and save it to a file", "ssh-keygen -t ed25519 -f {{file}}"),
        ("Change the password of a key", "ssh-keygen -p -f {{file}}"),
        ("Print the public half of a key pair", "ssh-keygen -y -f {{file}}"),
        ("Print the fingerprint of an SSH key pair", "ssh-keygen -l -f {{file}}"),
        ("Forget a host that has a new key", "ssh-keygen -R {{host}}"),
    ),
    "ssh-add.md": _page(
        "ssh-add",
        "Add SSH keys to the SSH agent.",
        ("Add the default SSH key pair to the agent", "ssh-add"),
        ("Add a specific SSH key to the agent", "ssh-add {{path/to/key}}"),
        ("List the SSH keys of the agent", "ssh-add -l"),
        ("Remove an SSH key pair from the agent", "ssh-add -d {{path/to/key}}"),
        ("Remove every SSH key pair from the agent", "ssh-add -D"),
    ),
}

# "show memory usage": three pages hold the three words in one line of one example each;
# `free`, the page about it, holds "memory" alone, many times, and others hold "memory" and
# "usage" apart.
MEMORY = {
    "free.md": _page(
        "free",
        "Display the amount of free and used memory in the system.",
        ("Display system memory", "free"),
        ("Display memory in bytes, kilobytes or megabytes", "free -{{b|k|m}}"),
        ("Display memory in human-readable units", "free -h"),
        ("Refresh the memory figures every 2 seconds", "free -s 2"),
    ),
    **{
        f"{name}.md": _page(
            name,
            f"The {name} tool: {what}.",
            ("Start it with the default settings", f"{name}"),
            ("Use a configuration file", f"{name} --config {{{{file}}}}"),
            ("Write what it logs to a file", f"{name} --log {{{{file}}}}"),
            ("Run it in the background", f"{name} --daemon"),
            ("Print its version", f"{name} --version"),
            ("List the plugins it has loaded", f"{name} --plugins"),
            ("Check the configuration file and exit", f"{name} --check"),
            ("Show the memory and disk usage of the session", f"{name} --stats"),
        )
        for name, what in [
            ("qwen", "a chat assistant in the terminal"),
            ("pidstat", "report statistics of tasks"),
            ("valgrind", "a suite of debugging tools"),
        ]
    },
    **{
        f"{name}.md": _page(
            name,
            f"Inspect the memory of {what}.",
            ("Print the memory of each process", f"{name}"),
            ("Print it once a second", f"{name} 1"),
            ("Sort the processes by their memory", f"{name} -s"),
            ("List the usage of the swap space alone", f"{name} --swap"),
        )
        for name, what in [
            ("smem", "processes"),
            ("memray", "a Python program"),
            ("vmstat", "a system"),
        ]
    },
}


def _wiki(ws: Path, invoke: Invoke, pages: dict[str, str]) -> None:
    for name, text in {**pages, **FILLER}.items():
        write(ws / "notes" / name, text)
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0


def _explained(invoke: Invoke, ws: Path, text: str, *args: str) -> list[dict[str, Any]]:
    result = invoke("query", "-w", str(ws), text, "--json", "--explain", *args)
    assert result.exit_code == 0, result.output
    results: list[dict[str, Any]] = json.loads(result.stdout)["results"]
    return results


def _names(results: list[dict[str, Any]]) -> list[str]:
    return [hit["path"].rsplit("/", 1)[-1] for hit in results]


def test_the_page_about_the_task_passes_a_page_with_one_line_of_its_words(
    ws: Path, invoke: Invoke
) -> None:
    """`safe` holds the five words in one example, `ssh-keygen` three: first by the words held
    together alone, `safe` is third by BM25, and `ssh-keygen`, second and first, passes it."""
    _wiki(ws, invoke, SSH)
    results = _explained(invoke, ws, "generate a new ssh key pair")
    assert _names(results)[:2] == ["ssh-keygen.md", "safe.md"]
    places = {name: hit["signals"] for name, hit in zip(_names(results), results, strict=True)}
    assert places["safe.md"]["near"] > places["ssh-keygen.md"]["near"]
    assert (places["safe.md"]["proximity_rank"], places["safe.md"]["bm25_rank"]) == (1, 3)
    assert (places["ssh-keygen.md"]["proximity_rank"], places["ssh-keygen.md"]["bm25_rank"]) == (
        2,
        1,
    )


def test_the_page_about_memory_passes_three_pages_with_one_line_of_the_words(
    ws: Path, invoke: Invoke
) -> None:
    """Three pages hold "show memory usage" in one line each; `free` holds "memory" alone, and
    BM25 puts it first, then the pages that hold "memory" and "usage" apart: fourth by the
    words held together alone, `free` comes first."""
    _wiki(ws, invoke, MEMORY)
    results = _explained(invoke, ws, "show memory usage")
    assert _names(results)[0] == "free.md"
    free = results[0]["signals"]
    assert (free["near"], free["proximity_rank"], free["bm25_rank"]) == (1, 4, 1)
    assert results[0]["score"] < 1.0  # first in one order only


def test_explain_shows_both_places_in_text_and_json(ws: Path, invoke: Invoke) -> None:
    _wiki(ws, invoke, SSH)
    text = invoke("query", "-w", str(ws), "generate a new ssh key pair", "--explain").stdout
    lines = text.splitlines()
    safe = lines.index("   .wiki/wiki/notes/safe.md")
    assert lines[safe + 3] == "   text order: #1 by words held together, #3 by BM25"
    assert "fused" not in text  # no ranking by meaning: the text ranking alone
    signals = _explained(invoke, ws, "generate a new ssh key pair")[0]["signals"]
    assert list(signals)[-5:] == [
        "proximity_rank",
        "bm25_rank",
        "sentence_rank",
        "sentence_similarity",
        "titled",
    ]
    assert signals["sentence_rank"] is None and signals["semantic_rank"] is None


def test_the_fused_order_is_deterministic_and_ties_go_by_the_words_held_together(
    ws: Path, invoke: Invoke
) -> None:
    """`safe`, second by the words held together and third by BM25, ties with `ssh-add`, third
    and second: the one holding more of the words together comes first, every time, and the
    output is the same byte for byte."""
    _wiki(ws, invoke, SSH)
    results = _explained(invoke, ws, "generate key")
    places = [
        (name, hit["score"], hit["signals"]["proximity_rank"], hit["signals"]["bm25_rank"])
        for name, hit in zip(_names(results), results, strict=True)
    ]
    assert places[0] == ("ssh-keygen.md", 1.0, 1, 1)
    assert [(name, rank_) for name, _, rank_, _ in places[1:3]] == [
        ("safe.md", 2),
        ("ssh-add.md", 3),
    ]
    assert places[1][1] == places[2][1] == round((1 / 62 + 1 / 63) * 61 / 2, 4)
    again = {
        invoke("query", "-w", str(ws), "generate key", "--json", "--explain").stdout
        for _ in range(3)
    }
    assert len(again) == 1


def test_fuse_takes_every_ranking_by_meaning_with_its_own_place_and_similarity() -> None:
    """A sentence encoder's nearest fuse as the word vectors' do, each in its own fields; a
    page first in all three rankings scores 1.0."""
    ranked = [
        rank.Ranked(1.0, "a.md", "A", "document", 1),
        rank.Ranked(0.9, "b.md", "B", "document", 2),
    ]
    by_words = [Nearest(1, 0.9, "a.md", "A", "document"), Nearest(3, 0.8, "c.md", "C", "document")]
    by_sentences = [
        Nearest(1, 0.7, "a.md", "A", "document"),
        Nearest(2, 0.6, "b.md", "B", "document"),
    ]

    def signals_of(rowid: int) -> hits.Signals:
        return hits.Signals(1, 1.0, 0, 1.0, proximity_rank=rowid, bm25_rank=rowid)

    extras = [(rank.Extra.WORDS, by_words), (rank.Extra.SENTENCES, by_sentences)]
    fused = {page.path: page for page in rank.fuse(ranked, extras, 10, signals_of)}
    assert list(fused) == ["a.md", "b.md", "c.md"]
    assert fused["a.md"].score == pytest.approx(1.0)
    best = 3 / (rank.RRF_K + 1)
    assert fused["b.md"].score == pytest.approx((1 / 62 + 1 / 62) / best)
    assert fused["c.md"].score == pytest.approx((1 / 62) / best)
    a, b, c = fused["a.md"].signals, fused["b.md"].signals, fused["c.md"].signals
    assert (a.semantic_rank, a.similarity, a.sentence_rank, a.sentence_similarity) == (
        1,
        0.9,
        1,
        0.7,
    )
    assert (b.semantic_rank, b.sentence_rank, b.sentence_similarity) == (None, 2, 0.6)
    assert (c.text_rank, c.proximity_rank, c.sentence_rank) == (None, None, None)
    assert a.fused and a.proximity_rank == 1 and a.text_rank == 1
    # With the word vectors alone, the sentence fields stay empty.
    alone = rank.fuse(ranked, extras[:1], 10, signals_of)
    assert all(page.signals.sentence_rank is None for page in alone)
    # With none, the text ranking as it is.
    plain = rank.fuse(ranked, [], 10, signals_of)
    assert [(page.path, page.score, page.signals.fused) for page in plain] == [
        ("a.md", 1.0, False),
        ("b.md", 0.9, False),
    ]


def test_relevance_is_the_words_held_together_and_bm25_not_the_places() -> None:
    """Recall weighs a lesson by how well it answers the task, not by its place: the words it
    holds together plus its BM25 squashed, over the most a hit can reach."""
    signals = hits.Signals(3, 4.0, 0, 1.0, near=2, proximity_rank=1, bm25_rank=1)
    hit = hits.Hit(".wiki/wiki/a.md", "A", "lesson", 1.0, "", signals)
    assert hit.relevance(3) == pytest.approx((2 + 4.0 / 5.0) / 4)
    assert hit.relevance(0) == 0.0
    fused = hits.Hit(".wiki/wiki/a.md", "A", "lesson", 0.8, "", hits.Signals(3, 4.0, 0, 1.0, True))
    assert fused.relevance(3) == 0.8


@pytest.mark.parametrize("by_meaning", [False, True])
def test_reading_only_the_pages_that_may_be_shown_changes_nothing(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, by_meaning: bool
) -> None:
    """Over many pages holding the same few words in different places and numbers, the best 1,
    3 and 10 of the fused order, and their signals, are those found when every candidate's
    article is read; and fewer articles are read. So too when rankings by meaning are fused
    with the text ranking: a page they put near the top may sit past the text ranking's places
    that were read, where its place is a guess, so there every candidate is read."""
    chance = random.Random(41)
    vocabulary = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    filler = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
    for number in range(120):
        lines = []
        for _ in range(chance.randint(1, 6)):
            line = chance.choices(filler, k=chance.randint(3, 20))
            for word in chance.sample(vocabulary, chance.randint(0, 3)):
                line.insert(chance.randint(0, len(line)), word)
            lines.append(" ".join(line))
        title = " ".join(chance.sample(vocabulary + filler, 2))
        write(ws / "notes" / f"page{number:03}.md", f"# {title}\n\n" + "\n\n".join(lines) + "\n")
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    queries = [" ".join(chance.sample(vocabulary, chance.randint(2, 4))) for _ in range(40)]
    root = find_workspace(ws)
    closeness = rank.closeness
    reads = [0, 0]

    def counted(*args: Any) -> dict[int, rank.Close]:
        found = closeness(*args)
        reads[0] += sum(close.together is not None for close in found.values())
        return found

    def read_all(*args: Any) -> dict[int, rank.Close]:
        ws_, rows, held, roots, _, bodies, parts = args
        found = closeness(ws_, rows, held, roots, len(rows) + 1, bodies, parts)
        reads[1] += len(found)
        return found

    with sqlite3.connect(index_path(root)) as db:
        pages = db.execute("SELECT id, path, title, type FROM docs ORDER BY id").fetchall()

        def nearest(_db: Any, _cache: Any, text: str, *_: Any) -> rank.Extras:
            """Two rankings by meaning of 30 pages each, the same for the same query."""
            drawn = random.Random(text)
            return [
                (extra, [Nearest(row[0], 0.5, *row[1:]) for row in drawn.sample(pages, 30)])
                for extra in rank.Extra
            ]

        if by_meaning:
            monkeypatch.setattr(rank, "extra_rankings", nearest)
        for limit in (1, 3, 10):
            for text in queries:
                monkeypatch.setattr(rank, "closeness", counted)
                some = [(hit, hit.signals) for hit in rank.search(root, text, limit=limit, db=db)]
                monkeypatch.setattr(rank, "closeness", read_all)
                every = [(hit, hit.signals) for hit in rank.search(root, text, limit=limit, db=db)]
                assert some == every, (text, limit)
    assert reads[0] == reads[1] if by_meaning else reads[0] < reads[1]
