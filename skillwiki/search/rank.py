"""Ranked hits: free text to FTS5 terms; of BM25's best, the order by the query's words a page
holds close together fused with the order by BM25; that fused with semantic search when on."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any, NamedTuple

from skillwiki.frontmatter.documents import body_of
from skillwiki.markdown import references
from skillwiki.search import cover, files, index, near
from skillwiki.search.copies import NO_COPIES, Copies, grouped, lead
from skillwiki.search.copies import distinct_words as distinct_words_of
from skillwiki.search.filters import Filters
from skillwiki.search.highlight import Highlight
from skillwiki.search.hits import Hit, Signals, squashed
from skillwiki.search.matches import Match
from skillwiki.search.matches import best_matches as best_matches  # named here too
from skillwiki.search.near import Candidate
from skillwiki.search.near import Close as Close  # what closeness gives, named here too
from skillwiki.search.schema import in_chunks
from skillwiki.search.snippets import marked_snippet
from skillwiki.search.terms import MAX_QUERY_WORDS, distinct_words, prefixed, terms_of, word_root
from skillwiki.search.text import well_formed, words
from skillwiki.search.vectors import SHARED, Nearest, VectorCache
from skillwiki.workspace import Workspace

CANDIDATES = 200  # BM25's best matches that the ordering by words held close re-ranks


# Reciprocal-rank fusion, of the text's two orders and of the text ranking with those by
# meaning (the extra): each ranking gives a page 1 / (RRF_K + its place); 60 is the
# constant of the method's authors (Cormack et al., 2009).
RRF_K = 60


class Extra(Enum):
    """A ranking by meaning fused with the text one, by the two fields of Signals that show a
    page's place in it and its similarity to the query."""

    WORDS = ("semantic_rank", "similarity")  # WordLlama's static word vectors
    SENTENCES = ("sentence_rank", "sentence_similarity")  # a sentence encoder


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
    copies: Copies = NO_COPIES,
) -> list[Hit]:
    """Return the best `limit` articles for `text`, best first, the copies of one page as one
    hit (copies.py: the folders `copies` names, or one title and near the same words).

    SQLite ranks the matches by weighted BM25; its best CANDIDATES are ordered twice: by how
    many of the query's words each holds close together (near.py), BM25 deciding among equals,
    and by BM25 alone, each BM25 scaled by how many other articles refer to the page
    (references.py). The two orders are fused by reciprocal rank (text_order), so that a page
    with one line holding many of the words does not pass the page about them on that alone.
    (Small wikis need the first order: there BM25 gives words that most articles share no
    weight at all; and counting the words held together, not anywhere, keeps a long page
    that holds them in different sections from outranking the page about them.)
    With semantic search on, the vectors are read through `vectors`, the cache of whoever
    holds `db` (None: the one shared by those who hold none). A page whose whole title the
    query names (half its words or more) counts one word more held together (cover.py).
    """
    text = well_formed(text)
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

    def run(db: sqlite3.Connection) -> tuple[list[Match], dict[int, int], dict[int, int], Extras]:
        rows = best_matches(db, match, filters, wanted)
        ids = [row.id for row in rows]
        held = _coverage(db, terms, ids) if len(terms) > 1 else {}
        # Semantic search only reorders and widens what the text found: never a hit for a
        # query whose words are in no article.
        extras = extra_rankings(db, cache, meaning, filters, wanted) if rows else []
        return rows, held, _inbound(db, ids), extras

    rows, held, inbound, extras = index.read(ws, db, run)
    parts = _parts(rows, inbound)
    titled = cover.covered(rows, kept)
    bm25_of = {row.id: row.bm25 for row in rows}
    wiki = str(ws.wiki)

    def signals_of(rowid: int) -> Signals:  # of the hits shown only, in this text ranking
        referring = inbound.get(rowid, 0)
        held, together = text_ranking.close[rowid]
        proximity_rank, bm25_rank = text_ranking.places[rowid]
        return Signals(
            held,
            round(bm25_of[rowid], 4),
            referring,
            round(references.boost(referring), 4),
            near=together,
            proximity_rank=proximity_rank,
            bm25_rank=bm25_rank,
            titled=rowid in titled,
        )

    read: dict[str, frozenset[str] | None] = {}  # the words of the pages compared, by path

    def words_of(page: Shown) -> frozenset[str] | None:
        if page.path not in read:
            read[page.path] = _words_of(f"{wiki}/{page.path}")
        return read[page.path]

    # Past the places text_order reads for, its places are guesses, which the text ranking's
    # best do not hang on; fused with rankings by meaning, a page they put first may sit
    # there, and the best would hang on the guess (and so on the limit): every place is read.
    reading = len(rows) if extras else limit
    # Copies take one place between them: rank further until `limit` pages are found, as many
    # more as the copies found so far take (at least twice as many).
    shown_count = limit
    while True:
        text_ranking = text_order(
            ws, rows, held, roots, max(reading, shown_count), bodies, parts, titled
        )
        shown = fuse(text_ranking.ranked, extras, shown_count, signals_of)
        groups = grouped(shown, copies, words_of)
        if len(groups) >= limit or len(shown) < shown_count:
            break
        shown_count = max(2 * shown_count, math.ceil(shown_count * limit / len(groups)) + limit)
    highlight = Highlight.of(kept, prefix=prefixed(kept))
    hits = []
    for group in groups[:limit]:
        page = lead(group, copies.prefer, lambda each: each.signals.words)
        hits.append(
            Hit(
                f".wiki/wiki/{page.path}",
                page.title,
                page.type,
                round(group[0].score, 4),
                marked_snippet(f"{wiki}/{page.path}", highlight, data=bodies.get(page.path)),
                page.signals,
                tuple(f".wiki/wiki/{each.path}" for each in group if each is not page),
            )
        )
    return hits


def _words_of(path: str) -> frozenset[str] | None:
    """An article's distinct words, of its first near.READ_BYTES (None: it cannot be read)."""
    data, _ = files.article_head(path)
    return None if data is None else distinct_words_of(body_of(files.decoded(data)))


Extras = list[tuple[Extra, list[Nearest]]]


def extra_rankings(
    db: sqlite3.Connection, cache: VectorCache, meaning: str, filters: Filters, wanted: int
) -> Extras:
    """The rankings by meaning that are on, each its `wanted` articles nearest `meaning` that
    pass the filters, to fuse with the text ranking (those that found none left out): another
    ranking joins as one more pair of its Extra and its nearest."""
    rankings = [
        (Extra.WORDS, cache.nearest_words(db, meaning, filters, wanted)),
        (Extra.SENTENCES, cache.nearest_sentences(db, meaning, filters, wanted)),
    ]
    return [(extra, nearest) for extra, nearest in rankings if nearest]


class TextOrder(NamedTuple):
    """The text ranking: its pages best first (all the candidates; beyond those that can be
    shown, in the order their words held so far give), each candidate's Close, and its places
    in the order by words held close together and in the order by BM25."""

    ranked: list[Ranked]
    close: dict[int, Close]
    places: dict[int, tuple[int, int]]


def text_order(
    ws: Workspace,
    rows: list[Match],
    held: dict[int, int],
    roots: Sequence[str],
    limit: int,
    bodies: dict[str, bytes],
    part: Mapping[int, float],
    titled: Mapping[int, float] | None = None,
) -> TextOrder:
    """The candidates `rows` in the reciprocal-rank fusion of two orders: by the query's words
    each holds close together (closeness), its BM25 times its boost (`part`, squashed) deciding
    among equals (and what a title the query covers adds, `titled`); and by that BM25 alone.
    A page scores 1 / (RRF_K + its place) in each, summed, over the most it can reach, so 1.0
    is a page first in both; equal scores go by the first order.

    Only the pages that may end among the best `limit` are read: closeness reads enough for
    the first `reading` places of the first order to be known, and the fused best `limit` are
    known once every page outside those places, even at the next place there, scores no more
    than the `limit`-th best; until then `reading` at least doubles.
    """
    by_bm25 = sorted(rows, key=lambda row: (-part[row.id], row.path))
    bm25_places = {row.id: place for place, row in enumerate(by_bm25, start=1)}
    by_words = part if titled is None else cover.with_cover(part, titled)
    reading = limit
    while True:
        close = closeness(ws, rows, held, roots, reading, bodies, by_words)
        order, known = _fused(rows, close, by_words, bm25_places)
        wanted = _known_wanted(order, known, limit, bm25_places)
        if not wanted or reading >= len(rows):
            break
        reading = max(2 * reading, wanted)
    best = 2.0 / (RRF_K + 1)
    ranked = [
        Ranked(score / best, row.path, row.title, row.type, row.id) for score, _, row in order
    ]
    places = {row.id: (place, bm25_places[row.id]) for _, place, row in order}
    return TextOrder(ranked, close, places)


def _by_words(
    rows: list[Match], close: Mapping[int, Close], part: Mapping[int, float]
) -> list[Match]:
    """The candidates by the words each holds close together (as many as it holds, if not
    read), then by `part`, then by path."""

    def key(row: Match) -> tuple[float, str]:
        count, together = close[row.id]
        return (-((count if together is None else together) + part[row.id]), row.path)

    return sorted(rows, key=key)


def _fused(
    rows: list[Match],
    close: Mapping[int, Close],
    part: Mapping[int, float],
    bm25_places: Mapping[int, int],
) -> tuple[list[tuple[float, int, Match]], int]:
    """The candidates by their fused score (see text_order), each with it, and how many of the
    first places of the order by words are known: those of the pages read that hold more
    words together than any page not read can."""
    by_words = _by_words(rows, close, part)
    unread = [close[row.id].held + part[row.id] for row in rows if close[row.id].together is None]
    ceiling = max(unread, default=-1.0)
    known = 0
    for row in by_words:
        together = close[row.id].together
        if together is None or together + part[row.id] <= ceiling:
            break
        known += 1
    scored = [
        (1.0 / (RRF_K + place) + 1.0 / (RRF_K + bm25_places[row.id]), place, row)
        for place, row in enumerate(by_words, start=1)
    ]
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    return scored, known


def _known_wanted(
    order: list[tuple[float, int, Match]], known: int, limit: int, bm25_places: Mapping[int, int]
) -> int:
    """0 if the best `limit` of the fused `order` (score, place by words, page) are those of
    the exact order: each at a known place of the order by words, and scoring at least what a
    page at none of those places could (at best the next one; ties go by that place). Else
    how many known places would do, as far as this order tells (all, if none would)."""
    if len(order) <= known:
        return 0
    lowest = order[:limit][-1][0]
    rest = min(bm25_places[row.id] for _, place, row in order if place > known)
    room = lowest - 1.0 / (RRF_K + rest)  # what the next place may score in the other order
    if len(order) >= limit and all(place <= known for _, place, _ in order[:limit]):
        if 1.0 / (RRF_K + known + 1) <= room:
            return 0
    return len(order) if room <= 0 else math.ceil(1.0 / room) - RRF_K


def fuse(
    ranked: list[Ranked],
    extras: Sequence[tuple[Extra, Sequence[Nearest]]],
    limit: int,
    signals_of: Callable[[int], Signals],
) -> list[Shown]:
    """The best `limit` of the text ranking and the `extras` (rankings by meaning) as one, by
    reciprocal-rank fusion: each page scores the sum of 1 / (RRF_K + its place) in each, over
    the most it can reach (first in all), so 1.0 is the best score; with no extras, the text
    ranking as it is. Each comes with its signals (`signals_of` those the text ranking holds),
    and its place and similarity in each extra. Equal scores go by the text ranking, then by
    path: a page found by meaning alone, first there, ties with the one page that holds a rare
    word and is not among the nearest, and must not pass it by its name."""
    if not extras:
        return [
            Shown(page.score, page.path, page.title, page.type, signals_of(page.id), page.id)
            for page in ranked[:limit]
        ]
    best = (1.0 + len(extras)) / (RRF_K + 1)
    text_places = {page.id: place for place, page in enumerate(ranked, start=1)}
    extra_places = [
        {found.id: (place, found.similarity) for place, found in enumerate(nearest, start=1)}
        for _, nearest in extras
    ]
    pages = {page.id: (page.path, page.title, page.type) for page in ranked}
    for _, nearest in extras:
        for found in nearest:
            pages.setdefault(found.id, (found.path, found.title, found.type))
    scores = []
    unranked = len(ranked) + 1  # below every page the text ranking holds
    for rowid, page in pages.items():
        places = [text_places.get(rowid), *(each.get(rowid, (None,))[0] for each in extra_places)]
        score = sum(1.0 / (RRF_K + place) for place in places if place) / best
        scores.append((score, text_places.get(rowid, unranked), page[0], rowid))
    scores.sort(key=lambda row: (-row[0], row[1], row[2]))
    fused = []
    for score, _, rel, rowid in scores[:limit]:  # the signals of those shown only
        _, title, kind_ = pages[rowid]
        signals = (signals_of(rowid) if rowid in text_places else Signals(0, 0.0, 0, 1.0))._replace(
            fused=True,
            text_rank=text_places.get(rowid),
            **_by_meaning(rowid, extras, extra_places),
        )
        fused.append(Shown(score, rel, title, kind_, signals, rowid))
    return fused


def _by_meaning(
    rowid: int,
    extras: Sequence[tuple[Extra, Sequence[Nearest]]],
    places: Sequence[Mapping[int, tuple[int, float]]],
) -> dict[str, Any]:
    """A page's place and similarity in each extra ranking, as the fields of Signals."""
    fields: dict[str, Any] = {}
    for (extra, _), each in zip(extras, places, strict=True):
        place, similarity = each.get(rowid, (None, None))
        fields[extra.value[0]] = place
        fields[extra.value[1]] = None if similarity is None else round(similarity, 4)
    return fields


def _parts(rows: list[Match], inbound: Mapping[int, int]) -> dict[int, float]:
    """Per match, the part of its score below its count of
    words: its BM25 times its boost for the articles referring to it, squashed."""
    return {row.id: squashed(row.bm25 * references.boost(inbound.get(row.id, 0))) for row in rows}


def closeness(
    ws: Workspace,
    rows: Sequence[Candidate],
    held: dict[int, int],
    roots: Sequence[str],
    limit: int,
    bodies: dict[str, bytes],
    part: Mapping[int, float],
) -> dict[int, Close]:
    """How many of the query's words each candidate holds close together, for those that may
    end among the best `limit` (near.closeness), its article read by files.article_head."""
    return near.closeness(ws, rows, held, roots, limit, bodies, part, files.article_head)


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
