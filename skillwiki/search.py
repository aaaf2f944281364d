"""The full-text index in .cache/ (SQLite FTS5), kept in step with wiki/, and ranked hits."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillwiki.documents import body_of, decode, split
from skillwiki.errors import InputError, SkillwikiError
from skillwiki.statcache import Stat
from skillwiki.workspace import Workspace

SCHEMA = "3"
# BM25 weights per column: title >> tags, headings > summary (and prevention rule) > body.
WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.0)
HIDDEN_STATUSES = ("archived", "superseded")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_WORD = re.compile(r"\w+")
_LINK_TEXT = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
STOP_WORDS = frozenset(
    "a an and are as at be by for from how i in into is it of on or that the this to was what"
    " when where which who why will with".split()
)


@dataclass(frozen=True)
class Hit:
    path: str  # relative to the workspace root
    title: str
    type: str
    score: float
    snippet: str


def index_path(ws: Workspace) -> Path:
    return ws.cache / "search.sqlite"


def cjk_bigrams(text: str) -> str:
    """Rewrite each CJK run as overlapping bigrams, so `重试策略` is found by `重试`."""

    def pairs(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return _CJK.sub(pairs, text)


def sync(
    ws: Workspace, articles: Mapping[str, Stat], entries: Mapping[str, str] | None = None
) -> None:
    """Bring the index in step with the articles (by stat), rebuilding it if it is unusable.

    `entries` (article -> its index.json entry as JSON) spares reading frontmatter again.
    """
    path = index_path(ws)
    try:
        with _busy_is_an_error(path):
            _sync(ws, path, articles, entries or {})
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError:  # not a database, or a malformed one: it is derived, rebuild
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        with _busy_is_an_error(path):
            _sync(ws, path, articles, entries or {})


@contextmanager
def _busy_is_an_error(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise SkillwikiError(
            f"the search index {path} cannot be used ({exc}); try again, "
            "or delete .wiki/.cache/ to have it rebuilt"
        ) from None


def _sync(
    ws: Workspace, path: Path, articles: Mapping[str, Stat], entries: Mapping[str, str]
) -> None:
    wanted = {rel: f"{stat[0]}:{stat[1]}:{stat[2]}" for rel, stat in articles.items()}
    with _connect(path) as db:
        if _differences(db, wanted) == ([], []):
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            changed, gone = _differences(db, wanted)
            for rel in gone:
                _delete(db, rel)
            for rel in changed:
                _delete(db, rel)
                _insert(db, ws, rel, wanted[rel], entries.get(rel))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path, timeout=30, isolation_level=None)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        row = _schema_version(db)
        if row != SCHEMA:
            _create(db)
        yield db


def _schema_version(db: sqlite3.Connection) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0])


def _create(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")
    if _schema_version(db) == SCHEMA:  # another process created it while we waited
        db.execute("COMMIT")
        return
    for statement in _SCHEMA_SQL:
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
    db.execute("COMMIT")


_SCHEMA_SQL = (
    "DROP TABLE IF EXISTS docs",
    "DROP TABLE IF EXISTS fts",
    "DROP TABLE IF EXISTS meta",
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, stamp TEXT NOT NULL,"
    " title TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL, tags TEXT NOT NULL)",
    "CREATE VIRTUAL TABLE fts USING fts5(title, tags, headings, summary, body,"
    " tokenize = 'porter unicode61 remove_diacritics 2')",
)


def _differences(db: sqlite3.Connection, wanted: Mapping[str, str]) -> tuple[list[str], list[str]]:
    have = dict(db.execute("SELECT path, stamp FROM docs").fetchall())
    changed = sorted(rel for rel, stamp in wanted.items() if have.get(rel) != stamp)
    gone = sorted(rel for rel in have if rel not in wanted)
    return changed, gone


def _delete(db: sqlite3.Connection, rel: str) -> None:
    row = db.execute("SELECT id FROM docs WHERE path = ?", (rel,)).fetchone()
    if row is not None:
        db.execute("DELETE FROM fts WHERE rowid = ?", row)
        db.execute("DELETE FROM docs WHERE id = ?", row)


def _insert(db: sqlite3.Connection, ws: Workspace, rel: str, stamp: str, entry: str | None) -> None:
    fields = _fields(ws.wiki / rel, entry)
    if fields is None:
        return
    meta, title, body = fields
    tags = [str(tag) for tag in meta.get("tags") or [] if isinstance(tag, str | int | float)]
    kind = str(meta.get("type") or "document")
    status = str(meta.get("status") or "active")
    cursor = db.execute(
        "INSERT INTO docs(path, stamp, title, type, status, tags) VALUES (?, ?, ?, ?, ?, ?)",
        (rel, stamp, title, kind, status, "\x1f".join(tag.lower() for tag in tags)),
    )
    summary = f"{meta.get('summary') or ''} {meta.get('prevention_rule') or ''}"
    columns = (title, " ".join(tags), " ".join(headings(body)), summary, body)
    db.execute(
        "INSERT INTO fts(rowid, title, tags, headings, summary, body) VALUES (?, ?, ?, ?, ?, ?)",
        (cursor.lastrowid, *(cjk_bigrams(str(column)) for column in columns)),
    )


_HEADING = re.compile(r"^ {0,3}#{2,6}[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def headings(body: str) -> list[str]:
    """Return the text of the level-2-and-deeper ATX headings outside code fences."""
    found = []
    fence = ""
    for line in body.splitlines():
        marker = _FENCE.match(line)
        if marker and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)[0] * 3
            continue
        if not fence:
            heading = _HEADING.match(line)
            if heading:
                found.append(heading.group(1))
    return found


def _fields(path: Path, entry: str | None = None) -> tuple[dict[str, Any], str, str] | None:
    """Return (frontmatter, title, body); the frontmatter from `entry` when it is given."""
    try:
        text = decode(path.read_bytes(), path, 1 << 40)
        if entry is not None:
            meta = json.loads(entry)
            return meta, str(meta.get("title") or path.stem), body_of(text)
        document = split(text, path)
    except (OSError, InputError, ValueError):
        return None
    title = str(document.meta.get("title") or path.stem)
    return document.meta, title, document.body


def query_terms(text: str) -> list[str]:
    """Turn free text into quoted FTS5 terms (stop words dropped), the last one a prefix."""
    words = _WORD.findall(cjk_bigrams(text).lower())
    kept = [word for word in words if word not in STOP_WORDS] or words
    terms = [f'"{word}"' for word in dict.fromkeys(kept)]
    if terms and not _CJK.search(kept[-1]):
        terms[-1] += "*"
    return terms


def search(
    ws: Workspace,
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    tags: Sequence[str] = (),
    include_hidden: bool = False,
) -> list[Hit]:
    """Return the best `limit` articles for `text`, best first.

    Articles that contain more of the query's terms rank first; among those, weighted BM25
    decides. The score is the number of terms matched plus BM25 squashed into [0, 1), so a
    score of 3.62 reads "all three terms, fairly relevant".
    """
    terms = query_terms(text)
    if not terms:
        return []
    where = ["fts MATCH ?"]
    params: list[Any] = [" OR ".join(terms)]
    if kind is not None:
        where.append("docs.type = ?")
        params.append(kind)
    for tag in tags:
        where.append("instr(char(31) || docs.tags || char(31), char(31) || ? || char(31)) > 0")
        params.append(tag.lower())
    if not include_hidden:
        where.append("docs.status NOT IN (?, ?)")
        params.extend(HIDDEN_STATUSES)
    weights = ", ".join(str(weight) for weight in WEIGHTS)
    sql = (
        f"SELECT docs.id, docs.path, docs.title, docs.type, -bm25(fts, {weights}) "
        f"FROM fts JOIN docs ON docs.id = fts.rowid WHERE {' AND '.join(where)}"
    )
    with closing(sqlite3.connect(index_path(ws), timeout=30)) as db:
        rows = db.execute(sql, params).fetchall()
        matched = _coverage(db, terms) if len(terms) > 1 else {}
    ranked = sorted(
        (
            (matched.get(rowid, 1) + max(bm25, 0.0) / (1.0 + max(bm25, 0.0)), rel, title, kind_)
            for rowid, rel, title, kind_, bm25 in rows
        ),
        key=lambda row: (-row[0], row[1]),
    )[:limit]
    words = _WORD.findall(cjk_bigrams(text).lower())
    return [
        Hit(f".wiki/wiki/{rel}", title, kind_, round(score, 4), snippet(ws.wiki / rel, words))
        for score, rel, title, kind_ in ranked
    ]


def _coverage(db: sqlite3.Connection, terms: Sequence[str]) -> dict[int, int]:
    """Return, per document, how many of the terms it contains."""
    counts: dict[int, int] = {}
    for term in terms:
        for (rowid,) in db.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (term,)):
            counts[rowid] = counts.get(rowid, 0) + 1
    return counts


def snippet(path: Path, terms: Sequence[str], width: int = 160) -> str:
    """Return the line of the article that matches the most terms, with them in **bold**."""
    try:
        body = body_of(path.read_bytes().decode("utf-8", errors="replace"))
    except OSError:
        return ""
    roots = sorted({_root(term) for term in terms if term not in STOP_WORDS}, key=len, reverse=True)
    if not roots:
        return ""
    pattern = re.compile("|".join(_term_pattern(root) for root in roots), re.IGNORECASE)
    best, best_count = "", 0
    for raw_line in body.splitlines():
        line = _LINK_TEXT.sub(r"\1", raw_line).strip()
        if not line or line.startswith("# "):
            continue
        count = len({match.group(0).lower() for match in pattern.finditer(line)})
        if count > best_count:
            best, best_count = line, count
    if not best:
        return ""
    first = pattern.search(best)
    start = max(0, (first.start() if first else 0) - width // 3)
    cut = best[start : start + width]
    cut = ("…" if start else "") + cut + ("…" if start + width < len(best) else "")
    return pattern.sub(lambda match: f"**{match.group(0)}**", cut)


def _root(term: str) -> str:
    if _CJK.match(term) or len(term) <= 4:
        return term
    return term[: max(4, len(term) - 3)]


def _term_pattern(root: str) -> str:
    if _CJK.match(root):
        return re.escape(root)
    return rf"\b{re.escape(root)}\w*"
