"""Ranked hits: free text to FTS5 terms, BM25 re-ranked by the query's words a page holds
close together, and snippets."""

from __future__ import annotations

import bisect
import functools
import heapq
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from skillwiki import references
from skillwiki.documents import body_of
from skillwiki.kinds import RETIRED
from skillwiki.search import index, near, semantic
from skillwiki.search.text import (
    CJK,
    STOP_WORDS,
    marked_letters,
    unmark,
    unmarked_places,
    word_forms,
    words,
)
from skillwiki.workspace import Workspace

# BM25 weights per column: title >> tags, headings > summary (and prevention rule) > body.
WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.0)
CANDIDATES = 200  # BM25's best matches that the ordering by words held close re-ranks
# The query's words that count: its first this many distinct words (stop words left out). Each
# word is a term FTS5 looks up, a pass over the candidates' postings and a word to look for
# in their pages: a pasted log of 100 kB made thousands of them (seconds a query). A question
# holds a few; a long prompt's first 64 words tell what it is about.
MAX_QUERY_WORDS = 64
# Up to this many roots in ASCII are each looked for on their own (Marks.each); more are
# looked for in one pass of one expression.
_EACH_AT_MOST = 4
# Reciprocal-rank fusion with semantic search (the extra): each ranking gives a page
# 1 / (RRF_K + its rank); 60 is the constant of the method's authors (Cormack et al., 2009).
RRF_K = 60
# Neither part may hold its own opener: each `[` or `(` then ends the scan of the one before,
# and a line of thousands of them costs its length, not its square.
_LINK_TEXT = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")
# The same without the `!` of an image, for a whole body at once: no match may run past the
# end of its line. Opening with `[`, it lets the regex engine skip to each one (_strip_links).
_LINK_IN_A_LINE = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*\)")
# A line of HTML tags alone (`<a id="x"></a>`, an anchor before a heading): not text to show.
_TAGS_ONLY = re.compile(r"(?:<[^<>]*>\s*)+")
# Lines a snippet never shows: the title (its own field of a hit) and a code fence's marker
# line, whose info string (`yaml title=".gitlab-ci.yml"`) is markup, not the page's text.
_NOT_SHOWN = ("# ", "```", "~~~")
# A heading's opening marks (CommonMark's ATX heading): a snippet shows its text.
_HEADING_OPENING = re.compile(r"#{1,6}(?=[ \t]|\Z)")
# Line breaks other than \n that str.splitlines cuts at too.
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True)
class Signals:
    """What ranked a hit: the query's words it holds, how many of them it holds close together
    (near.py; None: not looked at, it could not rank among the best), its BM25, how many
    other articles refer to it and what that multiplied its BM25 by; with semantic search, its
    place in the text ranking and in the semantic one (None: not among that ranking's
    candidates) and the cosine similarity of its vector to the query's."""

    words: int
    bm25: float
    referred_by: int
    boost: float
    fused: bool = False
    text_rank: int | None = None
    semantic_rank: int | None = None
    similarity: float | None = None
    near: int | None = None


_SIGNALS = tuple(item.name for item in fields(Signals))


@dataclass(frozen=True)
class Hit:
    path: str  # relative to the workspace root
    title: str
    type: str
    score: float
    snippet: str
    signals: Signals | None = field(default=None, compare=False)  # kept out of plain output

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The hit as `query --json` prints it; with `explain`, what ranked it too. (Made field by
        field: `asdict` deep-copies each value, 0.4 ms of a warm query's 6 for ten hits.)"""
        shown: dict[str, Any] = {
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "score": self.score,
            "snippet": self.snippet,
        }
        if explain:
            signals = self.signals
            shown["signals"] = (
                None if signals is None else {name: getattr(signals, name) for name in _SIGNALS}
            )
        return shown

    def relevance(self, terms: int) -> float:
        """The score as a share (0 to 1) of the most a hit for a query of `terms` words can
        reach: every word held close together and BM25 near its top, or, fused with semantic
        search, first in both rankings."""
        if self.signals is not None and self.signals.fused:
            return min(1.0, self.score)
        return min(1.0, self.score / (terms + 1)) if terms else 0.0


def query_terms(text: str) -> tuple[list[str], list[str]]:
    """Turn free text into FTS5 terms, and phrases that reward the words standing together.

    Terms are the quoted words (stop words dropped); the last also matches as a prefix, for
    queries typed as they are thought. Boosts are each pair of neighbouring words as a phrase
    (but for two character pairs of one CJK run: _one_run) and all the words within ten
    tokens of each other: they only add to the score.
    """
    return _terms_of(_kept(text))


def _terms_of(kept: list[str]) -> tuple[list[str], list[str]]:
    """`query_terms` of the query's words that count."""
    terms = [f'"{word}"' for word in kept]
    if _prefixed(kept):
        terms[-1] = f"({terms[-1]} OR {terms[-1]}*)"
    boosts = [
        f'"{left} {right}"'
        for left, right in zip(kept, kept[1:], strict=False)
        if not _one_run(left, right)
    ]
    if len(kept) > 2:
        boosts.append("NEAR(" + " ".join(f'"{word}"' for word in kept) + f", {near.NEAR_WORDS})")
    return terms, boosts


def _one_run(left: str, right: str) -> bool:
    """Whether two neighbouring words are overlapping character pairs of one CJK run (`同步`
    and `步两` of `同步两个目录`). As a phrase they would be three of the query's characters
    as written: a reward for a page worded as the query, which a question asked in other
    words does not get, while each pair, and the pairs held close together, count already."""
    return bool(CJK.fullmatch(left) and CJK.fullmatch(right)) and left[-1] == right[0]


def _prefixed(kept: Sequence[str]) -> str | None:
    """The query's word that the index also matches by its start alone: the last, unless CJK
    or shorter than three letters."""
    if kept and not CJK.search(kept[-1]) and len(kept[-1]) >= 3:
        return kept[-1]
    return None


def _kept(text: str) -> list[str]:
    """The query's words that count: each once, stop words dropped unless all are."""
    return _kept_of(words(text))


def _kept_of(found: Sequence[str]) -> list[str]:
    """`_kept` of words already found. Each once even when all are stop words: a query that
    repeats one ("a a a …", a pasted log) made a term and a phrase of each repeat, and its time
    grew with their square (400 repeats of "the": 14 s). The first MAX_QUERY_WORDS only."""
    return _distinct(found)[:MAX_QUERY_WORDS]


def _distinct(found: Sequence[str]) -> list[str]:
    """The distinct words of `found` in order, stop words left out unless all are."""
    return list(dict.fromkeys(word for word in found if word not in STOP_WORDS)) or list(
        dict.fromkeys(found)
    )


def words_left_out(text: str) -> int:
    """How many distinct words of a query beyond its first MAX_QUERY_WORDS it is not searched
    for (0 for most queries)."""
    return max(0, len(_distinct(words(text))) - MAX_QUERY_WORDS)


def search(
    ws: Workspace,
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    tags: Sequence[str] = (),
    include_hidden: bool = False,
    db: sqlite3.Connection | None = None,
) -> list[Hit]:
    """Return the best `limit` articles for `text`, best first.

    SQLite ranks the matches by weighted BM25; of its best CANDIDATES, those that hold more
    of the query's words close together (near.py) rank first, BM25 deciding among equals,
    scaled by how many other articles refer to each (references.py). The score is that count
    of words plus that BM25 squashed into [0, 1), so 3.62 reads "three words together, fairly
    relevant". (Small wikis need the first part: there BM25 gives words that most articles
    share no weight at all; and counting the words held together, not anywhere, keeps a long
    page that holds them in different sections from outranking the page about them.)
    """
    distinct = _distinct(words(text))
    kept = distinct[:MAX_QUERY_WORDS]
    terms, boosts = _terms_of(kept)
    if not terms:
        return []
    match = " OR ".join(terms + boosts)
    wanted = max(CANDIDATES, limit)
    filters = Filters(kind, tuple(tags), include_hidden)
    roots = [_root(word).lower() for word in kept]  # one per term, in order
    # What semantic search embeds: the query, or of a query cut to its first words, those.
    meaning = text if len(distinct) <= MAX_QUERY_WORDS else " ".join(kept)
    bodies: dict[str, bytes] = {}  # the articles read whole, for their snippets

    def run(
        db: sqlite3.Connection,
    ) -> tuple[list[Any], dict[int, Close], dict[int, int], dict[int, float], Any]:
        rows = _best_matches(db, match, filters, wanted)
        ids = [row[0] for row in rows]
        held = _coverage(db, terms, ids) if len(terms) > 1 else {}
        inbound = _inbound(db, ids)
        parts = _parts(rows, inbound)
        close = _closeness(ws, rows, held, roots, limit, bodies, parts)
        # Semantic search only reorders and widens what the text found: never a hit for a
        # query whose words are in no article.
        similar = _nearest(db, meaning, filters, wanted) if rows and semantic.available() else []
        return rows, close, inbound, parts, similar

    rows, close, inbound, parts, nearest = index.read(ws, db, run)
    ranked = []
    for rowid, rel, title, kind_, _ in rows:
        held, together = close[rowid]
        count = held if together is None else together  # not looked at: ranks below the best
        ranked.append((count + parts[rowid], rel, title, kind_, rowid))
    ranked.sort(key=lambda row: (-row[0], row[1]))
    bm25_of = {row[0]: row[4] for row in rows}

    def signals_of(rowid: int) -> Signals:  # of the hits shown only: 0.5 ms for all 200
        referring = inbound.get(rowid, 0)
        boost = references.boost(referring)
        held, together = close[rowid]
        return Signals(held, round(bm25_of[rowid], 4), referring, round(boost, 4), near=together)

    if nearest:
        shown = _fuse(ranked, nearest, limit, signals_of)
    else:
        shown = [(*row[:4], signals_of(row[4]), row[4]) for row in ranked[:limit]]
    marks = Marks.of(kept, prefix=_prefixed(kept))
    wiki = str(ws.wiki)
    return [
        Hit(
            f".wiki/wiki/{rel}",
            title,
            kind_,
            round(score, 4),
            _snippet(f"{wiki}/{rel}", marks, opening=signals.words == 0, data=bodies.get(rel)),
            signals,
        )
        for score, rel, title, kind_, signals, _ in shown
    ]


def _fuse(
    ranked: list[Any], near: list[Any], limit: int, signals_of: Callable[[int], Signals]
) -> list[Any]:
    """The best `limit` of the text ranking (score, path, title, type, id) and the semantic
    one as one, by reciprocal-rank fusion: each page scores the sum of 1 / (RRF_K + its rank)
    in each, over the most it can reach (first in both), so 1.0 is the best score. Each comes
    with its signals (`signals_of` those the text ranking holds). Equal scores go by the text
    ranking, then by path: a page found by meaning alone, first there, ties with the one page
    that holds a rare word and is not among the nearest, and must not pass it by its name."""
    best = 2.0 / (RRF_K + 1)
    text_places = {row[4]: place for place, row in enumerate(ranked, start=1)}
    near_places = {row[0]: (place, row[1]) for place, row in enumerate(near, start=1)}
    pages = {row[4]: row[1:4] for row in ranked}  # (path, title, type) by id
    for rowid, _, rel, title, kind_ in near:
        pages.setdefault(rowid, (rel, title, kind_))
    scores = []
    unranked = len(ranked) + 1  # below every page the text ranking holds
    for rowid, page in pages.items():
        places = (text_places.get(rowid), near_places.get(rowid, (None,))[0])
        score = sum(1.0 / (RRF_K + place) for place in places if place) / best
        scores.append((score, text_places.get(rowid, unranked), page[0], rowid))
    scores.sort(key=lambda row: (-row[0], row[1], row[2]))
    fused = []
    for score, _, rel, rowid in scores[:limit]:  # the signals of those shown only
        _, title, kind_ = pages[rowid]
        semantic_rank, similarity = near_places.get(rowid, (None, None))
        signals = replace(
            signals_of(rowid) if rowid in text_places else Signals(0, 0.0, 0, 1.0),
            fused=True,
            text_rank=text_places.get(rowid),
            semantic_rank=semantic_rank,
            similarity=None if similarity is None else round(similarity, 4),
        )
        fused.append((score, rel, title, kind_, signals, rowid))
    return fused


@dataclass(frozen=True)
class _Vectors:
    """The vectors a search read last: of which connection and in what state of it (nothing
    to read again while that holds), of which index (`source`: ids mean the same articles in
    any connection to it while this holds, since an id is never given again), and the ids with
    their vectors, in the order of the ids."""

    db: sqlite3.Connection
    state: tuple[int, int]
    source: tuple[str, str] | None
    ids: list[int]
    matrix: Any


# The last vectors read, so that a server asking again of an unchanged index does not read
# every vector again, and after a change reads only those of the articles that changed.
_VECTORS: list[_Vectors] = []
_CHANGED_AT_MOST = 64  # articles gone or come since the last read, to read only those


def _nearest(db: sqlite3.Connection, text: str, filters: Filters, wanted: int) -> list[Any]:
    """The `wanted` articles passing the filters whose vectors are nearest the query's, as
    (id, similarity, path, title, type) rows, nearest first."""
    ids, vectors = _vectors(db)
    if not ids:
        return []
    similarity = vectors @ semantic.embed_query(text)
    where, params = _filter_sql(filters)
    found: list[Any] = []
    for count in (wanted, len(ids)):  # all of them only when the filters left too few
        nearest = semantic.top(ids, similarity, count)
        similarities = dict(nearest)
        rows: dict[int, Any] = {}
        for marks, chunk in index.in_chunks([rowid for rowid, _ in nearest]):
            clauses = " AND ".join([f"id IN ({marks})", *where])
            for row in db.execute(
                f"SELECT id, path, title, type FROM docs WHERE {clauses}", [*chunk, *params]
            ):
                rows[row[0]] = row
        found = [
            (rowid, similarities[rowid], *rows[rowid][1:]) for rowid, _ in nearest if rowid in rows
        ]
        if len(found) >= wanted or count >= len(ids):
            break
    return found[:wanted]


def prime(db: sqlite3.Connection) -> None:
    """Read the index's vectors now, if semantic search is on, rather than in the next search:
    a server does so after a look it made before it was asked."""
    if semantic.available():
        try:
            _vectors(db)
        except sqlite3.Error:  # the next search meets it, and mends the index
            return


def _vectors(db: sqlite3.Connection) -> tuple[list[int], Any]:
    """The ids and vectors of every article, read again only when the index changed, and then
    only those of the articles that came since the last read of the same index."""
    state = (db.execute("PRAGMA data_version").fetchone()[0], db.total_changes)
    last = _VECTORS[0] if _VECTORS else None
    if last is not None and last.db is db and last.state == state:
        return last.ids, last.matrix
    begun = not db.in_transaction
    if begun:  # the reads below see one state of the index
        db.execute("BEGIN")
    try:
        source = _source(db)
        read = None
        if last is not None and source is not None and last.source == source:
            read = _vectors_since(db, last)
        if read is None:
            stored = db.execute("SELECT id, vec FROM vecs ORDER BY id").fetchall()
            read = [rowid for rowid, _ in stored], _matrix(stored)
    finally:
        if begun:
            db.execute("COMMIT")
    _VECTORS[:] = [_Vectors(db, state, source, *read)]
    return read


def _source(db: sqlite3.Connection) -> tuple[str, str] | None:
    """Which index this is, as far as its vectors go: its file and its build (None: not one
    that another connection can share, or one whose vectors are not all of this model)."""
    file = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('built', 'vectors')"))
    if not file or meta.get("vectors") != semantic.MODEL or "built" not in meta:
        return None
    return file, str(meta["built"])


def _vectors_since(db: sqlite3.Connection, last: _Vectors) -> tuple[list[int], Any] | None:
    """The ids and vectors as `last` had them, less those gone since and with those that came
    after them (read from the index); None if that is not what the index holds now, or if so
    many changed that reading them all costs no more."""
    import numpy as np

    before = np.asarray(last.ids, dtype=np.int64)
    found = _changed_ids(db, last.ids)
    if found is not None:
        came, gone = found
        now = np.concatenate([np.delete(before, gone), np.asarray(came, dtype=np.int64)])
    else:
        # With every article's vector of this model (_source), the articles' ids are the
        # vectors': read from the index of paths (not the rows of 260 bytes), as one text
        # that NumPy splits (a Python object a row would cost most of the time).
        (listed,) = db.execute("SELECT group_concat(id) FROM docs").fetchone()
        now = np.sort(np.fromstring(listed or "", dtype=np.int64, sep=","))
        came = np.setdiff1d(now, before, assume_unique=True).tolist()
        gone = np.flatnonzero(~np.isin(before, now, assume_unique=True)).tolist()
    if not came and not gone:
        return last.ids, last.matrix
    if len(came) + len(gone) > _CHANGED_AT_MOST or (came and before.size and came[0] < before[-1]):
        return None  # many, or given ids below those kept (the extra was off): read them all
    stored = []
    for marks, chunk in index.in_chunks(came):
        stored += db.execute(f"SELECT id, vec FROM vecs WHERE id IN ({marks})", chunk).fetchall()
    if len(stored) != len(came):
        return None
    stored.sort()
    matrix = np.empty((len(now), last.matrix.shape[1]), dtype=last.matrix.dtype)
    at = 0
    for start, end in zip([-1, *gone], [*gone, len(before)], strict=True):  # the rows kept
        matrix[at : at + end - start - 1] = last.matrix[start + 1 : end]
        at += end - start - 1
    matrix[at:] = _matrix(stored)
    return now.tolist(), matrix


def _changed_ids(db: sqlite3.Connection, ids: list[int]) -> tuple[list[int], list[int]] | None:
    """The ids that came since `ids` (sorted) were read, and the places in `ids` of those
    gone, when at most one went; None when more did (then the ids are listed).

    An id is never given again (AUTOINCREMENT), so those that came are the ones above the
    last read's top, and the count of rows tells how many went; one gone is told by the sum
    of the ids, which an index of paths gives without the text of every id (the change of
    one article is one gone and one come)."""
    top = ids[-1] if ids else 0
    above = db.execute(
        "SELECT id FROM docs WHERE id > ? ORDER BY id LIMIT ?", (top, _CHANGED_AT_MOST + 1)
    )
    came = [rowid for (rowid,) in above]
    if len(came) > _CHANGED_AT_MOST:
        return None
    (rows,) = db.execute("SELECT count(*) FROM docs").fetchone()
    went = len(ids) + len(came) - rows
    if went == 0:
        return came, []
    if went != 1:
        return None
    (total,) = db.execute("SELECT sum(id) FROM docs").fetchone()
    gone = sum(ids) + sum(came) - int(total or 0)
    place = bisect.bisect_left(ids, gone)
    if place == len(ids) or ids[place] != gone:
        return None
    return came, [place]


def _matrix(stored: list[Any]) -> Any:
    """The vectors of (id, vec) rows as one matrix, each checked to be one."""
    if any(not isinstance(vec, bytes) or len(vec) != semantic.PACKED for _, vec in stored):
        raise index.Damaged("a stored vector is not one")
    return semantic.matrix([vec for _, vec in stored])


@dataclass(frozen=True)
class Filters:
    """Which articles a search may return."""

    kind: str | None = None
    tags: tuple[str, ...] = ()
    include_hidden: bool = False


def _best_matches(
    db: sqlite3.Connection, match: str, filters: Filters, wanted: int, *, fast: bool = True
) -> list[Any]:
    """The `wanted` best matches by weighted BM25 that pass the filters (ties by path), as
    (id, path, title, type, bm25) rows.

    Asking FTS5 alone for its best (then reading those few rows of docs) is the fast way;
    joining docs to every match is the exact one, and is taken whenever the fast answer could
    differ from it: a filter on type or tag, a hidden article among the best, or a tie in
    BM25 at the cut.
    """
    weights = ", ".join(str(weight) for weight in WEIGHTS)
    if fast and filters.kind is None and not filters.tags:
        best = db.execute(
            f"SELECT rowid, -bm25(fts, {weights}) AS score FROM fts WHERE fts MATCH ? "
            "ORDER BY score DESC LIMIT ?",
            (match, wanted + 1),
        ).fetchall()
        if not best:
            return []
        cut = len(best) > wanted
        if not (cut and best[wanted - 1][1] == best[wanted][1]):
            found = _docs(db, best[:wanted])
            if found is not None:
                visible = [row for row in found if filters.include_hidden or row[5] not in RETIRED]
                if len(visible) == len(found) or not cut:
                    return sorted((row[:5] for row in visible), key=lambda row: (-row[4], row[1]))
    where, params = _filter_sql(filters, "docs.")
    where.insert(0, "fts MATCH ?")
    params.insert(0, match)
    sql = (
        f"SELECT docs.id, docs.path, docs.title, docs.type, -bm25(fts, {weights}) AS score "
        f"FROM fts JOIN docs ON docs.id = fts.rowid WHERE {' AND '.join(where)} "
        "ORDER BY score DESC, docs.path LIMIT ?"
    )
    return db.execute(sql, (*params, wanted)).fetchall()


def _filter_sql(filters: Filters, table: str = "") -> tuple[list[str], list[Any]]:
    """The conditions on the docs table (as `table`) that the filters make, with parameters."""
    where: list[str] = []
    params: list[Any] = []
    if filters.kind is not None:
        where.append(f"{table}type = ?")
        params.append(filters.kind)
    for tag in filters.tags:
        where.append(f"instr(char(31) || {table}tags || char(31), char(31) || ? || char(31)) > 0")
        params.append(tag.lower())
    if not filters.include_hidden:
        where.append(f"{table}status NOT IN (?, ?)")
        params.extend(RETIRED)
    return where, params


def _docs(db: sqlite3.Connection, best: list[Any]) -> list[Any] | None:
    """(id, path, title, type, bm25, status) of these (rowid, bm25) matches; None if one has
    no row in docs."""
    score = dict(best)
    found = db.execute(
        f"SELECT id, path, title, type, status FROM docs WHERE id IN ({','.join('?' * len(best))})",
        list(score),
    ).fetchall()
    if len(found) != len(best):
        return None
    return [(*row[:4], score[row[0]], row[4]) for row in found]


def _parts(rows: list[Any], inbound: Mapping[int, int]) -> dict[int, float]:
    """Per (id, path, title, type, bm25) match, the part of its score below its count of
    words: its BM25 times its boost for the articles referring to it, squashed."""
    return {row[0]: _squash(row[4] * references.boost(inbound.get(row[0], 0))) for row in rows}


def _squash(bm25: float) -> float:
    """BM25 into [0, 1): the part of a score below the count of words matched."""
    positive = max(bm25, 0.0)
    return positive / (1.0 + positive)


# Per candidate: the query's words it holds, and how many of them it holds close together
# (None: not looked at, since it could not rank among the best).
Close = tuple[int, int | None]


def _closeness(
    ws: Workspace,
    rows: list[Any],
    held: dict[int, int],
    roots: Sequence[str],
    limit: int,
    bodies: dict[str, bytes],
    part: Mapping[int, float],
) -> dict[int, Close]:
    """How many of the query's words each candidate holds close together (near.py), looked up
    in its article for those that may end among the best `limit`; `held` tells which of the
    words each holds (bit i: roots[i], the root of the query's i-th word), `part` the part
    of each one's score below its count of words (its BM25 times its boost, squashed), and the
    articles read whole are left in `bodies`.

    A page holds no more words together than it holds as the index found them, so the pages
    are read in the order of those, and reading stops at the first that holds fewer than the
    `limit`-th best found: it, and all after it, rank below those. One that could not score
    above the `limit`-th best even holding all its words together is skipped (most pages read
    before were such: as many words as that one, and less BM25 × boost). A page counts at
    least one word (the index found it by one, perhaps in its tags). With one word, nothing
    need be read.
    """
    masks = {row[0]: held.get(row[0]) or 1 for row in rows}
    counts = {rowid: mask.bit_count() for rowid, mask in masks.items()}
    if len(set(roots)) < 2:
        return {rowid: (count, count) for rowid, count in counts.items()}
    wiki = str(ws.wiki)
    close: dict[int, Close] = {rowid: (count, None) for rowid, count in counts.items()}
    best: list[float] = []  # the `limit` best scores so far (as search makes them), a heap
    for row in sorted(rows, key=lambda row: (-counts[row[0]], -row[4], row[1])):
        rowid, rel = row[0], row[1]
        if len(best) >= limit and counts[rowid] + part[rowid] < best[0]:
            if counts[rowid] + 1 <= best[0]:  # nor can any after it, holding no more words
                break
            continue
        data, whole = _article_head(f"{wiki}/{rel}")
        if whole and data is not None:
            bodies[rel] = data
        together = counts[rowid]
        if data is not None:
            mask = masks[rowid]
            own = list(dict.fromkeys(root for bit, root in enumerate(roots) if mask >> bit & 1))
            together = max(1, min(together, near.held_near(body_of(data), own)))
        close[rowid] = (counts[rowid], together)
        score = together + part[rowid]
        if len(best) < limit:
            heapq.heappush(best, score)
        elif score > best[0]:
            heapq.heapreplace(best, score)
    return close


def _article_head(path: str) -> tuple[bytes | None, bool]:
    """An article file's bytes, or its first near.READ_BYTES if it is longer (None: it cannot
    be read), and whether that is the whole of it."""
    data = _file_bytes(path, near.READ_BYTES + 1)
    if data is None:
        return None, False
    return data[: near.READ_BYTES], len(data) <= near.READ_BYTES


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _article_body(path: str | Path) -> str | None:
    """An article's body (None: it cannot be read)."""
    data = _file_bytes(path)
    return None if data is None else body_of(_decoded(data))


def _file_bytes(path: str | Path, most: int | None = None) -> bytes | None:
    """A file's bytes, or its first `most` (None: it cannot be read), read with os calls:
    open() and read() build two Python objects, a third of the cost on a page of tldr. A
    file read whole is read to its end, should it have grown since its stat."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            left = os.fstat(fd).st_size + 1 if most is None else most
            parts = []
            while left > 0 and (chunk := os.read(fd, left)):
                parts.append(chunk)
                left = 1 << 16 if most is None else left - len(chunk)
        finally:
            os.close(fd)
    except OSError:
        return None
    return b"".join(parts)


def _inbound(db: sqlite3.Connection, ids: list[int]) -> dict[int, int]:
    """How many other articles refer to each of these (references.py), as the index counted
    it when it took them in (none: no row)."""
    counts: dict[int, int] = {}
    for marks, chunk in index.in_chunks(ids):
        counts.update(db.execute(f"SELECT id, inbound FROM prior WHERE id IN ({marks})", chunk))
    return counts


def _coverage(db: sqlite3.Connection, terms: Sequence[str], ids: list[int]) -> dict[int, int]:
    """Return, per candidate document, which of the terms it contains: bit i for terms[i]."""
    # Streaming each term's matches and filtering here beats asking FTS5 for `rowid IN (...)`,
    # which seeks in the term's doclist once per candidate.
    held = dict.fromkeys(ids, 0)
    for bit, term in enumerate(terms):
        for (rowid,) in db.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (term,)):
            if rowid in held:
                held[rowid] |= 1 << bit
    return held


def snippet(path: Path, terms: Sequence[str], width: int = 160, *, opening: bool = False) -> str:
    """Return the line of the article that matches the most terms, with them in **bold**; with
    `opening` (a page found by meaning alone, holding none of them), its first line of text."""
    kept = _kept_of(terms)
    return _snippet(path, Marks.of(kept, prefix=_prefixed(kept)), width, opening=opening)


def _snippet(
    path: str | Path,
    marks: Marks | None,
    width: int = 160,
    *,
    opening: bool = False,
    data: bytes | None = None,
) -> str:
    """`snippet`, with the query's Marks made once for all the hits; `data`: the article's
    bytes if read already (None: read it here)."""
    if marks is None:
        return ""
    body = _article_body(path) if data is None else body_of(_decoded(data))
    if body is None:
        return ""
    # Words are found as the index finds them, in the text with marked letters unmarked
    # (`E[x]tract`); the line is shown as written (code such as `v[0]` stays as it is).
    plain = unmark(body) if marked_letters(body) else body
    best = _best_line(plain, marks)
    if not best and opening:
        best = best_line_by_line(plain, Marks(re.compile(r"\A")))  # the first line
    if not best:
        return ""
    written = _as_written(body, plain, best) if plain is not body else None
    if written is not None:
        return _marked_as_written(_text_of(written).replace("**", ""), marks, width)
    best = _text_of(best).replace("**", "")  # the text's own bold: a mark inside it would nest
    first = next((m for m in marks.pattern.finditer(best) if marks.counts(m.group(0))), None)
    start = max(0, (first.start() if first else 0) - width // 3)
    cut = best[start : start + width]
    cut = ("…" if start else "") + cut + ("…" if start + width < len(best) else "")
    return marks.pattern.sub(_bold(marks), cut)


def _text_of(line: str) -> str:
    """A line as a snippet shows it: a heading's text without its `#` marks (`## Install ##`
    shows `Install`), as markdown-it takes them off, and without an attribute list that names
    its anchor (`{ #install }`, markdown.trailing_attrs); any other line as it is."""
    opening = _HEADING_OPENING.match(line) if line.startswith("#") else None
    if opening is None:
        return line
    text = line[opening.end() :].rstrip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed.endswith((" ", "\t")):  # a closing sequence
        text = unclosed
    text = text.strip()
    if text.endswith("}"):
        from skillwiki.markdown import trailing_attrs

        attrs = trailing_attrs(text)
        if attrs is not None:
            text = attrs[0]
    return text


def _as_written(body: str, plain: str, best: str) -> str | None:
    """The line of `body` that `best`, a line of its unmarked text `plain`, was taken from,
    as snippets show a line (links as their text); None if no line of it is."""
    for written, line in zip(body.splitlines(), plain.splitlines(), strict=False):
        if _LINK_TEXT.sub(_link_text, line).strip() == best:
            return _LINK_TEXT.sub(_link_text, written).strip()
    return None


def _marked_as_written(line: str, marks: Marks, width: int) -> str:
    """`line` cut to `width` around its first of the query's words and those in **bold**,
    the words found in it with its marked letters unmarked, each marked whole as written."""
    plain, starts, ends = unmarked_places(line)
    spans = [
        (starts[match.start()], ends[match.end() - 1])
        for match in marks.pattern.finditer(plain)
        if match.end() > match.start() and marks.counts(match.group(0))
    ]
    start = max(0, (spans[0][0] if spans else 0) - width // 3)
    stop = start + width
    parts = ["…" if start else ""]
    done = start
    for left, right in spans:
        if left >= done and right <= stop:
            parts += [line[done:left], "**", line[left:right], "**"]
            done = right
    parts += [line[done:stop], "…" if stop < len(line) else ""]
    return "".join(parts)


def _bold(marks: Marks) -> Callable[[re.Match[str]], str]:
    def bold(match: re.Match[str]) -> str:
        found = match.group(0)
        return f"**{found}**" if marks.counts(found) else found

    return bold


@dataclass(frozen=True)
class Marks:
    """What a snippet marks: each root of the query's words at the start of a word (a CJK
    root anywhere), in any case, as `pattern` matches them.

    `spans` gives the spans of `pattern.finditer`, found faster on long bodies. A pattern that
    opens with `\\b`, or is read in any case, makes the regex engine try every position; one
    that opens with letters of one case lets it skip to where they occur. So it scans for
    the roots alone and keeps the matches at a word's start. That is exact: a match it drops
    covers word characters to the end of its word, where no root can start a word. Roots
    in ASCII are looked for in the lower-cased text, unless it holds one of the four letters
    that the regex engine, ignoring case, takes for an ASCII one though lower-casing does not
    give it (CASE_ODD). With CJK roots among the others (a dropped match could run over one)
    it takes `pattern` itself. A few roots in ASCII (up to _EACH_AT_MOST) are each looked
    for on their own (`each`), their matches then put in order: an alternation of literals
    makes the engine try every position again, and took 0.8 ms over 91 kB of uv's docs for
    two roots, against 0.17 ms one by one. More are looked for in one pass: every pattern
    holds the roots as a tree of their letters (_either), so that the engine tries a position
    letter by letter whatever the number of roots, not root by root. Roots are word
    characters (text.words), so a root's match runs to the end of its word, as any other's at
    the same start does: the same spans.
    """

    pattern: re.Pattern[str]
    scan: re.Pattern[str] | None = None  # the roots without `\b`; None: use `pattern`
    lowered: re.Pattern[str] | None = None  # the same in lower case, when all are ASCII
    each: tuple[re.Pattern[str], ...] = ()  # `lowered` root by root, when there are several
    roots: tuple[str, ...] = ()  # lower case, longest first
    # Per root: the index's stems of the query's words it stands for, and whether one of them
    # is the word the index also matches by its start alone (_prefixed). None: mark every
    # match (the first line of a page found by meaning).
    words: Mapping[str, tuple[frozenset[str], bool]] | None = None

    @classmethod
    def of(cls, terms: Sequence[str], *, prefix: str | None = None) -> Marks | None:
        """The marks of the query's words `terms`; `prefix`: the one the index matches by its
        start alone too."""
        found: set[str] = set()
        meant: dict[str, tuple[frozenset[str], bool]] = {}
        for term in terms:
            if term in STOP_WORDS:
                continue
            root = _root(term)
            found.add(root)
            stems, by_start = meant.get(root.lower(), (frozenset(), False))
            meant[root.lower()] = (stems | frozenset(_stems(term)), by_start or term == prefix)
        roots = sorted(found, key=len, reverse=True)
        if not roots:
            return None
        pattern = re.compile(_word_start_pattern(roots), re.IGNORECASE)
        lower = tuple(root.lower() for root in roots)
        if any(CJK.match(root) for root in roots):
            return cls(pattern, roots=lower, words=meant)
        scan = _either(roots) + r"\w*"
        lowered = None
        each: tuple[re.Pattern[str], ...] = ()
        if all(root.isascii() for root in roots):
            lowered = re.compile(_either(lower) + r"\w*")
            if 1 < len(lower) <= _EACH_AT_MOST:
                each = tuple(re.compile(rf"{re.escape(root)}\w*") for root in lower)
        return cls(
            pattern,
            re.compile(scan, re.IGNORECASE),
            lowered=lowered,
            each=each,
            roots=lower,
            words=meant,
        )

    def counts(self, found: str) -> bool:
        """Whether a match (a root and the rest of its word) is one of the query's words as
        the index finds them: the word, or its first part where the index cuts it too (at `_`
        or a camel-case break), has one of the word's stems; or the word is the one matched by
        its start. `tar` does not mark "target", which a query for "tar" does not find."""
        if self.words is None:
            return True
        root = self.root_of(found)
        stems, by_start = self.words.get(root, (frozenset(), True))
        if by_start or CJK.match(root):
            return True
        return any(
            form in stems or not stems.isdisjoint(_stems(form)) for form in word_forms(found)
        )

    def root_of(self, match: str) -> str:
        """The query's word a match stands for: "updates" and "updating" are one word. The
        longest root it starts with, looked up by length: a lookup per length of root, not a
        comparison per root."""
        found = match.lower()
        held, lengths = self._by_length
        return next((found[:size] for size in lengths if found[:size] in held), found)

    @functools.cached_property
    def _by_length(self) -> tuple[frozenset[str], tuple[int, ...]]:
        """The roots, and their lengths longest first."""
        return frozenset(self.roots), tuple(
            sorted({len(root) for root in self.roots}, reverse=True)
        )

    def spans(self, text: str, lowered: str | None = None) -> Iterator[tuple[int, int]]:
        """The spans `pattern.finditer(text)` finds; `lowered`: `text.lower()`, when `text`
        holds no CASE_ODD letter."""
        if self.scan is None:
            yield from (match.span() for match in self.pattern.finditer(text))
            return
        if self.each and lowered is not None:
            # Each root's matches, in order of their starts; two roots matching at the same
            # start match the same word to its end: one span.
            last = -1
            for start, end in sorted(m.span() for one in self.each for m in one.finditer(lowered)):
                if start != last and (start == 0 or not _is_word(text[start - 1])):
                    yield start, end
                last = start
            return
        found = self.scan.finditer(text)
        if self.lowered is not None and lowered is not None:
            found = self.lowered.finditer(lowered)
        for match in found:
            start = match.start()
            if start == 0 or not _is_word(text[start - 1]):
                yield match.span()


# The letters outside ASCII that the regex engine, ignoring case, matches to an ASCII word
# character, or whose lower case is not one letter (İ, ı, ſ, and the Kelvin sign): held to
# be all of them by a test that tries every code point.
CASE_ODD = "\u0130\u0131\u017f\u212a"


def _is_word(char: str) -> bool:
    """Whether `char` is a word character as the regex engine's `\\w` has it (str patterns)."""
    return char.isalnum() or char == "_"


def _best_line(body: str, marks: Marks) -> str:
    """The article's line (link markup removed) holding the most of the query's words (a word
    matched in two forms counts once); the first wins.

    One pass of the pattern over the whole body, then a look at the lines that matched: the
    same answer as `best_line_by_line` (held equal on real trees by a test), which a body with
    line breaks other than \\n still takes.
    """
    prose = _prose(body)
    if prose is None:
        return best_line_by_line(body, marks)
    text, lowered = prose
    found: dict[int, dict[str, list[str]]] = {}  # start of a line -> its matches by root
    roots: dict[str, str] = {}  # root_of each word matched (a page says the same few often)
    line_start = 0
    for start, end in marks.spans(text, lowered):
        line_start = text.rfind("\n", line_start, start) + 1 or line_start
        match = text[start:end]
        root = roots.get(match)
        if root is None:
            root = roots[match] = marks.root_of(match)
        found.setdefault(line_start, {}).setdefault(root, []).append(match)
    # The lines by how many words they may hold, most first: a line holds no more than the
    # roots matched in it, so the look at the words (Marks.counts) stops at the first line
    # that cannot reach the best count; among equals the first line wins.
    best, best_count, best_start = "", 0, -1
    for line_start, by_root in sorted(found.items(), key=lambda item: (-len(item[1]), item[0])):
        if len(by_root) < best_count:
            break
        if len(by_root) == best_count and line_start > best_start:
            continue
        end = text.find("\n", line_start)
        line = text[line_start : end if end >= 0 else len(text)].strip()
        if line.startswith(_NOT_SHOWN) or _TAGS_ONLY.fullmatch(line):
            continue
        count = sum(1 for matches in by_root.values() if any(map(marks.counts, matches)))
        if count > best_count or (count and count == best_count and line_start < best_start):
            best, best_count, best_start = line, count, line_start
    return best


@functools.lru_cache(maxsize=32)
def _prose(body: str) -> tuple[str, str | None] | None:
    """The body's text as snippets read it (cut at the compiler's `## Sources`, each link's
    markup replaced by its text) and that text lower-cased, unless it holds a CASE_ODD letter;
    None for a body with line breaks other than \\n.

    Kept for the last bodies read: a server asked again and again finds the same pages, and
    a long one (a release log of thousands of links) takes milliseconds to prepare.
    """
    if _holds_any(body, _ODD_BREAKS):
        return None
    lines = body.split("\n")
    if "## Sources" in lines:  # the back-link the compiler adds: not the article's text
        lines = lines[: lines.index("## Sources")]
    text = "\n".join(lines)
    if "[" in text:
        text = _strip_links(text)
    return text, None if _holds_any(text, CASE_ODD) else text.lower()


def _strip_links(text: str) -> str:
    """`_LINK_TEXT.sub(_link_text, line)` for every line of `text` at once: each link (with
    the `!` just before it, an image's) becomes its text."""
    parts: list[str] = []
    done = 0
    for match in _LINK_IN_A_LINE.finditer(text):
        start = match.start()
        if start > done and text[start - 1] == "!":
            start -= 1
        parts += (text[done:start], match.group(1))
        done = match.end()
    parts.append(text[done:])
    return "".join(parts)


def _holds_any(text: str, chars: str) -> bool:
    """Whether `text` holds one of `chars`: a search per character beats a character class
    on long texts (each is a memchr-like scan)."""
    return any(char in text for char in chars)


def best_line_by_line(body: str, marks: Marks) -> str:
    """`_best_line`, a line at a time as str.splitlines cuts them."""
    best, best_count = "", 0
    for raw_line in body.splitlines():
        if raw_line == "## Sources":
            break
        line = _LINK_TEXT.sub(_link_text, raw_line).strip()
        if not line or line.startswith(_NOT_SHOWN) or _TAGS_ONLY.fullmatch(line):
            continue
        count = len(
            {
                marks.root_of(match.group(0))
                for match in marks.pattern.finditer(line)
                if marks.counts(match.group(0))
            }
        )
        if count > best_count:
            best, best_count = line, count
    return best


def _link_text(match: re.Match[str]) -> str:
    """A link's text, for its whole markup (a function: a `\\1` template costs more per link)."""
    return match.group(1)


def _root(term: str) -> str:
    """What a snippet marks of a query word, at a word's start: what the word shares with its
    stem as the index makes it (`substitut` of "substitutions", which finds "substituted"),
    and at least its first four letters (`happ` of "happy", whose stem is `happi`)."""
    if CJK.match(term) or len(term) <= 4:
        return term
    shared = max((len(os.path.commonprefix([stem, term])) for stem in _stems(term)), default=0)
    return term[: max(4, shared)]


_STEMMER_LOCK = threading.Lock()


# Each query word's, and each word a snippet marks that is not one: a server meets the same.
@functools.lru_cache(maxsize=1 << 14)
def _stems(word: str) -> tuple[str, ...]:
    """The index's own stems of a word: its tokenizer (SQLite's porter) run on it alone."""
    with _STEMMER_LOCK:
        db = _stemmer()
        db.execute("INSERT INTO words(rowid, word) VALUES (1, ?)", (word,))
        try:
            return tuple(term for (term,) in db.execute("SELECT term FROM stems"))
        finally:
            db.execute("DELETE FROM words WHERE rowid = 1")


@functools.cache
def _stemmer() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=False)  # used under _STEMMER_LOCK
    db.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize = '{index.TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'row')")
    return db


def _word_start_pattern(roots: Sequence[str]) -> str:
    """What `\\broot\\w*|...` (a CJK root: `root` anywhere) for every root, longest first, finds,
    in one expression that tries a position letter by letter (_either). A CJK root and one of
    other letters never match at the same place (a query's word is all CJK or holds none), so
    the two kinds are two branches."""
    cjk = [root for root in roots if CJK.match(root)]
    other = [root for root in roots if not CJK.match(root)]
    branches = [_either(cjk)] if cjk else []
    return "|".join(branches + ([rf"\b{_either(other)}\w*"] if other else []))


def _either(roots: Sequence[str]) -> str:
    """An expression that matches any of `roots` at a position, the longest first, as the
    alternation of them longest first does: a tree of their letters (`ab(?:c|d)?` for `ab`,
    `abc`, `abd`), so that the engine tries a position's letters once each, not every root."""
    tree: dict[str, Any] = {}
    for root in roots:
        node = tree
        for letter in root:
            node = node.setdefault(letter, {})
        node[""] = {}
    return _branches(tree)


def _branches(node: dict[str, Any]) -> str:
    """The expression of a tree of letters; the end of a root (key "") is taken last. A run
    of letters with no branch is written in a loop: the depth of the calls is the number of
    branches and ends on a path, not its length (a query's word may be thousands long)."""
    ways = []
    for letter, below in sorted(node.items()):
        if not letter:
            continue
        run = [letter]
        while len(below) == 1 and "" not in below:
            (letter, below), *_ = below.items()
            run.append(letter)
        ways.append(re.escape("".join(run)) + _branches(below))
    if not ways:
        return ""
    if "" in node:
        return "(?:" + "|".join(ways) + ")?"
    return ways[0] if len(ways) == 1 else "(?:" + "|".join(ways) + ")"
