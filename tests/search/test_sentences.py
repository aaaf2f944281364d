"""The sentence encoder of the `semantic` extra (sentences.py): the shipped int8 model's vectors
within a stated cosine of the original float32 model's, the vendored vocabulary's ids equal to
the model's own tokenizer's, prose only, vectors kept per article and made again only for the
articles that changed (or all, for another model), nothing loaded that a query does not
need, never a socket."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from skillwiki.search import index_path, sentences
from skillwiki.search.filters import Filters
from skillwiki.search.vectors import VectorCache
from skillwiki.workspace import find_workspace
from tests.support import DATA, Invoke, count_calls, write

pytestmark = pytest.mark.skipif(
    not sentences.installed(), reason="the semantic extra is not installed"
)

# Made by bench/sentence_reference.py from the model's own files: tokenizer.json's ids, and a
# plain float32 NumPy forward pass of model.safetensors (mean-pooled, length 1).
REFERENCE = DATA / "sentences"
TEXTS: list[str] = json.loads((REFERENCE / "texts.json").read_text(encoding="utf-8"))
# The int8 weights move a vector this little from the float32 one (measured: 0.9993 at least).
COSINE = 0.998


@pytest.fixture(autouse=True)
def semantic_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "1")


def _reference() -> dict[str, Any]:
    reference: dict[str, Any] = json.loads((REFERENCE / "reference.json").read_text())
    return reference


def test_the_vendored_vocabulary_gives_the_model_s_own_ids() -> None:
    """Tokens as the model's tokenizer.json gives them, [CLS] and [SEP] around, cut at 256:
    English, accents and typography, Chinese, a page longer than the model reads, nothing."""
    assert sentences.loaded().ids(TEXTS) == _reference()["ids"]
    assert max(len(ids) for ids in _reference()["ids"]) == sentences.MAX_TOKENS


@pytest.mark.parametrize("folded", [False, True])
def test_vectors_are_the_float32_model_s_within_tolerance(
    folded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each vector of the shipped int8 model is within COSINE of the float32 model's, and so is
    each stored one (a byte a dimension); the similarities between texts within 0.01. An
    empty text is a row of zeros. The same for the graph as shipped (a command's) and with
    its weights folded (a server's)."""
    import numpy as np

    from skillwiki.search import semantic

    encoder = sentences.kept if folded else sentences.loaded
    monkeypatch.setattr(sentences, "_encoder", encoder)
    ours = sentences.embed(TEXTS)
    theirs = np.asarray(_reference()["vectors"], dtype=np.float32)
    assert ours.shape == (len(TEXTS), sentences.DIMENSIONS) and ours.dtype == np.float32
    present = [at for at, text in enumerate(TEXTS) if text.strip()]
    assert not ours[TEXTS.index("")].any()
    stored = semantic.matrix([semantic.pack(row) for row in ours], sentences.DIMENSIONS)
    for at in present:
        assert float(ours[at] @ theirs[at]) >= COSINE, TEXTS[at][:60]
        assert abs(float(np.linalg.norm(ours[at])) - 1) < 1e-5
        cosine = float(stored[at] @ theirs[at]) / float(np.linalg.norm(stored[at]))
        assert cosine >= COSINE, TEXTS[at][:60]
    similarity = ours[present] @ ours[present].T
    assert np.abs(similarity - theirs[present] @ theirs[present].T).max() < 0.01
    # one at a time, or in another order, or as a query: the same vectors
    assert np.allclose(sentences.embed(TEXTS[::-1])[::-1], ours, atol=1e-5)
    assert np.allclose(sentences.embed_query(TEXTS[0]), ours[0], atol=1e-5)


def test_a_batch_holds_few_tokens() -> None:
    """Shortest first, at most 32 texts and 2048 tokens a batch (padding counted), all once."""
    lengths = [5] * 40 + [100] * 30 + [256] * 9
    batches = list(sentences._batches(list(range(len(lengths))), lengths))
    assert [place for batch in batches for place in batch] == list(range(len(lengths)))
    assert all(len(b) <= 32 and len(b) * max(lengths[p] for p in b) <= 2048 for b in batches)
    assert [len(b) for b in batches] == [32, 20, 18, 8, 1]


def test_the_query_meant_is_the_nearest() -> None:
    """What the ranking is for: a task in other words than the page's is nearest that page."""
    pages = [TEXTS[2], TEXTS[3], TEXTS[4]]  # git stash, nohup, updating a body in fastapi
    vectors = sentences.embed(pages)
    for query, page in ((TEXTS[0], 0), (TEXTS[1], 1), ("change some fields of an item", 2)):
        assert int((vectors @ sentences.embed_query(query)).argmax()) == page, query


def test_prose_only() -> None:
    """A tldr page: its description and its examples' descriptions, not the commands; a
    page of prose: each paragraph, heading, list item and quote as CommonMark reads it, without
    markers, link text without addresses, no code block (fenced with ``` or ~~~), no Sources
    section."""
    tldr = (
        "# tar\n\n> Archiving utility.\n> More information: <https://www.gnu.org/software/tar>.\n\n"
        "- [c]reate an archive from files:\n\n`tar cf {{target.tar}} {{file1 file2 ...}}`\n"
    )
    assert sentences.passages("tar", "", tldr) == (
        "tar\nArchiving utility. More information: .\n[c]reate an archive from files:",
    )
    page = (
        "Intro with `inline` code and a [link](https://example.com/x) <b>bold</b>.\n\n"
        "## Setup\n\n```python\nprint('no')\n```\n~~~~\ncode ``` still\n~~~~\n"
        "1. First step\n* Second step\n\n    indented stays\n\n## Sources\n\n- raw/a.md\n"
    )
    assert sentences.passages("Title", "A summary.", page) == (
        "Title\nA summary.\nIntro with inline code and a link bold.",
        "Title: Setup\nFirst step\nSecond step\nindented stays",
    )
    long = "".join(f"Sentence number {n} of some words.\n" for n in range(1000))
    (cut,) = sentences.passages("t", "", long)
    assert sentences.PROSE_CHARACTERS - 100 < len(cut) <= sentences.PROSE_CHARACTERS + 1


def test_an_article_is_read_as_its_opening_and_its_sections() -> None:
    """A vector a passage: the opening (the `#` title's heading is the title's), then each
    `##` or `###` section with the title and its heading, a deeper heading's text in its
    section, a heading of code read as its text, a `##` in a code block no heading; at most
    PASSAGES, the opening and the first sections."""
    page = (
        "# Title\n\nOpening words.\n\n## First\n\nOne.\n\n### Deeper\n\nTwo.\n\n"
        "#### Deepest\n\nThree.\n\n```\n## not a heading\n```\n\n## `run()`\n\nFour.\n"
    )
    assert sentences.passages("Title", "", page) == (
        "Title\nOpening words.",
        "Title: First\nOne.",
        "Title: Deeper\nTwo.\nDeepest\nThree.",
        "Title: run()\nFour.",
    )
    many = "".join(f"## Part {n}\n\nText {n}.\n\n" for n in range(1, 20))
    read = sentences.passages("Many", "", many)
    assert len(read) == sentences.PASSAGES == 4
    assert read[0] == "Many" and read[-1] == "Many: Part 3\nText 3."


@pytest.mark.parametrize(
    ("query", "read"),
    [
        ("temporarily save uncommitted changes", True),
        ("déjà vu, naïve café", True),
        ("git 暂存 更改", False),
        ("临时保存未提交的更改", False),
        ("показать память", False),
        ("", True),
    ],
)
def test_the_model_reads_latin_script_only(query: str, read: bool) -> None:
    assert sentences.reads(query) is read


PAGES = {
    "nohup.md": "# nohup\n\nAllows for a process to live when the terminal gets killed.\n\n"
    "- Run a command that can live beyond the terminal:\n\n`nohup command`\n",
    "tail.md": "# tail\n\nDisplay the last part of a file, keep reading the output as it grows.\n",
    "ps.md": "# ps\n\nInformation about running processes.\n\n- List all running processes.\n",
    "logger.md": "# logger\n\nAdd messages to the system log, logging from scripts.\n",
    "cake.md": "# Baking\n\nFlour, sugar, butter and eggs, mixed and baked at 180 degrees.\n",
}


def _workspace(ws: Path, invoke: Invoke) -> None:
    for name, text in PAGES.items():
        write(ws / "notes" / name, text)
    result = invoke("ingest", "-w", str(ws), str(ws / "notes"))
    assert result.exit_code == 0, result.output


def _stored(ws: Path) -> tuple[dict[str, bytes], str]:
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        rows = dict(db.execute("SELECT path, vec FROM sents JOIN docs USING (id)").fetchall())
        model = db.execute("SELECT value FROM meta WHERE key = 'sentences'").fetchone()
    return rows, model[0] if model else ""


def _query(invoke: Invoke, ws: Path, text: str) -> None:
    result = invoke("query", "-w", str(ws), text, "--json")
    assert result.exit_code == 0, result.output


def test_only_new_or_changed_articles_are_embedded(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every article gets its vector when indexed; after one article changes, that one alone is
    read by the encoder, and a removed one's vector goes; another model's are all redone."""
    embedded: list[str] = []
    real = sentences.embed

    def counting(texts: Any) -> Any:
        embedded.extend(texts)
        return real(texts)

    monkeypatch.setattr(sentences, "embed", counting)
    _workspace(ws, invoke)
    _query(invoke, ws, "which file")

    def articles() -> list[str]:  # what was embedded, less the queries
        return [text for text in embedded if text != "which file"]

    first, model = _stored(ws)
    assert set(first) == {f"notes/{name}" for name in PAGES} and model == sentences.MODEL
    assert {len(vec) for vec in first.values()} == {4 + sentences.DIMENSIONS}
    assert len(articles()) == len(PAGES) and not any("`nohup command`" in t for t in embedded)
    embedded.clear()
    write(ws / "notes" / "tail.md", "# tail\n\nFollow a log file as it grows.\n")
    (ws / ".wiki" / "raw" / "notes" / "cake.md").unlink()
    assert invoke("ingest", "-w", str(ws), str(ws / "notes" / "tail.md")).exit_code == 0
    _query(invoke, ws, "which file")
    after, _ = _stored(ws)
    assert articles() == ["tail\nFollow a log file as it grows."]
    assert "notes/cake.md" not in after
    assert {path for path in after if after[path] != first.get(path)} == {"notes/tail.md"}
    embedded.clear()
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        db.execute("UPDATE meta SET value = 'another model' WHERE key = 'sentences'")
    _query(invoke, ws, "which file")
    assert len(articles()) == len(after)
    assert _stored(ws) == (after, sentences.MODEL)


def test_vectors_made_again_tell_how_far_they_have_come(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vectors of another model, of both kinds, are made again by the next read, every
    article's, which on a large wiki takes a while: the read tells how many articles have them
    (the command line's `Indexing` bar), though no article changed, counting an article once
    its vectors are made, not once it is read; and it reads each article once for both kinds."""
    from skillwiki import api
    from skillwiki.config import load_config
    from skillwiki.search import sync

    _workspace(ws, invoke)
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        db.execute("UPDATE meta SET value = 'another model' WHERE key IN ('sentences', 'vectors')")
    root = find_workspace(ws)
    embeds = count_calls(monkeypatch, sentences, "embed")
    read = count_calls(monkeypatch, sync, "read_row")
    told: list[tuple[int, int, int]] = []

    def indexing(done: int, total: int) -> None:  # with how many texts were embedded by then
        told.append((done, total, sum(len(texts) for (texts,) in embeds)))

    with api.open_wiki(root, load_config(root.config_file), indexing=indexing):
        pass
    assert told == [(len(PAGES), len(PAGES), len(PAGES))]  # each page has one passage
    assert sorted(job.rel for (job,) in read) == sorted(f"notes/{name}" for name in PAGES)
    assert _stored(ws)[1] == sentences.MODEL


def test_a_query_holding_a_lone_surrogate_is_ranked_by_every_ranking(
    ws: Path, invoke: Invoke
) -> None:
    """A byte a command-line argument cannot decode reaches the query as a lone surrogate (as
    does a `\\udcff` escape in a hook's JSON), which neither model's tokenizer takes: the query
    is answered, and echoed, as if that byte were U+FFFD, by all three rankings, rather than a
    traceback (or JSON that is not UTF-8)."""
    _workspace(ws, invoke)
    answers = []
    for text in ("keep a process \udcff running \ud800", "keep a process \ufffd running \ufffd"):
        result = invoke("query", "-w", str(ws), text, "--json", "--explain")
        assert result.exit_code == 0, result.output
        answers.append(json.loads(result.stdout))
    assert answers[0] == answers[1]  # the query too, as searched
    assert answers[0]["results"][0]["signals"]["sentence_rank"] is not None


def test_the_nearest_by_sentence(ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rank module's one call: the articles nearest the query by their prose, passing the
    filters; none for a query in a script the model does not read, or with the extra off."""
    _workspace(ws, invoke)
    _query(invoke, ws, "process")
    cache = VectorCache()
    filters = Filters(None, (), False)
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        found = cache.nearest_sentences(db, "keep a process running after logging out", filters, 3)
        assert [hit.path for hit in found][0] == "notes/nohup.md" and len(found) == 3
        assert found[0].similarity > found[1].similarity >= found[2].similarity
        assert cache.nearest_sentences(db, "保持进程运行", filters, 3) == []
        kept = cache.sentences.last
        assert kept is not None and len(kept.read.ids) == len(PAGES)
        assert cache.nearest_sentences(db, "logging", Filters("lesson", (), False), 3) == []
        monkeypatch.setenv("SKILLWIKI_SEMANTIC", "0")
        assert cache.nearest_sentences(db, "keep a process running", filters, 3) == []


SECTIONED = {
    "kitchen.md": "# Kitchen notes\n\nFlour, sugar and butter, weighed for a cake.\n\n"
    "## Ovens\n\nHeat the oven to 180 degrees before the tin goes in.\n\n"
    "## Long jobs\n\nRun it with nohup, so that the process lives on after you log out.\n",
    "garden.md": "# Garden\n\nWater the tomatoes at dawn.\n\n## Soil\n\nDig in compost.\n",
}


def _anew(db: sqlite3.Connection) -> tuple[list[int], Any, list[int]]:
    """Every article's sentence vectors read from the index as they are stored: the ids, the
    vectors one after another, and where each article's first is."""
    import numpy as np

    from skillwiki.search import semantic

    rows = db.execute("SELECT id, vec FROM sents ORDER BY id").fetchall()
    per = [semantic.matrix([vec], sentences.DIMENSIONS) for _, vec in rows]
    starts = [sum(len(each) for each in per[:at]) for at in range(len(per))]
    return [rowid for rowid, _ in rows], np.concatenate(per), starts


def test_an_article_is_as_near_as_its_nearest_passage(ws: Path, invoke: Invoke) -> None:
    """The page whose third passage says the task is found by it: its similarity is that
    passage's, the nearest of its three stored vectors."""
    import numpy as np

    from skillwiki.search import semantic

    for name, text in {**PAGES, **SECTIONED}.items():
        write(ws / "notes" / name, text)
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    _query(invoke, ws, "process")
    stored, _ = _stored(ws)
    assert len(stored["notes/kitchen.md"]) == 3 * (4 + sentences.DIMENSIONS)
    text = "keep a job running after logging out"
    query = sentences.embed_query(text)
    passages = semantic.matrix([stored["notes/kitchen.md"]], sentences.DIMENSIONS) @ query
    assert int(passages.argmax()) == 2
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        found = VectorCache().nearest_sentences(db, text, Filters(None, (), False), 7)
    by_path = {hit.path: hit.similarity for hit in found}
    assert np.isclose(by_path["notes/kitchen.md"], float(passages.max()), atol=1e-5)
    assert [hit.path for hit in found][:2] in (
        ["notes/nohup.md", "notes/kitchen.md"],
        ["notes/kitchen.md", "notes/nohup.md"],
    )


def test_a_warm_read_after_a_change_keeps_each_article_s_passages(ws: Path, invoke: Invoke) -> None:
    """A server's cache of sentence vectors, after an article of several passages changes
    (its count of passages with it), one goes and one comes: the same ids, vectors and
    starts as reading them all, the articles that stayed kept from the last read."""
    import numpy as np

    from skillwiki.server.live import LiveWorkspace, WorkspaceLookup

    for name, text in {**PAGES, **SECTIONED}.items():
        write(ws / "notes" / name, text)
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    warm = LiveWorkspace(WorkspaceLookup(ws))
    cache = VectorCache()
    raw = ws / ".wiki" / "raw" / "notes"
    changes: list[Callable[[], object]] = [
        lambda: write(
            raw / "kitchen.md", "# Kitchen\n\nOne.\n\n## A\n\nTwo.\n\n## B\n\nC.\n\n## D\n\nE.\n"
        ),
        lambda: (raw / "garden.md").unlink(),
        lambda: write(raw / "lake.md", "# Lake\n\nSwim.\n\n## Boats\n\nRow a boat.\n"),
    ]
    try:
        for change in [lambda: None, *changes]:
            change()
            with warm.reading() as reading:
                ids, matrix, starts = cache.sentences.read(reading.index)
                expected_ids, expected, expected_starts = _anew(reading.index)
            assert ids == expected_ids and np.array_equal(matrix, expected)
            assert list(starts) == expected_starts and len(matrix) > len(ids)
    finally:
        warm.close()


@pytest.mark.parametrize("count", [0, 1.5, sentences.PASSAGES + 1])
def test_a_row_of_sentence_vectors_that_is_not_one_to_four_has_the_index_rebuilt(
    ws: Path, invoke: Invoke, count: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An article's row holds one to PASSAGES vectors: none, part of one, or more is damage,
    and the index is built again, answering as before."""
    from skillwiki.search import rank

    for name, text in {**PAGES, **SECTIONED}.items():
        write(ws / "notes" / name, text)
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    text = "keep a job running after logging out"

    def answer() -> list[tuple[str, Any]]:
        result = invoke("query", "-w", str(ws), text, "--json", "--explain")
        assert result.exit_code == 0, result.output
        hits = json.loads(result.output)["results"]
        return [(hit["path"], hit["signals"]["sentence_rank"]) for hit in hits]

    expected = answer()
    assert any(rank == 1 for _, rank in expected)
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        db.execute(
            "UPDATE sents SET vec = ? WHERE id = 1",
            (b"\1" * int(count * (4 + sentences.DIMENSIONS)),),
        )
    monkeypatch.setattr(rank, "SHARED", VectorCache())  # as a new process reads: all again
    assert answer() == expected
    assert len(_stored(ws)[0]["notes/cake.md"]) == 4 + sentences.DIMENSIONS


def _loaded_after(root: Path, setting: str, *argv: str) -> list[str]:
    code = (
        "import sys\n"
        "from skillwiki.cli.app import make_app\n"
        f"sys.argv = ['skillwiki', '-w', sys.argv[1], *{list(argv)!r}]\n"
        "try:\n    make_app(sys.argv[3])()\nexcept SystemExit as exc:\n    assert not exc.code\n"
        "print('loaded:', *sorted(n for n in ('onnxruntime', 'tokenizers') if n in sys.modules))\n"
    )
    env = {**os.environ, "SKILLWIKI_SEMANTIC": setting}
    out = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.splitlines()[-1].split()[1:]


@pytest.mark.parametrize(
    "argv",
    [
        ("query", "?!"),
        ("query", "", "--tag", "x"),
        ("query", "?!", "--type", "document", "--explain"),
        ("status",),
        ("show", "notes/nohup.md"),
        ("recall",),
    ],
)
def test_a_command_without_query_text_loads_no_model(
    ws: Path, invoke: Invoke, argv: tuple[str, ...]
) -> None:
    """On, once the articles have their vectors: a query of no words to look for (a tag or a
    type alone), status, show and recall load neither the encoder nor a tokenizer."""
    _workspace(ws, invoke)
    _query(invoke, ws, "process")
    assert _loaded_after(ws, "1", *argv) == []


def test_the_model_is_loaded_only_for_a_query_s_text(ws: Path, invoke: Invoke) -> None:
    """Off: never. On: a query of words loads it."""
    _workspace(ws, invoke)
    _query(invoke, ws, "process")
    assert _loaded_after(ws, "0", "query", "keep a process running") == []
    assert "onnxruntime" in _loaded_after(ws, "1", "query", "keep a process running")


def test_loading_and_embedding_open_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        opened.append(args)
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    sentences.loaded.cache_clear()
    assert sentences.embed(["a text"]).shape == (1, sentences.DIMENSIONS)
    assert opened == []


# Run first in a child process: any look-up of a host name, or connection other than a unix
# socket's, is written to stderr and refused.
_NO_NETWORK = (
    "import socket, sys\n"
    "LOOKUPS = ('socket.getaddrinfo', 'socket.gethostbyname', 'socket.gethostbyname_ex',\n"
    "           'socket.gethostbyaddr', 'urllib.Request')\n"
    "def refuse(event, args):\n"
    "    if event in LOOKUPS or (event == 'socket.connect' and args[0].family != socket.AF_UNIX):\n"
    "        sys.stderr.write(f'network: {event} {args!r}\\n')\n"
    "        sys.stderr.flush()\n"
    "        raise OSError('no network')\n"
    "sys.addaudithook(refuse)\n"
)


def test_building_the_vectors_and_querying_ask_no_network(ws: Path, invoke: Invoke) -> None:
    """A process that may reach no host: a query that builds the index (every article embedded
    by both models) and ranks by both, then a server's priming (the encoder that stays) and
    its query, all answer without a look-up or a connection."""
    _workspace(ws, invoke)
    code = _NO_NETWORK + (
        "import sqlite3\n"
        "from skillwiki.cli.app import make_app\n"
        "from skillwiki.search import VectorCache, index_path, prime\n"
        "from skillwiki.search.filters import Filters\n"
        "from skillwiki.workspace import find_workspace\n"
        "from pathlib import Path\n"
        "sys.argv = ['skillwiki', '-w', sys.argv[1], 'query', 'keep a process running', '--json']\n"
        "try:\n    make_app('query')()\nexcept SystemExit as exc:\n    assert not exc.code\n"
        "cache = VectorCache(stays=True)\n"
        "with sqlite3.connect(index_path(find_workspace(Path(sys.argv[2])))) as db:\n"
        "    prime(db, cache)\n"
        "    text, every = 'keep a process running after logging out', Filters(None, (), False)\n"
        "    found = cache.nearest_sentences(db, text, every, 1)\n"
        "    words = cache.nearest_words(db, text, every, 1)\n"
        "print('found:', found[0].path, len(words))\n"
    )
    env = {**os.environ, "SKILLWIKI_SEMANTIC": "1", "SKILLWIKI_NO_SERVER": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(ws), str(ws)], capture_output=True, text=True, env=env
    )
    assert "network:" not in out.stderr and out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "found: notes/nohup.md 1"
    vectors, model = _stored(ws)
    assert len(vectors) == len(PAGES) and model == sentences.MODEL


def test_a_server_loads_the_encoder_once_when_it_primes(ws: Path, invoke: Invoke) -> None:
    """prime (what the MCP server runs after a look) reads the sentence vectors and loads the
    encoder that stays, which every later query and batch of the process then uses."""
    from skillwiki.search import prime

    _workspace(ws, invoke)
    _query(invoke, ws, "process")
    sentences.kept.cache_clear()
    cache = VectorCache()
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        prime(db, cache)
        assert sentences.kept.cache_info().currsize == 1
        assert cache.sentences.last is not None and len(cache.sentences.last.read.ids) == len(PAGES)
        kept = sentences.kept()
        filters = Filters(None, (), False)
        assert cache.nearest_sentences(db, "keep a process running", filters, 1)
    assert sentences._encoder() is kept and sentences.kept() is kept


def test_the_lessons_index_of_a_hook_runs_no_encoder(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index of one folder built in memory (what a hook scores a prompt against) gets the
    word vectors but never runs the sentence encoder: a hook answers every prompt, and loading
    the model would take it most of a second each time."""
    from skillwiki.search import folder_index

    _workspace(ws, invoke)
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "1")

    def refuse(texts: Any) -> Any:
        raise AssertionError("the sentence encoder ran")

    monkeypatch.setattr(sentences, "embed", refuse)
    with closing(folder_index(find_workspace(ws), "notes")) as db:
        words = db.execute("SELECT count(*) FROM vecs").fetchone()[0]
        sents = db.execute("SELECT count(*) FROM sents").fetchone()[0]
    assert (words, sents) == (len(PAGES), 0)


def test_a_kept_open_workspace_loads_the_encoder_that_stays_once(ws: Path, invoke: Invoke) -> None:
    """The reads of a server (the MCP server's, `skillwiki serve`'s) go through a kept-open
    workspace: its first query loads the encoder that is quick per query, never the one a
    command loads, and every later query uses that one."""
    from skillwiki.search import search
    from skillwiki.server.live import LiveWorkspace, WorkspaceLookup

    _workspace(ws, invoke)
    _query(invoke, ws, "process")
    sentences.loaded.cache_clear()
    sentences.kept.cache_clear()
    live = LiveWorkspace(WorkspaceLookup(ws))
    try:
        for text in ("keep a process running", "follow a log file", "bake a cake"):
            with live.reading() as read:
                hits = search(read.ws, text, db=read.index, vectors=read.vectors)
            assert any(hit.signals and hit.signals.sentence_rank == 1 for hit in hits), text
            assert sentences.loaded.cache_info().currsize == 0
            assert sentences.kept.cache_info().misses == 1
    finally:
        live.close()
