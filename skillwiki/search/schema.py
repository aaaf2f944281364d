"""The tables of the search index, and how a statement names many rows at once.

The index is derived from the articles: its schema carries a version (`SCHEMA`), and an index
of another version, or none, is dropped and created again (`create_schema`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from typing import TypeVar

SCHEMA = "16"  # 16: a link to a site path refers to the page it names

# How the index cuts text into words and stems them (search/snippets.py marks snippets the same)
TOKENIZER = "porter unicode61 remove_diacritics 2"

# The five indexed columns of an article, in the order the full-text table holds them.
FTS_COLUMNS = "title, tags, headings, summary, body"

_STATEMENTS = (
    "DROP TABLE IF EXISTS docs",
    "DROP TABLE IF EXISTS fts",
    "DROP TABLE IF EXISTS meta",
    "DROP TABLE IF EXISTS refs",
    "DROP TABLE IF EXISTS vecs",
    "DROP TABLE IF EXISTS sents",
    "DROP TABLE IF EXISTS names",
    "DROP TABLE IF EXISTS prior",
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # `packed` keeps what was indexed, compressed: a contentless FTS5 table (no second copy of
    # the text) can only delete a row when given the exact values it indexed.
    # AUTOINCREMENT: an id is never given again, not even that of the last row deleted, so
    # that what a reader keeps by id (vectors.py's cache) stays true of it.
    "CREATE TABLE docs(id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT UNIQUE NOT NULL,"
    " stamp TEXT NOT NULL, title TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL,"
    " tags TEXT NOT NULL, packed BLOB NOT NULL)",
    # What each article refers to (references.py): (key, docs id), looked up by key.
    "CREATE TABLE refs(key TEXT NOT NULL, src INTEGER NOT NULL, PRIMARY KEY (key, src))"
    " WITHOUT ROWID",
    "CREATE INDEX refs_of ON refs(src)",  # an article's rows, dropped when it changes
    # The names each article is referred to by (references.names), and how many other
    # articles refer to it by one of them: its centrality prior, counted at each sync for
    # the articles whose count it may change (none: no row).
    "CREATE TABLE names(key TEXT NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (key, doc))"
    " WITHOUT ROWID",
    "CREATE INDEX names_of ON names(doc)",
    "CREATE TABLE prior(id INTEGER PRIMARY KEY, inbound INTEGER NOT NULL)",
    # Each article's vectors when the extra is installed (embedders.py): WordLlama's mean of
    # its words (semantic.py) and MiniLM's of its prose (sentences.py).
    "CREATE TABLE vecs(id INTEGER PRIMARY KEY, vec BLOB NOT NULL)",
    "CREATE TABLE sents(id INTEGER PRIMARY KEY, vec BLOB NOT NULL)",
    f"CREATE VIRTUAL TABLE fts USING fts5({FTS_COLUMNS}, content='', tokenize = '{TOKENIZER}')",
)


class Damaged(sqlite3.DatabaseError):
    """What a reader found in the index is not what this code stored there (a vector of the
    wrong size, say): the index is damaged, as for SQLITE_CORRUPT."""


def schema_version(db: sqlite3.Connection) -> str | None:
    """The schema version the index on `db` was created with; None where it has none."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0])


def create_schema(db: sqlite3.Connection) -> None:
    """Create the index's tables on `db`, empty, dropping any there, in one transaction;
    nothing if another connection created this version while this one waited for its lock.

    Each creation names itself in meta ('built'): row ids start again from 1 in another
    build, even in the same file, and a reader that keeps rows by id must know.
    """
    db.execute("BEGIN IMMEDIATE")
    if schema_version(db) == SCHEMA:
        db.execute("COMMIT")
        return
    for statement in _STATEMENTS:
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
    # secrets.token_hex(8) is this call; the secrets module would load OpenSSL and random.
    db.execute("INSERT INTO meta VALUES ('built', ?)", (os.urandom(8).hex(),))
    db.execute("COMMIT")


Value = TypeVar("Value")


def in_chunks(values: Sequence[Value], size: int = 500) -> Iterator[tuple[str, list[Value]]]:
    """The values in chunks few enough for one statement's parameters, each with as many `?`
    (joined by commas) for its `IN (...)`."""
    for start in range(0, len(values), size):
        chunk = list(values[start : start + size])
        yield ",".join("?" * len(chunk)), chunk
