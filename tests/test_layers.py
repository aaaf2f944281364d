"""The package's layers: frontmatter split once, by the library, and no import running back up."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from skillwiki.frontmatter import flat_yaml
from skillwiki.frontmatter.documents import as_written, split
from tests.support import real_pages

# One row per shape of frontmatter: its text, then what it holds (None: it is no frontmatter).
SHAPES: list[tuple[str, str, dict[str, Any] | None]] = [
    (
        "as skillwiki writes it",
        "---\ntitle: A\ntags:\n  - x\n---\nBody.\n",
        {"title": "A", "tags": ["x"]},
    ),
    ("a number", "---\ntitle: A\nyear: 2026\n---\nBody.\n", {"title": "A", "year": 2026}),
    ("a date", "---\ncreated: 2026-11-30\n---\nBody.\n", {"created": "2026-11-30"}),
    ("a flow list", "---\ntags: [x, y]\n---\nBody.\n", {"tags": ["x", "y"]}),
    ("a nested mapping", "---\nauthor:\n  name: A\n---\nBody.\n", {"author": {"name": "A"}}),
    ("closed by YAML's document end", "---\ntitle: A\n...\nBody.\n", {"title": "A"}),
    ("spaces after the fences", "---  \ntitle: A\n--- \nBody.\n", {"title": "A"}),
    ("an empty block", "---\n---\nBody.\n", {}),
    ("TOML", '+++\ntitle = "A"\n+++\nBody.\n', {"title": "A"}),
    ("a block never closed", "---\ntitle: A\nBody.\n", None),
]


@pytest.mark.parametrize(
    ("text", "meta"), [row[1:] for row in SHAPES], ids=[row[0] for row in SHAPES]
)
def test_frontmatter_is_split_once(
    monkeypatch: pytest.MonkeyPatch, text: str, meta: dict[str, Any] | None
) -> None:
    """Each text is cut and read once: the flat YAML skillwiki writes by `as_written`, on the
    handlers' boundary, anything else by python-frontmatter's handler; a block is read flat
    once at most."""
    from frontmatter.default_handlers import BaseHandler

    splits: list[str] = []
    flat_reads: list[str] = []
    library_split = BaseHandler.split
    flat_load = flat_yaml.load

    def counted_split(self: BaseHandler, whole: str) -> tuple[str, str]:
        splits.append(whole)
        return library_split(self, whole)

    def counted_load(source: str, resolve: Any = None) -> Any:
        flat_reads.append(source)
        return flat_load(source, resolve)

    monkeypatch.setattr(BaseHandler, "split", counted_split)
    monkeypatch.setattr(flat_yaml, "load", counted_load)
    written = as_written(text) is not None
    flat_reads.clear()
    document = split(text, "note.md")
    assert (len(splits), len(flat_reads) <= 1) == (0 if written else 1, True)
    if meta is None:
        assert (document.has_frontmatter, document.meta, document.body) == (False, {}, text)
    else:
        assert (document.has_frontmatter, document.meta, document.body) == (True, meta, "Body.\n")


def test_the_flat_shapes_are_read_without_the_library() -> None:
    flat = {row[0] for row in SHAPES if as_written(row[1]) is not None}
    assert flat == {
        "as skillwiki writes it",
        "a number",
        "a date",
        "closed by YAML's document end",
        "spaces after the fences",
        "an empty block",
    }


@pytest.mark.parametrize(
    ("text", "loaded"),
    [
        ("# Title\n\n---\n\nBody.\n", []),
        ("---\ntitle: A\ntags:\n  - x\n---\nBody.\n", []),
        ("---\ntitle: A\nyear: 2026\n---\nBody.\n", ["yaml"]),
        ("---\ntags: [x, y]\n---\nBody.\n", ["frontmatter", "yaml"]),
    ],
    ids=["no fence", "as skillwiki writes it", "a number", "a flow list"],
)
def test_a_text_loads_only_the_library_it_needs(text: str, loaded: list[str]) -> None:
    """No library for a text without a fence or with the frontmatter skillwiki writes; PyYAML's
    resolvers alone for a number; python-frontmatter for anything else."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from skillwiki.frontmatter.documents import split\n"
        f"document = split({text!r}, 'note.md')\n"
        "print(sorted({'frontmatter', 'yaml'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == f"{loaded}\n"


SEARCH_ENGINE = ["sqlite3", "skillwiki.search.index", "skillwiki.search.rank"]


@pytest.mark.parametrize(
    ("module", "unloaded"),
    [
        ("skillwiki.compiler.apply", SEARCH_ENGINE),
        ("skillwiki.lint", SEARCH_ENGINE),
        ("skillwiki.search.heading_cache", SEARCH_ENGINE),
        ("skillwiki.markdown.references", ["markdown_it", "skillwiki.markdown.parse"]),
        ("skillwiki.api", ["skillwiki.api.reads", "skillwiki.api.writes", "skillwiki.compiler"]),
        ("skillwiki.compiler", ["skillwiki.compiler.apply", "skillwiki.compiler.plan"]),
    ],
    ids=["compile", "lint", "what compile hands search", "references", "the api", "compiler"],
)
def test_a_package_loads_only_the_module_asked_for(module: str, unloaded: list[str]) -> None:
    """Compile and lint take what compile hands the search index from skillwiki.search, status
    takes references from skillwiki.markdown, a face takes one use-case of skillwiki.api: none
    of them loads the package's other modules (SQLite, the ranking, the Markdown reader, the
    other use-cases), which only their own users need."""
    import subprocess
    import sys

    code = (
        "import sys, importlib\n"
        f"importlib.import_module({module!r})\n"
        f"print(sorted(set({unloaded!r}) & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def test_status_loads_neither_what_writes_articles_nor_the_reads(tmp_path: Path) -> None:
    """status plans and reads the raw files compile would refuse: on a fresh wiki it loads
    neither what compiles and writes articles, nor the search package, nor the reads'
    use-cases, which a status never runs."""
    import shutil
    import subprocess
    import sys

    ws = tmp_path / "demo"
    shutil.copytree(REPO / "fixtures" / "demo", ws)
    run = [sys.executable, "-m", "skillwiki", "-w", str(ws)]
    subprocess.run([*run, "compile"], capture_output=True, check=True)
    unloaded = ["skillwiki.api.reads", "skillwiki.compiler.apply", "skillwiki.search"]
    code = (
        "import os, sys\n"
        "real_exit = os._exit\n"
        f"sys.argv = ['skillwiki', '-w', {str(ws)!r}, 'status']\n"
        "def leave(status):\n"
        f"    print(sorted(set({unloaded!r}) & set(sys.modules)), status)\n"
        "    sys.stdout.flush()\n"
        "    real_exit(0)\n"
        "os._exit = leave\n"
        "from skillwiki.cli import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[] 0"


REPO = Path(__file__).resolve().parent.parent

# One row per import that ran back up a layer, or round a cycle: the importer, then the module
# it must not reach, directly or through any other.
BACK_UP = [
    (
        "the cycle documents <-> frontmatter handlers",
        "frontmatter.handlers",
        "frontmatter.documents",
    ),
    ("search named the lessons' vocabulary in memory", "search", "memory"),
    ("the MCP server loaded the command line", "server", "cli"),
    ("memory (its hooks) read through the reading use-case", "memory", "reading"),
]


@pytest.fixture(scope="module")
def graph() -> Any:
    """The package's import graph, less the imports the contract still lets run back up."""
    import grimp

    built = grimp.build_graph("skillwiki", cache_dir=None)
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = config["tool"]["importlinter"]["contracts"]
    for line in contract.get("ignore_imports", []):
        importer, imported = (name.strip() for name in line.split("->"))
        if {importer, imported} <= built.modules and built.direct_import_exists(
            importer=importer, imported=imported
        ):
            built.remove_import(importer=importer, imported=imported)
    return built


@pytest.mark.parametrize(
    ("importer", "imported"), [row[1:] for row in BACK_UP], ids=[row[0] for row in BACK_UP]
)
def test_no_import_runs_back_up(graph: Any, importer: str, imported: str) -> None:
    chain = graph.find_shortest_chain(
        importer=f"skillwiki.{importer}", imported=f"skillwiki.{imported}", as_packages=True
    )
    assert chain is None


def test_the_layer_contract_holds() -> None:
    """The declared layers, checked as CI checks them: a module that imports up fails here."""
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True) == 0


@pytest.mark.paths
def test_the_flat_reader_reads_real_frontmatter_as_the_yaml_loader_does() -> None:
    """The subset skillwiki writes is read without a YAML parser; on every real page whose
    frontmatter it reads, it reads what the strict loader reads."""
    import yaml

    from skillwiki.frontmatter import strict_yaml
    from skillwiki.frontmatter.documents import decode, read_flat
    from skillwiki.frontmatter.fences import YAML_BOUNDARY, YAML_OPENING

    read = 0
    for path in real_pages("en"):
        text = decode(path.read_bytes(), path, 10**8)
        parts = YAML_BOUNDARY.split(text, 2) if YAML_OPENING.match(text) else []
        flat = read_flat(parts[1]) if len(parts) == 3 else None
        if flat is not None:
            read += 1
            assert flat == yaml.load(parts[1], Loader=strict_yaml.StrictLoader), path  # noqa: S506
    assert read > 300


def _by_the_library(text: str) -> tuple[bool, dict[str, Any], str] | str:
    """What python-frontmatter's handlers make of `text`, or the error they raise."""
    from skillwiki.errors import InputError
    from skillwiki.frontmatter import handlers

    try:
        found = handlers.split(text, "note.md")
    except InputError as exc:
        return exc.detail
    return (False, {}, text) if found is None else (True, *found)


def _by_split(text: str) -> tuple[bool, dict[str, Any], str] | str:
    from skillwiki.errors import InputError

    try:
        document = split(text, "note.md")
    except InputError as exc:
        return exc.detail
    return (document.has_frontmatter, document.meta, document.body)


@pytest.mark.paths
def test_split_is_the_library_on_real_pages_and_on_what_skillwiki_writes_of_them() -> None:
    """`split` (its flat path included) gives what python-frontmatter's handlers give, on every
    real page, on the raw file ingest writes of it and on the article compile writes of that."""
    from skillwiki.compiler.article import render
    from skillwiki.frontmatter.documents import decode, join

    written = 0
    for number, path in enumerate(real_pages("en", "zh")):
        page = decode(path.read_bytes(), path, 10**8)
        found = _by_split(page)
        assert found == _by_the_library(page), path
        if isinstance(found, str) or (not found[1] and number % 3):  # a third of the plain ones
            continue
        head = found[2][:1000]  # what the article's frontmatter is made of comes first
        raw = join({**found[1], "origin": path.name}, head)
        article = render(f"pages/{path.name}", split(raw, "raw.md"), "xxh3:0", "xxh3").text
        for text in (raw, article):
            assert _by_split(text) == _by_the_library(text), (path, text[:200])
            written += as_written(text) is not None
    assert written > 1000


def test_no_two_modules_import_each_other_round_a_cycle() -> None:
    """No cycle of imports between modules, inside a package as between packages (imports
    made only for type checkers aside): each module can be read, and moved, after the modules
    it imports."""
    import grimp

    built = grimp.build_graph("skillwiki", cache_dir=None, exclude_type_checking_imports=True)
    imports = {m: set(built.find_modules_directly_imported_by(m)) for m in built.modules}
    cycles = [
        sorted((module, *chain))
        for module in sorted(imports)
        for imported in sorted(imports[module])
        if (chain := built.find_shortest_chain(importer=imported, imported=module)) is not None
    ]
    assert cycles == []
