"""Ranked hits: free text to FTS5 terms, BM25 re-ranked by the query's words a page holds
close together, fused with semantic search when it is on."""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from skillwiki.frontmatter.documents import body_of
from skillwiki.kinds import RETIRED
from skillwiki.markdown import references
from skillwiki.search import files, index, near, semantic
from skillwiki.search.filters import Filters, filter_sql
from skillwiki.search.highlight import Highlight
from skillwiki.search.hits import Hit, Signals
from skillwiki.search.schema import in_chunks
from skillwiki.search.snippets import marked_snippet
from skillwiki.search.terms import MAX_QUERY_WORDS, distinct_words, prefixed, terms_of, word_root
from skillwiki.search.text import (
    words,
)
from skillwiki.search.vectors import SHARED, Nearest, VectorCache
from skillwiki.workspace import Workspace

# BM25 weights per column: title >> tags, headings > summary (and prevention rule) > body.
WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.0)
CANDIDATES = 200  # BM25's best matches that the ordering by words held close re-ranks


# Reciprocal-rank fusion with semantic search (the extra): each ranking gives a page
# 1 / (RRF_K + its rank); 60 is the constant of the method's authors (Cormack et al., 2009).
RRF_K = 60


class Match(NamedTuple):
    """One of BM25's best matches."""

    id: int
    path: str
    title: str
    type: str
    bm25: float


class Close(NamedTuple):
    """Of a candidate: the query's words it holds, and how many of them it holds close
    together (None: not looked at, since it could not rank among the best)."""

    held: int
    together: int | None


class Ranked(NamedTuple):
    """A page in the text ranking: its score, what a hit shows of it, its id."""

    score: float
    path: str
    title: str
    type: str
    id: int


class Shown(NamedTuple):
    """A page to show as a hit: its score, path, title and type, its signals, its id."""

    score: float
    path: str
    title: str
    type: str
    signals: Signals
    id: int


def search(
    ws: Workspace,
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    tags: Sequence[str] = (),
    include_hidden: bool = False,
    db: sqlite3.Connection | None = None,
    vectors: VectorCache | None = None,
) -> list[Hit]:
    """Return the best `limit` articles for `text`, best first.

    SQLite ranks the matches by weighted BM25; of its best CANDIDATES, those that hold more
    of the query's words close together (near.py) rank first, BM25 deciding among equals,
    scaled by how many other articles refer to each (references.py). The score is that count
    of words plus that BM25 squashed into [0, 1), so 3.62 reads "three words together, fairly
    relevant". (Small wikis need the first part: there BM25 gives words that most articles
    share no weight at all; and counting the words held together, not anywhere, keeps a long
    page that holds them in different sections from outranking the page about them.)
    With semantic search on, the vectors are read through `vectors`, the cache of whoever
    holds `db` (None: the one shared by those who hold none).
    """
    distinct = distinct_words(words(text))
    kept = distinct[:MAX_QUERY_WORDS]
    terms, boosts = terms_of(kept)
    if not terms:
        return []
    match = " OR ".join(terms + boosts)
    wanted = max(CANDIDATES, limit)
    filters = Filters(kind, tuple(tags), include_hidden)
    roots = [word_root(word).lower() for word in kept]  # one per term, in order
    # What semantic search embeds: the query, or of a query cut to its first words, those.
    meaning = text if len(distinct) <= MAX_QUERY_WORDS else " ".join(kept)
    bodies: dict[str, bytes] = {}  # the articles read whole, for their snippets
    cache = SHARED if vectors is None else vectors

    def run(
        db: sqlite3.Connection,
    ) -> tuple[list[Match], dict[int, Close], dict[int, int], dict[int, float], list[Nearest]]:
        rows = best_matches(db, match, filters, wanted)
        ids = [row.id for row in rows]
        held = _coverage(db, terms, ids) if len(terms) > 1 else {}
        inbound = _inbound(db, ids)
        parts = _parts(rows, inbound)
        close = closeness(ws, rows, held, roots, limit, bodies, parts)
        # Semantic search only reorders and widens what the text found: never a hit for a
        # query whose words are in no article.
        similar = (
            cache.nearest(db, meaning, filters, wanted) if rows and semantic.available() else []
        )
        return rows, close, inbound, parts, similar

    rows, close, inbound, parts, nearest = index.read(ws, db, run)
    ranked = []
    for row in rows:
        held, together = close[row.id]
        count = held if together is None else together  # not looked at: ranks below the best
        ranked.append(Ranked(count + parts[row.id], row.path, row.title, row.type, row.id))
    ranked.sort(key=lambda page: (-page.score, page.path))
    bm25_of = {row.id: row.bm25 for row in rows}

    def signals_of(rowid: int) -> Signals:  # of the hits shown only
        referring = inbound.get(rowid, 0)
        boost = references.boost(referring)
        held, together = close[rowid]
        return Signals(held, round(bm25_of[rowid], 4), referring, round(boost, 4), near=together)

    if nearest:
        shown = fuse(ranked, nearest, limit, signals_of)
    else:
        shown = [
            Shown(page.score, page.path, page.title, page.type, signals_of(page.id), page.id)
            for page in ranked[:limit]
        ]
    highlight = Highlight.of(kept, prefix=prefixed(kept))
    wiki = str(ws.wiki)
    return [
        Hit(
            f".wiki/wiki/{page.path}",
            page.title,
            page.type,
            round(page.score, 4),
            marked_snippet(
                f"{wiki}/{page.path}",
                highlight,
                opening=page.signals.words == 0,
                data=bodies.get(page.path),
            ),
            page.signals,
        )
        for page in shown
    ]


def fuse(
    ranked: list[Ranked],
    near: list[Nearest],
    limit: int,
    signals_of: Callable[[int], Signals],
) -> list[Shown]:
    """The best `limit` of the text ranking and the semantic one as one, by reciprocal-rank
    fusion: each page scores the sum of 1 / (RRF_K + its rank) in each, over the most it can
    reach (first in both), so 1.0 is the best score. Each comes with its signals (`signals_of`
    those the text ranking holds). Equal scores go by the text ranking, then by path: a page
    found by meaning alone, first there, ties with the one page that holds a rare word and is
    not among the nearest, and must not pass it by its name."""
    best = 2.0 / (RRF_K + 1)
    text_places = {page.id: place for place, page in enumerate(ranked, start=1)}
    near_places = {page.id: (place, page.similarity) for place, page in enumerate(near, start=1)}
    pages = {page.id: (page.path, page.title, page.type) for page in ranked}
    for found in near:
        pages.setdefault(found.id, (found.path, found.title, found.type))
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
        fused.append(Shown(score, rel, title, kind_, signals, rowid))
    return fused


def best_matches(
    db: sqlite3.Connection, match: str, filters: Filters, wanted: int, *, fast: bool = True
) -> list[Match]:
    """The `wanted` best matches by weighted BM25 that pass the filters (ties by path).

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
                visible = [
                    row for row, status in found if filters.include_hidden or status not in RETIRED
                ]
                if len(visible) == len(found) or not cut:
                    return sorted(visible, key=lambda row: (-row.bm25, row.path))
    where, params = filter_sql(filters, "docs.")
    where.insert(0, "fts MATCH ?")
    params.insert(0, match)
    sql = (
        f"SELECT docs.id, docs.path, docs.title, docs.type, -bm25(fts, {weights}) AS score "
        f"FROM fts JOIN docs ON docs.id = fts.rowid WHERE {' AND '.join(where)} "
        "ORDER BY score DESC, docs.path LIMIT ?"
    )
    return [Match._make(row) for row in db.execute(sql, (*params, wanted))]


def _docs(db: sqlite3.Connection, best: list[Any]) -> list[tuple[Match, str]] | None:
    """These (rowid, bm25) matches, each with its status; None if one has no row in docs."""
    score = dict(best)
    found = db.execute(
        f"SELECT id, path, title, type, status FROM docs WHERE id IN ({','.join('?' * len(best))})",
        list(score),
    ).fetchall()
    if len(found) != len(best):
        return None
    return [
        (Match(rowid, rel, title, kind, score[rowid]), status)
        for rowid, rel, title, kind, status in found
    ]


def _parts(rows: list[Match], inbound: Mapping[int, int]) -> dict[int, float]:
    """Per match, the part of its score below its count of
    words: its BM25 times its boost for the articles referring to it, squashed."""
    return {row.id: _squash(row.bm25 * references.boost(inbound.get(row.id, 0))) for row in rows}


def _squash(bm25: float) -> float:
    """BM25 into [0, 1): the part of a score below the count of words matched."""
    positive = max(bm25, 0.0)
    return positive / (1.0 + positive)


def closeness(
    ws: Workspace,
    rows: list[Match],
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
    masks = {row.id: held.get(row.id) or 1 for row in rows}
    counts = {rowid: mask.bit_count() for rowid, mask in masks.items()}
    if len(set(roots)) < 2:
        return {rowid: Close(count, count) for rowid, count in counts.items()}
    wiki = str(ws.wiki)
    close: dict[int, Close] = {rowid: Close(count, None) for rowid, count in counts.items()}
    best: list[float] = []  # the `limit` best scores so far (as search makes them), a heap
    for row in sorted(rows, key=lambda row: (-counts[row.id], -row.bm25, row.path)):
        rowid, rel = row.id, row.path
        if len(best) >= limit and counts[rowid] + part[rowid] < best[0]:
            if counts[rowid] + 1 <= best[0]:  # nor can any after it, holding no more words
                break
            continue
        own = [root for bit, root in enumerate(roots) if masks[rowid] >> bit & 1]
        together = _held_together(f"{wiki}/{rel}", rel, own, counts[rowid], bodies)
        close[rowid] = Close(counts[rowid], together)
        _keep_best(best, together + part[rowid], limit)
    return close


def _keep_best(best: list[float], score: float, limit: int) -> None:
    """Keep `score` in the heap `best` if it is among the `limit` best so far."""
    if len(best) < limit:
        heapq.heappush(best, score)
    elif score > best[0]:
        heapq.heapreplace(best, score)


def _held_together(
    path: str, rel: str, own: Sequence[str], count: int, bodies: dict[str, bytes]
) -> int:
    """How many of the roots `own` (those the index found in it, `count` distinct) the article
    at `path` holds close together, at least one; its body is left in `bodies` when read whole.
    An article that cannot be read keeps `count`."""
    data, whole = files.article_head(path)
    if whole and data is not None:
        bodies[rel] = data
    if data is None:
        return count
    return max(1, min(count, near.held_near(body_of(data), list(dict.fromkeys(own)))))


def _inbound(db: sqlite3.Connection, ids: list[int]) -> dict[int, int]:
    """How many other articles refer to each of these (references.py), as the index counted
    it when it took them in (none: no row)."""
    counts: dict[int, int] = {}
    for marks, chunk in in_chunks(ids):
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
