"""Semantic search (the `semantic` extra): vectors equal to WordLlama's own, kept per article in
the index, fused with the text ranking by reciprocal rank, never a socket, nothing imported
when it is off."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillwiki.search import index, index_path, rank, semantic
from skillwiki.search.vectors import SHARED, VectorCache
from skillwiki.workspace import find_workspace
from tests.support import DATA, DEMO, REPO, Invoke, corpora, write

pytestmark = pytest.mark.skipif(
    not semantic.installed(), reason="the semantic extra is not installed"
)
EVAL = REPO / "bench" / "eval"


@pytest.fixture(autouse=True)
def semantic_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "1")


def _texts(with_corpora: bool) -> list[str]:
    """The demo and test data, the evaluation's queries and, `with_corpora`, Markdown nobody
    here wrote (every 7th tldr page in English and Chinese, every docs tree page)."""
    files = sorted(DEMO.rglob("*.md")) + sorted(DATA.rglob("*.md"))
    if with_corpora:
        root = corpora()
        files += sorted((root / "tldr" / "en").rglob("*.md"))[::7]
        files += sorted((root / "tldr" / "zh").rglob("*.md"))[::7]
        files += sorted((root / "docs").rglob("*.md"))
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in files]
    for name in ("en.tsv", "zh.tsv", "fastapi.tsv"):
        for line in (EVAL / name).read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                texts.append(line.split("\t")[0])
    return texts + ["", "   ", "x"]


@pytest.mark.corpus
def test_vectors_equal_wordllamas_own(monkeypatch: pytest.MonkeyPatch, with_corpora: bool) -> None:
    """The fast path (the wheel's files read with tokenizers and NumPy) gives the vectors
    WordLlama.embed(norm=True) gives, on real Markdown and queries; and loading either opens
    no socket."""
    _no_sockets(monkeypatch)
    from wordllama import WordLlama

    texts = _texts(with_corpora)
    package = semantic.package_dir()
    assert package is not None
    library = WordLlama.load(cache_dir=package, disable_download=True)
    semantic.loaded_model.cache_clear()
    ours = semantic.embed(texts)
    assert ours.shape == (len(texts), semantic.DIMENSIONS)
    for row, text in enumerate(texts):
        if text.strip():  # the library divides by a zero norm where a text has no token
            theirs = library.embed([text], norm=True)[0]
            assert abs(ours[row] - theirs).max() < 1e-5, text[:80]
    assert not ours[texts.index("")].any()


def test_a_stored_vector_comes_back_within_half_a_step(with_corpora: bool) -> None:
    """`pack` keeps each dimension to within half a step (its largest magnitude / 127) in
    PACKED bytes, a text without tokens stays all zeros, and a cosine read from the stored
    vectors is within 0.005 of the exact one, on real Markdown and queries."""
    texts = _texts(with_corpora)
    exact = semantic.embed(texts)
    packed = [semantic.pack(row) for row in exact]
    assert {len(vec) for vec in packed} == {semantic.PACKED}
    stored = semantic.matrix(packed)
    assert stored.shape == exact.shape and stored.dtype == np.float32
    step = np.abs(exact).max(axis=1) / 127
    assert (np.abs(stored - exact) <= step[:, None] / 2 * 1.0001 + 1e-9).all()
    assert not stored[texts.index("")].any()
    queries = exact[:: max(1, len(texts) // 50)]
    assert np.abs(stored @ queries.T - exact @ queries.T).max() < 0.005
    assert semantic.matrix([]).shape == (0, semantic.DIMENSIONS)


def test_vectors_of_another_model_are_made_again(ws: Path, invoke: Invoke) -> None:
    """An index whose vectors are of another model, or stored another way (half precision,
    as before), has them all made again by the next query: none is read as this one's."""
    _workspace(ws, invoke, PAGES)
    text = "keep a process running after logging out"
    expected = _query(invoke, ws, text)
    path = index_path(find_workspace(ws))
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT id FROM vecs").fetchall()
        db.execute("UPDATE meta SET value = 'wordllama l2_supercat 256' WHERE key = 'vectors'")
        db.executemany("UPDATE vecs SET vec = ? WHERE id = ?", [(bytes(512), i) for (i,) in rows])
    assert _query(invoke, ws, text) == expected
    with sqlite3.connect(path) as db:
        lengths = {length for (length,) in db.execute("SELECT length(vec) FROM vecs")}
        (model,) = db.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone()
    assert lengths == {semantic.PACKED} and model == semantic.MODEL


def _pieces() -> semantic.Pieces:
    package = semantic.package_dir()
    assert package is not None
    return semantic.Pieces(json.loads((package / semantic.TOKENIZER_FILE).read_bytes()))


# Text whose tokens are hardest to get right: runs of spaces and `▁`, line breaks and tabs,
# characters the vocabulary lacks (bytes then), CJK, and the tokenizer's special tokens.
ODD = st.lists(
    st.sampled_from([*" \u2581\n\tab<s>/é重试🙂_-.`{}", "unk", "the", "ing"]), max_size=40
).map("".join)


@pytest.mark.corpus
def test_a_query_is_split_into_the_tokenizer_s_own_tokens(with_corpora: bool) -> None:
    """_Pieces gives the tokenizer's ids for every line of real Markdown and every query of the
    evaluation (or leaves the line to the tokenizer: a special token in it, a word too long)."""
    tokenizer = semantic.loaded_model().tokenizer
    pieces = _pieces()
    assert pieces.usable
    lines = list(dict.fromkeys(line for text in _texts(with_corpora) for line in text.split("\n")))
    taken = 0
    for line, theirs in zip(
        lines, tokenizer.encode_batch(lines, add_special_tokens=False), strict=True
    ):
        ours = pieces.ids(line)
        if ours is not None:
            taken += 1
            assert ours == theirs.ids, line
    assert taken >= 0.95 * len(lines)  # the rest: URLs and code with no space in 64 characters
    assert pieces.ids("a <s> b") is None and pieces.ids("x" * 65) is None
    assert pieces.ids("") == [] and pieces.ids("x" * 63) is not None  # with its `▁`, 64


def test_a_tokenizer_file_of_other_rules_is_left_to_the_tokenizer() -> None:
    """_Pieces takes only a file whose rules it follows: another normalizer, a pre-tokenizer,
    merges written as pairs, a byte missing from the vocabulary, or a token that spans the
    start of a word, and every text goes to the tokenizer."""
    package = semantic.package_dir()
    assert package is not None
    config = json.loads((package / semantic.TOKENIZER_FILE).read_bytes())
    assert semantic.Pieces(config).ids("keep a process") is not None

    def changed(change: Any) -> semantic.Pieces:
        altered = json.loads(json.dumps(config))
        change(altered)
        return semantic.Pieces(altered)

    changes = [
        lambda c: c["normalizer"]["normalizers"].pop(),
        lambda c: c.update(pre_tokenizer={"type": "Whitespace"}),
        lambda c: c["model"].update(merges=[m.split(" ") for m in c["model"]["merges"]]),
        lambda c: c["model"]["vocab"].pop("<0x0A>"),
        lambda c: c["model"]["vocab"].update({"a\u2581b": 40000}),
        lambda c: c["model"].update(byte_fallback=False),
    ]
    for change in changes:
        assert changed(change).ids("keep a process") is None


@settings(max_examples=300, deadline=None)
@given(ODD)
def test_odd_text_is_split_as_the_tokenizer_splits_it(text: str) -> None:
    assert _PIECES is not None
    ours = _PIECES.ids(text)
    if ours is not None:
        assert ours == semantic.loaded_model().tokenizer.encode(text, add_special_tokens=False).ids


_PIECES = _pieces() if semantic.installed() else None


def test_a_query_s_vector_is_the_one_embed_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """embed_query, without the model loaded (its tokens from _Pieces, their rows from the
    weights file), gives the very vector embed gives, opening no socket; with the model
    loaded it uses it."""
    _no_sockets(monkeypatch)
    semantic.query_pieces.cache_clear()
    queries = [line.split("\t")[0] for line in (EVAL / "en.tsv").read_text().splitlines()]
    queries += ["", "重试策略", "a <s> b", "x" * 80]
    expected = semantic.embed(queries)
    for row, query in enumerate(queries):
        semantic.loaded_model.cache_clear()
        assert np.array_equal(semantic.embed_query(query), expected[row]), query
        assert semantic.loaded_model.cache_info().currsize == (query in ("a <s> b", "x" * 80))
    semantic.loaded_model()
    assert np.array_equal(semantic.embed_query(queries[0]), expected[0])


def _no_sockets(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    opened: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        opened.append(args)
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return opened


def _workspace(ws: Path, invoke: Invoke, pages: dict[str, str]) -> None:
    for name, text in pages.items():
        write(ws / "notes" / name, text)
    result = invoke("ingest", "-w", str(ws), str(ws / "notes"))
    assert result.exit_code == 0, result.output


PAGES = {
    "nohup.md": "# nohup\n\nAllows for a process to live when the terminal gets killed.\n\n"
    "- Run a command that can live beyond the terminal: `nohup command`\n",
    "tail.md": "# tail\n\nDisplay the last part of a file, keep reading the output as it grows.\n",
    "ps.md": "# ps\n\nInformation about running processes.\n\n- List all running processes.\n",
    "logger.md": "# logger\n\nAdd messages to the system log, logging from scripts.\n",
    "cake.md": "# Baking\n\nFlour, sugar, butter and eggs, mixed and baked at 180 degrees.\n",
}


def _query(invoke: Invoke, ws: Path, text: str, *flags: str) -> list[dict[str, Any]]:
    result = invoke("query", "-w", str(ws), text, "--json", "--explain", *flags)
    assert result.exit_code == 0, result.output
    hits: list[dict[str, Any]] = json.loads(result.output)["results"]
    return hits


def test_hybrid_ranking_is_the_fusion_of_both(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each hit's score is its reciprocal-rank fusion of the text ranking (as with the extra
    off) and the semantic ones (WordLlama's, and the sentence encoder's when the ranking
    takes it), over the best it can reach; the order follows the score."""
    _no_sockets(monkeypatch)
    _workspace(ws, invoke, PAGES)
    text = "keep a process running after logging out"
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "0")
    text_only = [hit["path"] for hit in _query(invoke, ws, text, "--limit", "50")]
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "1")
    hits = _query(invoke, ws, text, "--limit", "50")
    root = find_workspace(ws)
    with sqlite3.connect(index_path(root)) as db:
        stored = db.execute("SELECT id, vec FROM vecs ORDER BY id").fetchall()
        paths = dict(db.execute("SELECT id, path FROM docs"))
    ids = [rowid for rowid, _ in stored]
    near = semantic.nearest(text, ids, semantic.matrix([vec for _, vec in stored]), len(ids))
    semantic_order = [f".wiki/wiki/{paths[rowid]}" for rowid, _ in near]
    assert len(ids) == len(paths) == len(PAGES)
    orders = [text_only, semantic_order]
    if any(hit["signals"]["sentence_rank"] for hit in hits):
        orders.append(_sentence_order(root, text, paths))
    expected = {}
    for path in set().union(*orders):
        places = [order.index(path) + 1 for order in orders if path in order]
        score = sum(1 / (rank.RRF_K + place) for place in places) * 61 / len(orders)
        expected[path] = round(score, 4)
    assert {hit["path"]: hit["score"] for hit in hits} == expected
    assert [hit["score"] for hit in hits] == sorted(expected.values(), reverse=True)
    by_path = {hit["path"]: hit for hit in hits}
    nohup = by_path[".wiki/wiki/notes/nohup.md"]["signals"]
    assert (
        nohup["fused"]
        and nohup["semantic_rank"] == semantic_order.index(".wiki/wiki/notes/nohup.md") + 1
    )
    # The cake page holds none of the query's words: only the semantic ranking has it.
    cake = by_path[".wiki/wiki/notes/cake.md"]["signals"]
    assert cake["text_rank"] is None and cake["words"] == 0
    # Its snippet is its first line of text, for it holds none of the query's words.
    assert by_path[".wiki/wiki/notes/cake.md"]["snippet"] == (
        "Flour, sugar, butter and eggs, mixed and baked at 180 degrees."
    )
    assert ".wiki/wiki/notes/cake.md" not in text_only


def _sentence_order(root: Any, text: str, paths: dict[int, str]) -> list[str]:
    """The articles by the sentence encoder's similarity to `text`, nearest first."""
    from skillwiki.search import sentences

    with sqlite3.connect(index_path(root)) as db:
        stored = db.execute("SELECT id, vec FROM sents ORDER BY id").fetchall()
    ids = [rowid for rowid, _ in stored]
    query = sentences.embed_query(text)
    # an article's similarity is its nearest passage's
    similarity = [
        float((semantic.matrix([vec], sentences.DIMENSIONS) @ query).max()) for _, vec in stored
    ]
    near = semantic.top(ids, np.asarray(similarity, dtype=np.float32), len(ids))
    return [f".wiki/wiki/{paths[rowid]}" for rowid, _ in near]


def test_words_in_no_article_find_nothing(ws: Path, invoke: Invoke) -> None:
    """The semantic ranking widens what the text found, never answers alone: a query none of
    whose words any article holds finds nothing, as without the extra."""
    _workspace(ws, invoke, PAGES)
    assert _query(invoke, ws, "xyzzy plugh") == []


def test_filters_hold_for_semantic_hits(ws: Path, invoke: Invoke) -> None:
    _workspace(ws, invoke, PAGES)
    result = invoke(
        "record-lesson",
        "-w",
        str(ws),
        "--title",
        "Daemons need nohup",
        "--summary",
        "A long process died when the terminal closed.",
        "--prevention-rule",
        "Start long jobs with nohup.",
    )
    assert result.exit_code == 0, result.output
    hits = _query(invoke, ws, "keep a process running after logging out", "--type", "lesson")
    assert [hit["type"] for hit in hits] == ["lesson"]


def test_vectors_follow_the_articles(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a new or changed article is embedded; a removed one's vector goes; an index made
    with the extra off gets every vector once it is on."""
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "0")
    _workspace(ws, invoke, PAGES)
    assert _query(invoke, ws, "process")  # the index, made without vectors
    root = find_workspace(ws)

    def vectors() -> dict[str, bytes]:
        with sqlite3.connect(index_path(root)) as db:
            rows = db.execute("SELECT path, vec FROM vecs JOIN docs USING (id)").fetchall()
        return dict(rows)

    assert vectors() == {}
    embedded: list[str] = []
    real = semantic.embed

    def counting(texts: Any) -> Any:
        embedded.extend(texts)
        return real(texts)

    monkeypatch.setattr(semantic, "embed", counting)
    monkeypatch.setenv("SKILLWIKI_SEMANTIC", "1")
    assert _query(invoke, ws, "process")
    first = vectors()
    assert len(first) == len(PAGES) and len(embedded) == len(PAGES) + 1  # and the query
    embedded.clear()
    statements: list[str] = []
    prepare = index.prepare_connection

    def traced(db: sqlite3.Connection) -> None:
        db.set_trace_callback(statements.append)
        prepare(db)

    monkeypatch.setattr(index, "prepare_connection", traced)
    write(ws / "notes" / "tail.md", "# tail\n\nFollow a log file as it grows.\n")
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    (ws / ".wiki" / "raw" / "notes" / "cake.md").unlink()
    assert _query(invoke, ws, "process")
    after = vectors()
    assert len(embedded) == 2 and "Follow a log file" in embedded[0]
    # every article had its vector: those just indexed are embedded as they come, and no
    # article is looked for as lacking one
    assert statements and not [s for s in statements if "vecs.id IS NULL" in s]
    assert "notes/cake.md" not in after
    changed = {path for path in after if after[path] != first.get(path)}
    assert changed == {"notes/tail.md"}


def _imports(root: Path, setting: str) -> list[str]:
    code = (
        "import sys\n"
        "from skillwiki.cli.app import make_app\n"
        "sys.argv = ['skillwiki', '-w', sys.argv[1], 'query', 'tool failure retry']\n"
        "try:\n    make_app('query')()\nexcept SystemExit as exc:\n    assert not exc.code\n"
        "print(*sorted(n for n in ('numpy', 'tokenizers', 'wordllama', 'pydantic', 'requests')"
        " if n in sys.modules))\n"
    )
    env = {**os.environ, "SKILLWIKI_SEMANTIC": setting}
    out = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.splitlines()[-1].split()


def test_what_a_query_imports(demo: Path) -> None:
    """Off: nothing of the extra. On: its three libraries, never WordLlama itself nor what it
    brings (pydantic, requests)."""
    assert _imports(demo, "0") == []
    assert _imports(demo, "1") == ["numpy", "tokenizers"]


def test_the_nearest_few_are_the_first_of_all_sorted() -> None:
    """Only the nearest `count` are sorted: the same as sorting all, ties (by id) included."""
    import numpy as np

    generator = np.random.default_rng(1)
    for size in (1, 5, 50, 500):
        for trial in range(20):
            vectors = generator.standard_normal((size, semantic.DIMENSIONS)).astype(np.float32)
            if trial % 3 == 0:
                vectors[: size // 2] = vectors[0]  # many exactly as near
            ids = [int(rowid) for rowid in generator.permutation(10 * size)[:size]]
            every = semantic.nearest("keep a process running", ids, vectors, size)
            for count in {1, 3, max(1, size // 2), size}:
                assert (
                    semantic.nearest("keep a process running", ids, vectors, count)
                    == (every[:count])
                )


def test_explain_says_both_places(ws: Path, invoke: Invoke) -> None:
    _workspace(ws, invoke, PAGES)
    result = invoke("query", "-w", str(ws), "keep a process running after logging out", "--explain")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    cake = lines.index("   .wiki/wiki/notes/cake.md")
    assert lines[cake + 3].startswith("   fused: not among by text, #")
    assert re.fullmatch(
        r"   fused: not among by text, #\d by word vectors \(similarity -?0\.\d\d\)"
        r"(, #\d by sentences \(similarity -?0\.\d\d\))?",
        lines[cake + 3],
    )


def test_a_warm_server_sees_new_vectors(ws: Path, invoke: Invoke) -> None:
    """The vectors read once for an open index are read again after the index changed: a page
    written between two queries is ranked by meaning in the second."""
    from skillwiki.search import search
    from skillwiki.server.live import LiveWorkspace, WorkspaceLookup

    _workspace(ws, invoke, PAGES)
    warm = LiveWorkspace(WorkspaceLookup(ws))
    text = "keep a process running after logging out"

    def ranked() -> dict[str, Any]:
        with warm.reading() as read:
            hits = search(read.ws, text, limit=50, db=read.index)
        return {hit.path: hit.signals for hit in hits}

    before = ranked()
    assert ".wiki/wiki/notes/screen.md" not in before
    write(ws / ".wiki" / "raw" / "notes" / "screen.md", "# screen\n\nDetach a terminal session.\n")
    after = ranked()
    warm.close()
    signals = after[".wiki/wiki/notes/screen.md"]
    assert signals.semantic_rank is not None and signals.text_rank is None
    assert len(after) == len(before) + 1


def _read_anew(db: sqlite3.Connection) -> tuple[list[int], Any]:
    rows = db.execute("SELECT id, vec FROM vecs ORDER BY id").fetchall()
    return [rowid for rowid, _ in rows], semantic.matrix([vec for _, vec in rows])


def test_after_a_change_a_warm_server_reads_only_the_new_vectors(
    ws: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look that changed the index opens it anew; the vectors of the articles that stayed
    are kept from the last read (an id is never given again), and only those of the articles
    that came are read: the same ids and vectors as reading them all."""
    from skillwiki.server.live import LiveWorkspace, WorkspaceLookup

    _workspace(ws, invoke, PAGES)
    warm = LiveWorkspace(WorkspaceLookup(ws))
    converted: list[int] = []
    real = semantic.matrix

    def counting(packed: Any, *shape: int) -> Any:
        converted.append(len(packed))
        return real(packed, *shape)

    monkeypatch.setattr(semantic, "matrix", counting)

    def read() -> tuple[list[int], Any]:
        with warm.reading() as reading:
            ids, vectors, _ = SHARED.read(reading.index)
            expected_ids, expected = _read_anew(reading.index)
        assert ids == expected_ids and np.array_equal(vectors, expected)
        return ids, vectors

    first, _ = read()
    converted.clear()
    raw = ws / ".wiki" / "raw" / "notes"
    by_id = {_id_of(ws, f"notes/{name}"): name for name in PAGES}
    last = max(first)  # the article of the highest id goes, another changes, one comes
    changed = next(name for rowid, name in sorted(by_id.items()) if rowid != last)
    (raw / by_id[last]).unlink()
    write(raw / changed, "# Changed\n\nFollow a log file as it grows.\n")
    write(raw / "screen.md", "# screen\n\nDetach a terminal session.\n")
    ids, _ = read()
    assert converted[0] == 2  # those of the changed and the new article; not the other 3
    assert len(ids) == len(first) and min(set(ids) - set(first)) > last
    warm.close()


def test_after_one_change_the_ids_are_told_without_listing_them(ws: Path, invoke: Invoke) -> None:
    """After one article changed (one id gone, one come) or one came, a warm server tells
    the ids from those above its last read's and from the rows' count and sum, without
    listing every id; after two went it lists them. Each time the ids and vectors are those
    of reading them all."""
    from skillwiki.server.live import LiveWorkspace, WorkspaceLookup

    _workspace(ws, invoke, PAGES)
    warm = LiveWorkspace(WorkspaceLookup(ws))
    raw = ws / ".wiki" / "raw" / "notes"
    names = sorted(PAGES)

    def changed() -> None:
        write(raw / names[0], "# Changed\n\nFollow a log file as it grows.\n")

    def came() -> None:
        write(raw / "screen.md", "# screen\n\nDetach a terminal session.\n")

    def two_went() -> None:
        for name in names[1:3]:
            (raw / name).unlink()

    steps: list[tuple[Callable[[], None], bool]] = [
        (changed, False),
        (came, False),
        (two_went, True),
    ]
    with warm.reading() as reading:
        SHARED.read(reading.index)
    for change, listed in steps:
        change()
        statements: list[str] = []
        with warm.reading() as reading:
            reading.index.set_trace_callback(statements.append)
            ids, vectors, _ = SHARED.read(reading.index)
            reading.index.set_trace_callback(None)
            expected_ids, expected = _read_anew(reading.index)
        assert ids == expected_ids and np.array_equal(vectors, expected)
        assert any("group_concat" in s for s in statements) is listed
    warm.close()


def _id_of(ws: Path, rel: str) -> int:
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        row = db.execute("SELECT id FROM docs WHERE path = ?", (rel,)).fetchone()
    assert row is not None
    return int(row[0])


def test_vectors_kept_from_another_build_of_the_index_are_not_used(
    ws: Path, invoke: Invoke
) -> None:
    """An index built again (deleted, or of another schema) gives its ids from 1 again: what
    was read of the old one is not taken for it."""
    from skillwiki.server.live import LiveWorkspace, WorkspaceLookup

    _workspace(ws, invoke, PAGES)
    warm = LiveWorkspace(WorkspaceLookup(ws))
    with warm.reading() as reading:
        SHARED.read(reading.index)
    warm.close()
    path = index_path(find_workspace(ws))
    with sqlite3.connect(path) as db:  # the same ids for other articles, in the same file
        db.execute("DELETE FROM meta WHERE key = 'schema'")
    write(ws / "notes" / "cake.md", "# Cake\n\nStill flour and sugar.\n")
    (ws / "notes" / "nohup.md").unlink()
    assert invoke("ingest", "-w", str(ws), str(ws / "notes")).exit_code == 0
    for raw in (ws / ".wiki" / "raw" / "notes").iterdir():
        if raw.name == "nohup.md":
            raw.unlink()
    warm = LiveWorkspace(WorkspaceLookup(ws))
    with warm.reading() as reading:
        ids, vectors, _ = SHARED.read(reading.index)
        expected_ids, expected = _read_anew(reading.index)
    warm.close()
    assert ids == expected_ids and np.array_equal(vectors, expected)


@pytest.mark.parametrize("damage", [b"short", "text", None], ids=["cut", "text", "null"])
def test_a_damaged_vector_has_the_index_rebuilt(
    ws: Path, invoke: Invoke, damage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _workspace(ws, invoke, PAGES)
    text = "keep a process running after logging out"
    expected = _query(invoke, ws, text)
    with sqlite3.connect(index_path(find_workspace(ws))) as db:
        if damage is None:
            db.execute("PRAGMA ignore_check_constraints = 1")
            db.execute("DROP TABLE vecs")
            db.execute("CREATE TABLE vecs(id INTEGER PRIMARY KEY, vec BLOB)")
            db.execute("INSERT INTO vecs VALUES (1, NULL)")
        else:
            db.execute("UPDATE vecs SET vec = ? WHERE id = 1", (damage,))
    monkeypatch.setattr(rank, "SHARED", VectorCache())  # as a new process reads: all again
    assert _query(invoke, ws, text) == expected
