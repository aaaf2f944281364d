"""A damaged cache is rebuilt or ignored, silently: every command still answers, correctly.

Everything under .wiki/.cache/ is derived. Each cache file of a settled workspace is damaged
in one way (emptied, cut, overwritten with noise, replaced by a value of another shape, its
fields given wrong types; the SQLite search index also with pages overwritten, tables
dropped and garbage in the FTS5 shadow tables and in the rows read when an article changes),
then the commands run.
"""

from __future__ import annotations

import json
import marshal
import shutil
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import DEMO, Invoke

pytestmark = pytest.mark.own

Damage = Callable[[Path], object]


def _wrong_fields(path: Path) -> None:
    data = marshal.loads(path.read_bytes())
    if isinstance(data, dict):
        for key in data:
            if key != "format":
                data[key] = {"x": ("bad", 1)} if isinstance(data[key], dict) else "bad"
    path.write_bytes(marshal.dumps(data))


def _wrong_entries(path: Path) -> None:
    data = marshal.loads(path.read_bytes())
    for key, value in list(data.items()) if isinstance(data, dict) else []:
        if isinstance(value, dict):
            data[key] = dict.fromkeys(list(value)[:50], ("x", (1, 2)))
    path.write_bytes(marshal.dumps(data))


MARSHAL_DAMAGE: dict[str, Damage] = {
    "emptied": lambda path: path.write_bytes(b""),
    "cut in half": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "noise": lambda path: path.write_bytes(bytes(range(256)) * 8),
    "a list": lambda path: path.write_bytes(marshal.dumps([1, 2, 3])),
    "an int": lambda path: path.write_bytes(marshal.dumps(7)),
    "fields of wrong types": _wrong_fields,
    "entries of wrong shapes": _wrong_entries,
}


def _sql(*statements: str) -> Damage:
    def damage(path: Path) -> None:
        with sqlite3.connect(path) as db:
            for statement in statements:
                db.execute(statement)

    return damage


def _overwrite(offset_pages: int) -> Damage:
    def damage(path: Path) -> None:
        data = bytearray(path.read_bytes())
        at = min(offset_pages * 4096, len(data) - 512)
        data[at : at + 512] = bytes(range(256)) * 2
        path.write_bytes(bytes(data))

    return damage


INDEX_DAMAGE: dict[str, Damage] = {
    "header overwritten": _overwrite(0),
    "a page overwritten": _overwrite(2),
    "the last page overwritten": _overwrite(10**6),
    "cut in half": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "emptied": lambda path: path.write_bytes(b""),
    "noise": lambda path: path.write_bytes(bytes(range(256)) * 64),
    "docs table dropped": _sql("DROP TABLE docs"),
    "fts table dropped": _sql("DROP TABLE fts"),
    "meta table dropped": _sql("DROP TABLE meta"),
    "garbage in fts_data": _sql("UPDATE fts_data SET block = x'00ff00ff00ff00ff'"),
    "garbage in fts_idx": _sql("INSERT INTO fts_idx VALUES (99, x'ff', 1)"),
}


@pytest.fixture
def settled(tmp_path: Path, invoke: Invoke) -> Path:
    """The demo after a query, a lint and a recall: every cache file exists."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".cache", ".lock"))
    for command in (["query", "allowedTools"], ["lint", "--exit-zero"], ["recall"]):
        assert invoke("-w", str(root), *command).exit_code == 0
    return root


def _answers(root: Path, invoke: Invoke) -> None:
    """Every command runs to its usual end; the query still finds what it found before."""
    found = invoke("-w", str(root), "query", "allowedTools", "--json")
    assert found.exit_code == 0, found.output
    assert "wiki/docs/agents.md" in json.dumps(json.loads(found.stdout))
    for command in (["status"], ["lint", "--exit-zero"], ["recall"], ["compile"], ["maintain"]):
        result = invoke("-w", str(root), *command)
        assert result.exit_code in (0, 1), (command, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), command


CACHE_FILES = [
    "state.marshal",
    "state-rows.marshal",
    "lint.marshal",
    "lint-report.marshal",
]


@pytest.mark.parametrize("damage", MARSHAL_DAMAGE, ids=str)
def test_damaged_marshal_caches_are_rebuilt(settled: Path, invoke: Invoke, damage: str) -> None:
    cache = settled / ".wiki" / ".cache"
    for name in CACHE_FILES:
        path = cache / name
        if not path.exists():
            path.write_bytes(marshal.dumps({"format": 1, "articles": {"docs/agents.md": 1}}))
        MARSHAL_DAMAGE[damage](path)
    _answers(settled, invoke)


@pytest.mark.parametrize("damage", INDEX_DAMAGE, ids=str)
def test_a_damaged_search_index_is_rebuilt(settled: Path, invoke: Invoke, damage: str) -> None:
    index = settled / ".wiki" / ".cache" / "search.sqlite"
    INDEX_DAMAGE[damage](index)
    _answers(settled, invoke)


def _packed_of_another_shape(path: Path) -> None:
    """A row packed as the index packs it (its dictionary), holding one value, not five."""
    with sqlite3.connect(path) as db:
        (zdict,) = db.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
        squeeze = zlib.compressobj(9, zdict=zdict)
        packed = squeeze.compress(b'["one"]') + squeeze.flush()
        db.execute("UPDATE docs SET packed = ?", (packed,))


# Damage read only when an article changed: the row of its old version is unpacked to take
# it out of the index.
ROW_DAMAGE: dict[str, Damage] = {
    "garbage in packed": _sql("UPDATE docs SET packed = x'00ff00ff'"),
    "text in packed": _sql("UPDATE docs SET packed = 'not packed'"),
    "a number in packed": _sql("UPDATE docs SET packed = 7"),
    "packed of another shape": _packed_of_another_shape,
    "garbage for the dictionary": _sql("UPDATE meta SET value = x'00' WHERE key = 'zdict'"),
    "text for the dictionary": _sql("UPDATE meta SET value = 'words' WHERE key = 'zdict'"),
    "a number for the dictionary": _sql("UPDATE meta SET value = 1000 WHERE key = 'zdict'"),
    "the dictionary deleted": _sql("DELETE FROM meta WHERE key = 'zdict'"),
}


@pytest.mark.parametrize("damage", ROW_DAMAGE, ids=str)
def test_a_damaged_row_is_rebuilt_when_its_article_changes(
    settled: Path, invoke: Invoke, damage: str
) -> None:
    ROW_DAMAGE[damage](settled / ".wiki" / ".cache" / "search.sqlite")
    with (settled / ".wiki" / "raw" / "docs" / "agents.md").open("a") as raw:
        raw.write("\nOne more line.\n")
    _answers(settled, invoke)
    _answers(settled, invoke)  # and the next time: the index was rebuilt, not left as it was


HITS = {
    "a word for a count": {"x": {"count": "many"}},
    "a huge count": '{"x": {"count": 1e400}}',
    "a count of 5000 digits": '{"x": {"count": ' + "9" * 5000 + "}}",
    "a list": [1, 2],
    "entries of other shapes": {"x": [1], "y": {"count": None}, "z": {"count": True}},
    "not JSON": "{{{",
}


@pytest.mark.parametrize("case", HITS, ids=str)
def test_damaged_hits_count_as_none(settled: Path, invoke: Invoke, case: str) -> None:
    value = HITS[case]
    text = value if isinstance(value, str) else json.dumps(value)
    lessons = json.loads((settled / ".wiki" / "index.json").read_text(encoding="utf-8"))
    ids = [item["id"] for item in lessons["articles"] if item.get("id")]
    if isinstance(value, dict):
        text = json.dumps({**value, **{lesson_id: value.get("x", 1) for lesson_id in ids}})
    (settled / ".wiki" / ".cache" / "hits.json").write_text(text, encoding="utf-8")
    _answers(settled, invoke)
    for lesson_id in ids:
        result = invoke("-w", str(settled), "feedback", lesson_id, "--outcome", "helped")
        assert result.exit_code == 0, result.output


def _failure(make: Callable[[], object]) -> sqlite3.Error:
    try:
        make()
    except sqlite3.Error as exc:
        return exc
    raise AssertionError("no SQLite failure")


def test_sqlite_failures_are_sorted_by_error_code(tmp_path: Path) -> None:
    """Busy, damaged, unwritable or other is read from the error code, not the message."""
    from skillwiki.search.index import Trouble, trouble

    noise = tmp_path / "noise.sqlite"
    noise.write_bytes(b"not a database " * 500)
    held = tmp_path / "held.sqlite"
    writer = sqlite3.connect(held, isolation_level=None)
    writer.execute("CREATE TABLE t(x)")
    writer.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(held, timeout=0, isolation_level=None)
    memory = sqlite3.connect(":memory:")
    cases = {
        "notadb": (
            lambda: sqlite3.connect(noise).execute("SELECT * FROM sqlite_master"),
            Trouble.DAMAGED,
        ),
        "no table": (lambda: memory.execute("SELECT * FROM docs"), Trouble.DAMAGED),
        "busy": (lambda: other.execute("BEGIN IMMEDIATE"), Trouble.BUSY),
        "cantopen": (lambda: sqlite3.connect(tmp_path / "no" / "x.sqlite"), Trouble.UNWRITABLE),
        "too big": (lambda: memory.execute("SELECT zeroblob(1 << 31)"), Trouble.OTHER),
    }
    try:
        found = {name: trouble(_failure(make)) for name, (make, _) in cases.items()}
    finally:
        writer.close()
        other.close()
    assert found == {name: kind for name, (_, kind) in cases.items()}
    # The message does not decide: "locked" in the text of a failure without a code is no wait.
    assert trouble(sqlite3.OperationalError("database is locked")) is Trouble.OTHER
