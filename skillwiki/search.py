"""The full-text index in .cache/ (SQLite FTS5), kept in step with wiki/, and ranked hits."""

from __future__ import annotations

import json
import re
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from skillwiki import fsio, headcache, markdown, parallel, statcache
from skillwiki.documents import body_of, decode, split
from skillwiki.errors import InputError, SkillwikiError
from skillwiki.statcache import Stat
from skillwiki.workspace import Workspace

SCHEMA = "7"
# BM25 weights per column: title >> tags, headings > summary (and prevention rule) > body.
WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.0)
HIDDEN_STATUSES = ("archived", "superseded")
OPTIMIZE_AFTER = 1000
BUSY_SECONDS = 30
CANDIDATES = 200  # BM25's best matches that the term-coverage ordering re-ranks
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_WORD = re.compile(r"\w+")
# Neither part may hold its own opener: each `[` or `(` then ends the scan of the one before,
# and a line of thousands of them costs its length, not its square.
_LINK_TEXT = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")
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


_MARKED_LETTERS = re.compile(r"(?<=\w)\[(\w{1,3})\]|\[(\w{1,3})\](?=\w)")


def normalize(text: str) -> str:
    """Prepare text for the index and for queries: one rule for both sides.

    Letters marked inside a word (`E[x]tract`, `[c]reate`, `Lis[t]`) are unmarked so that the
    word is found, and CJK runs become bigrams.
    """
    return cjk_bigrams(_MARKED_LETTERS.sub(lambda match: match.group(1) or match.group(2), text))


def cjk_bigrams(text: str) -> str:
    """Rewrite each CJK run as overlapping bigrams, so `重试策略` is found by `重试`."""

    def pairs(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return _CJK.sub(pairs, text)


def _no_entry(rel: str) -> None:
    return None


Articles = Callable[[], Mapping[str, Stat]]  # every article's stat, asked for only if needed


@dataclass(frozen=True)
class Since:
    """What changed since a known state: if the index was last synced to `token`, only the
    articles of these folders (folder -> every article in it now, with its stat), and of
    those only the ones `covers` accepts, may differ."""

    token: str
    folders: Mapping[str, Mapping[str, Stat]]
    covers: Callable[[str], bool] = lambda _: True


def _sync(ws: Workspace, path: Path, step: _Step) -> None:
    """Bring the index at `path` in step with the articles, rebuilding it if it is unusable."""
    try:
        _sync_patiently(ws, path, step)
    except sqlite3.DatabaseError as exc:  # not a database, or a damaged one: derived, rebuild
        if not damaged(exc):
            raise
        _remove_index(path)
        _sync_patiently(ws, path, step)


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Tell damage to the index file (rebuild it) from a busy or unwritable database."""
    if not isinstance(exc, sqlite3.OperationalError):
        return True  # malformed, not a database, a virtual table that cannot be built
    text = str(exc)
    return text.startswith(("no such table", "no such column", "database disk image"))


def _remove_index(path: Path) -> None:
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        fsio.remove_file(stale)


@dataclass(frozen=True)
class _Step:
    articles: Articles
    entry_of: Callable[[str], str | None]
    token: str | None
    since: Since | None


def _sync_patiently(ws: Workspace, path: Path, step: _Step) -> None:
    """Sync, trying again while another process holds the database (SQLite can answer
    "locked" at once, without waiting, when two connections set it up at the same time)."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            with _busy_is_an_error(path):
                _sync_once(ws, path, step)
            return
        except _Busy:
            if time.monotonic() > deadline:
                raise SkillwikiError(
                    f"the search index {path} stayed locked for {BUSY_SECONDS}s; try again"
                ) from None
            time.sleep(0.05)


class _Busy(Exception):
    """Another connection holds the database; trying again will do."""


@contextmanager
def _busy_is_an_error(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc) or "unable to open" in str(exc):
            raise _Unwritable from None
        if "locked" in str(exc) or "busy" in str(exc):
            raise _Busy from None
        if damaged(exc):
            raise
        raise SkillwikiError(
            f"the search index {path} cannot be used ({exc}); try again, "
            "or delete .wiki/.cache/ to have it rebuilt"
        ) from None


def _sync_once(ws: Workspace, path: Path, step: _Step) -> None:
    with _connect(path) as db:
        if _sync_db(db, ws, step):
            db.execute("VACUUM")  # after a bulk load, give the space of old segments back


def _sync_db(db: sqlite3.Connection, ws: Workspace, step: _Step) -> bool:
    """Apply the differences between the index and the articles; True after a bulk load."""
    synced = db.execute("SELECT value FROM meta WHERE key = 'synced'").fetchone()
    if step.token is not None and synced == (step.token,):
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        synced = db.execute("SELECT value FROM meta WHERE key = 'synced'").fetchone()
        since = step.since if step.since is not None and synced == (step.since.token,) else None
        wanted, changed, gone = _differences(db, step.articles, since)
        told = headcache.load(ws) if len(changed) >= headcache.MIN_ARTICLES else {}
        jobs = [(ws.wiki / rel, step.entry_of(rel), told.get(rel)) for rel in changed]
        documents = list(zip(changed, parallel.imap(_document, jobs), strict=True))
        packer = _Packer(db, [doc.values for _, doc in documents if doc is not None])
        for rel in gone:
            _delete(db, rel, packer)
        for rel, doc in documents:
            _delete(db, rel, packer)
            if doc is not None:
                _insert(db, rel, wanted[rel], doc, packer)
        bulk = len(changed) >= OPTIMIZE_AFTER
        if bulk:  # merge the index's segments after a bulk load
            db.execute("INSERT INTO fts(fts) VALUES ('optimize')")
        db.execute("REPLACE INTO meta VALUES ('synced', ?)", (step.token or "",))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return bulk


class _Unwritable(Exception):
    """The index cannot be created or updated where it lives (a read-only checkout)."""


def open_index(
    ws: Workspace,
    articles: Articles,
    entry_of: Callable[[str], str | None] | None = None,
    token: str | None = None,
    since: Since | None = None,
) -> sqlite3.Connection:
    """Return an index in step with the articles: the one in .cache/, kept up to date, or
    where the workspace cannot be written, one built in memory for this run.

    `entry_of` (article -> its index.json entry as JSON) spares reading frontmatter again;
    `token` names this state of wiki/: when the index was last synced to the same token, it
    is known to be in step and the comparison is skipped; with `since`, only the folders
    that may have changed since the index's state are compared.
    """
    step = _Step(articles, entry_of or _no_entry, token, since)
    try:
        _sync(ws, index_path(ws), step)
        return sqlite3.connect(index_path(ws), timeout=30)
    except _Unwritable:
        db = sqlite3.connect(":memory:", isolation_level=None)
        _create(db)
        _sync_db(db, ws, step)
        return db


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    try:
        fsio.make_dirs(path.parent)
    except OSError:
        raise _Unwritable from None
    with closing(sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)) as db:
        if db.execute("PRAGMA journal_mode").fetchone() != ("wal",):
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
    # `packed` keeps what was indexed, compressed: a contentless FTS5 table (no second copy of
    # the text) can only delete a row when given the exact values it indexed.
    "CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, stamp TEXT NOT NULL,"
    " title TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL, tags TEXT NOT NULL,"
    " packed BLOB NOT NULL)",
    "CREATE VIRTUAL TABLE fts USING fts5(title, tags, headings, summary, body, content='',"
    " tokenize = 'porter unicode61 remove_diacritics 2')",
)


def _differences(
    db: sqlite3.Connection, articles: Articles, since: Since | None
) -> tuple[dict[str, str], list[str], list[str]]:
    """Return the stamp of each article compared, those whose stamp differs, and those gone.

    With `since`, only the folders named there are compared (their rows found by a range of
    paths, subfolders left out); otherwise every article.
    """
    if since is None:
        wanted = {rel: _stamp(stat) for rel, stat in articles().items()}
        have = dict(db.execute("SELECT path, stamp FROM docs").fetchall())
    else:
        wanted = {}
        have = {}
        for folder, found in since.folders.items():
            wanted.update((rel, _stamp(stat)) for rel, stat in found.items())
            rows = db.execute(
                "SELECT path, stamp FROM docs WHERE path >= ? AND path < ?",
                (folder, folder + "\U0010ffff"),
            )
            have.update(
                (rel, stamp)
                for rel, stamp in rows
                if "/" not in rel[len(folder) :] and since.covers(rel)
            )
    changed = sorted(rel for rel, stamp in wanted.items() if have.get(rel) != stamp)
    gone = sorted(rel for rel in have if rel not in wanted)
    return wanted, changed, gone


def _stamp(stat: Stat) -> str:
    return f"{stat[0]}:{stat[1]}:{stat[2]}"


_FTS_COLUMNS = "title, tags, headings, summary, body"


@dataclass(frozen=True)
class _Document:
    """One article as the index sees it: catalog fields and the five indexed column values."""

    title: str
    type: str
    status: str
    tags: str  # lower-cased, joined by \x1f
    values: tuple[str, ...]


class _Packer:
    """Compresses what was indexed with a dictionary kept in the index (small articles alone
    compress poorly); the dictionary is made once, from the first articles indexed."""

    def __init__(self, db: sqlite3.Connection, sample: list[tuple[str, ...]]) -> None:
        row = db.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
        if row is None:
            step = max(1, len(sample) // 64)
            pieces = [json.dumps(values, ensure_ascii=False) for values in sample[::step]]
            zdict = "".join(pieces).encode()[-32768:] or b" "
            db.execute("INSERT INTO meta VALUES ('zdict', ?)", (zdict,))
        else:
            zdict = bytes(row[0])
        self._zdict = zdict

    def pack(self, values: tuple[str, ...]) -> bytes:
        squeeze = zlib.compressobj(9, zdict=self._zdict)
        data = json.dumps(values, ensure_ascii=False).encode()
        return squeeze.compress(data) + squeeze.flush()

    def unpack(self, packed: bytes) -> list[str]:
        expand = zlib.decompressobj(zdict=self._zdict)
        values: list[str] = json.loads(expand.decompress(packed) + expand.flush())
        return values


def _delete(db: sqlite3.Connection, rel: str, packer: _Packer) -> None:
    row = db.execute("SELECT id, packed FROM docs WHERE path = ?", (rel,)).fetchone()
    if row is not None:
        rowid, packed = row
        db.execute(
            f"INSERT INTO fts(fts, rowid, {_FTS_COLUMNS}) VALUES ('delete', ?, ?, ?, ?, ?, ?)",
            (rowid, *packer.unpack(packed)),
        )
        db.execute("DELETE FROM docs WHERE id = ?", (rowid,))


def _insert(db: sqlite3.Connection, rel: str, stamp: str, doc: _Document, packer: _Packer) -> None:
    cursor = db.execute(
        "INSERT INTO docs(path, stamp, title, type, status, tags, packed)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (rel, stamp, doc.title, doc.type, doc.status, doc.tags, packer.pack(doc.values)),
    )
    db.execute(
        f"INSERT INTO fts(rowid, {_FTS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        (cursor.lastrowid, *doc.values),
    )


def _document(job: tuple[Path, str | None, headcache.Known | None]) -> _Document | None:
    """Read one article as the index sees it (in a worker process, when there are many).

    Its headings are those compile told (headcache) when told for this very body, else parsed.
    """
    path, entry, told = job
    fields = _fields(path, entry)
    if fields is None:
        return None
    meta, title, body = fields
    tags = [str(tag) for tag in meta.get("tags") or [] if isinstance(tag, str | int | float)]
    summary = f"{meta.get('summary') or ''} {meta.get('prevention_rule') or ''}"
    heads = headcache.headings_of(told, body)
    if heads is None:
        heads = tuple(h.text for h in markdown.analyze(body).headings if h.level > 1)
    columns = (title, " ".join(tags), " ".join(heads), summary, body)
    return _Document(
        title=title,
        type=str(meta.get("type") or "document"),
        status=str(meta.get("status") or "active"),
        tags="\x1f".join(tag.lower() for tag in tags),
        values=tuple(normalize(str(column)) for column in columns),
    )


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


def query_terms(text: str) -> tuple[list[str], list[str]]:
    """Turn free text into FTS5 terms, and phrases that reward the words standing together.

    Terms are the quoted words (stop words dropped); the last also matches as a prefix, for
    queries typed as they are thought. Boosts are each pair of neighbouring words as a phrase
    and all the words within ten tokens of each other: they only add to the score.
    """
    words = _WORD.findall(normalize(text).lower())
    kept = list(dict.fromkeys(word for word in words if word not in STOP_WORDS)) or words
    terms = [f'"{word}"' for word in kept]
    if terms and not _CJK.search(kept[-1]) and len(kept[-1]) >= 3:
        terms[-1] = f"({terms[-1]} OR {terms[-1]}*)"
    boosts = [f'"{left} {right}"' for left, right in zip(kept, kept[1:], strict=False)]
    if len(kept) > 2:
        boosts.append("NEAR(" + " ".join(f'"{word}"' for word in kept) + ", 10)")
    return terms, boosts


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

    SQLite ranks the matches by weighted BM25; of its best CANDIDATES, those that contain more
    of the query's terms rank first, BM25 deciding among equals. The score is the number of
    terms matched plus BM25 squashed into [0, 1), so 3.62 reads "all three terms, fairly
    relevant". (Small wikis need the first part: there BM25 gives words that most articles
    share no weight at all.)
    """
    terms, boosts = query_terms(text)
    if not terms:
        return []
    where = ["fts MATCH ?"]
    params: list[Any] = [" OR ".join(terms + boosts)]
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
        f"SELECT docs.id, docs.path, docs.title, docs.type, -bm25(fts, {weights}) AS score "
        f"FROM fts JOIN docs ON docs.id = fts.rowid WHERE {' AND '.join(where)} "
        "ORDER BY score DESC, docs.path LIMIT ?"
    )

    def run(index: sqlite3.Connection) -> tuple[list[Any], dict[int, int]]:
        rows = index.execute(sql, (*params, max(CANDIDATES, limit))).fetchall()
        ids = [row[0] for row in rows]
        return rows, (_coverage(index, terms, ids) if len(terms) > 1 else {})

    rows, matched = _on_index(ws, db, run)
    ranked = sorted(
        (
            ((matched.get(rowid) or 1) + max(bm25, 0.0) / (1.0 + max(bm25, 0.0)), rel, title, kind_)
            for rowid, rel, title, kind_, bm25 in rows
        ),
        key=lambda row: (-row[0], row[1]),
    )[:limit]
    words = _WORD.findall(normalize(text).lower())
    return [
        Hit(f".wiki/wiki/{rel}", title, kind_, round(score, 4), snippet(ws.wiki / rel, words))
        for score, rel, title, kind_ in ranked
    ]


Answer = TypeVar("Answer")


def _on_index(
    ws: Workspace, db: sqlite3.Connection | None, run: Callable[[sqlite3.Connection], Answer]
) -> Answer:
    """Run a read on the index (`db` if given, else one opened and closed here).

    A writer checkpointing is waited for; an index damaged since it was synced (a table
    dropped, pages overwritten) is deleted and built anew from the articles, once.
    """
    ours = db is None  # a given connection stays the caller's to close
    index = db or open_index(ws, lambda: statcache.scan(ws.wiki))
    deadline = time.monotonic() + BUSY_SECONDS
    rebuilt = False
    try:
        while True:
            try:
                return run(index)
            except sqlite3.DatabaseError as exc:
                if damaged(exc) and not rebuilt:
                    if ours:
                        index.close()
                    _remove_index(index_path(ws))
                    index = open_index(ws, lambda: statcache.scan(ws.wiki))
                    ours = rebuilt = True
                    continue
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise SkillwikiError(f"the search index cannot be read ({exc})") from None
                time.sleep(0.05)  # a writer checkpointing: wait for it
    finally:
        if ours:
            index.close()


def _coverage(db: sqlite3.Connection, terms: Sequence[str], ids: list[int]) -> dict[int, int]:
    """Return, per candidate document, how many of the terms it contains."""
    # Streaming each term's matches and filtering here beats asking FTS5 for `rowid IN (...)`,
    # which seeks in the term's doclist once per candidate.
    counts = dict.fromkeys(ids, 0)
    for term in terms:
        for (rowid,) in db.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (term,)):
            if rowid in counts:
                counts[rowid] += 1
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
        if raw_line == "## Sources":  # the back-link the compiler adds: not the article's text
            break
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
