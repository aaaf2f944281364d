"""The shape of the code: the core never talks to the terminal, and every command is documented."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillwiki.cli.app import app
from skillwiki.statcache import RACY_NS
from tests.support import REPO, Invoke

PACKAGE = REPO / "skillwiki"
FORBIDDEN_IN_CORE = {"typer", "rich", "click"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_core_never_imports_typer_or_rich() -> None:
    core = [p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts]
    assert len(core) > 10
    offenders = {
        p.name: _imports(p) & FORBIDDEN_IN_CORE for p in core if _imports(p) & FORBIDDEN_IN_CORE
    }
    assert offenders == {}


def test_only_render_imports_rich() -> None:
    users = sorted(p.name for p in PACKAGE.rglob("*.py") if "rich" in _imports(p))
    assert users == ["render.py"]


def _commands() -> list[str]:
    return sorted(info.name or "" for info in app.registered_commands)


def test_every_command_has_examples_and_is_in_the_readme(invoke: Invoke) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(_commands()) >= 8
    for name in _commands():
        result = invoke(name, "--help")
        assert result.exit_code == 0, name
        assert "Examples:" in result.stdout, name
        assert "-w, --workspace" in result.stdout, name
        assert f"skillwiki {name}" in readme, name


def test_version_answers_the_same_on_both_paths(invoke: Invoke) -> None:
    fast = subprocess.run(
        [sys.executable, "-m", "skillwiki", "--version"], capture_output=True, text=True, check=True
    )
    assert invoke("--version").stdout == fast.stdout == "skillwiki 0.1.0\n"
    assert invoke("-w", ".", "--version").stdout == fast.stdout


def test_version_loads_no_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from skillwiki.cli import main\n"
        "sys.argv = ['skillwiki', '--version']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = {'typer', 'rich', 'markdown_it', 'yaml', 'sqlite3', 'xxhash'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["skillwiki 0.1.0", "[]"]


def test_a_no_change_query_imports_no_markdown_or_frontmatter_library(demo: Path) -> None:
    """The libraries that read Markdown are loaded only when something is to be parsed."""
    code = (
        "import sys\n"
        "from skillwiki.cli.app import make_app\n"
        "sys.argv = ['skillwiki', '-w', sys.argv[1], 'query', 'agent tools']\n"
        "try:\n    make_app('query')()\nexcept SystemExit:\n    pass\n"
        "libraries = {'markdown_it', 'mdit_py_plugins', 'frontmatter', 'yaml'}\n"
        "print(sorted(libraries & set(sys.modules)))\n"
    )
    argv = [sys.executable, "-c", code, str(demo)]
    time.sleep(RACY_NS / 1e9)  # the raw files' ctimes (the copy's) out of the racy window
    first = subprocess.run(argv, capture_output=True, text=True, check=True)  # compiles
    assert "markdown_it" in first.stdout.splitlines()[-1]
    again = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert again.stdout.splitlines()[-1] == "[]"


def test_python_dash_m_works() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "skillwiki", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout == "skillwiki 0.1.0\n"


NETWORK_OR_CODE = {"socket", "ssl", "http", "requests", "httpx", "pickle", "shelve", "subprocess"}
# `skillwiki serve`: a unix socket of mode 0600 in .wiki/.cache/, its client, and the hook
# that starts it as `python -m skillwiki serve` (no address on a network, no code from content).
LOCAL_ONLY = {
    "channel.py": {"socket"},
    "server/serve.py": {"socket"},
    "cli/__init__.py": {"subprocess"},
}


def test_no_network_and_no_code_from_content() -> None:
    for path in PACKAGE.rglob("*.py"):
        imports = _every_import(path)  # `from urllib import request` is urllib.request too
        tops = {name.split(".")[0] for name in imports}
        tops -= LOCAL_ONLY.get(path.relative_to(PACKAGE).as_posix(), set())
        assert not tops & NETWORK_OR_CODE, (path.name, tops & NETWORK_OR_CODE)
        assert "urllib.request" not in imports, path.name
        calls = {
            node.func.id
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & {"eval", "exec", "compile", "__import__"}, path.name
    loaders = sorted(
        p.name
        for p in PACKAGE.rglob("*.py")
        if re.search(r"\byaml\.(load|unsafe_load|full_load)\(", p.read_text())
    )
    assert loaders == ["strict_yaml.py"]  # the one place YAML is loaded, with SafeLoader subclasses


def test_only_the_named_command_is_built_and_help_still_lists_all() -> None:
    from skillwiki.cli.app import command_name

    assert command_name(["query", "x"]) == "query"
    assert command_name(["-w", "a b", "status"]) == "status"
    assert command_name(["--workspace=here", "-wthere", "lint", "--help"]) == "lint"
    assert command_name(["--help", "query"]) is None
    assert command_name(["--version"]) is None
    assert command_name([]) is None

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skillwiki", *args], capture_output=True, text=True
        )

    listed = run("--help").stdout
    assert all(name in listed for name in ("init", "query", "status", "lint", "recall"))
    assert "Search the compiled articles" in run("query", "--help").stdout
    typo = run("quer", "x")
    assert typo.returncode == 2 and "Did you mean 'query'?" in typo.stderr


def test_the_command_map_names_each_command_and_its_module() -> None:
    from skillwiki.cli.app import COMMANDS, make_app

    everything = make_app()
    assert {info.name for info in everything.registered_commands} == set(COMMANDS)
    for name, module in COMMANDS.items():
        (info,) = make_app(name).registered_commands
        assert info.name == name and info.callback is not None
        assert info.callback.__module__ == f"skillwiki.cli.{module}"


def test_the_process_ends_with_its_status_and_all_of_its_output(demo: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skillwiki", "-w", str(demo), *args],
            capture_output=True,
            text=True,
        )

    status = run("status", "--json")
    assert status.returncode == 0 and status.stderr == ""
    assert json.loads(status.stdout)["totals"]["fresh"] == len(json.loads(status.stdout)["files"])
    missing = run("show", "no-such-lesson")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("Error: ") and len(missing.stderr.splitlines()) == 1
    with (demo / ".wiki" / "raw" / "docs" / "ci.md").open("a") as handle:
        handle.write("\nChanged.\n")
    assert run("status", "--check").returncode == 1
    closed = subprocess.Popen(
        [sys.executable, "-m", "skillwiki", "-w", str(demo), "status", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert closed.stdout is not None and closed.stderr is not None
    closed.stdout.close()  # the reader goes away: no traceback, whenever it happens
    with closed.stderr:
        assert b"Traceback" not in closed.stderr.read()
    assert closed.wait() in (0, 1)


WALL_CLOCK = ("datetime.now(", "date.today(", "time.gmtime(", "time.localtime(", "time.strftime(")


def test_one_clock_for_dates() -> None:
    """Only skillwiki/clock.py asks the wall clock for a date or time (file-time checks use
    time.time_ns(), which is the file system's business, not a date)."""
    offenders = [
        f"{path.relative_to(PACKAGE)}: {call}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "clock.py"
        for call in WALL_CLOCK
        if call in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "argv",
    [
        ["query", "agent tools"],
        ["status"],
        ["show", "docs/ci.md"],
        ["recall"],
        ["query", "x", "--json"],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_read_commands_never_import_pydantic(demo: Path, argv: list[str]) -> None:
    """Typer coerces options through pydantic unless cli/coerce.py's hook takes over: if a
    Typer release changes the internals the hook relies on, this fails instead of every read
    command silently paying for pydantic."""
    code = (
        "import sys\n"
        "from skillwiki.cli.app import make_app\n"
        "args = sys.argv[2:]\n"
        "sys.argv = ['skillwiki', '-w', sys.argv[1], *args]\n"
        "try:\n    make_app(args[0])()\nexcept SystemExit as exc:\n    status = exc.code\n"
        "print('pydantic' in sys.modules, status)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(demo), *argv], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines()[-1] == "False 0"


WRITES = re.compile(
    r"\.write_text\(|\.write_bytes\(|os\.replace\(|os\.rename\(|\.unlink\(|rmtree\(|\.mkdir\("
    r"|O_WRONLY|O_CREAT|open\([^)]*[\"'][wax]"
)
# Files the user or the CI names, outside the workspace by design.
WRITES_ALLOWED = {"cli/lint_cmd.py": 1}  # appends the lint summary to $GITHUB_STEP_SUMMARY


def test_only_fsio_writes_files() -> None:
    """Every write, rename, delete or mkdir goes through fsio, which keeps it atomic, locked
    where it must be and inside the workspace (the search index is SQLite's to write)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel != "fsio.py":
            count = len(WRITES.findall(path.read_text(encoding="utf-8")))
            if count:
                found[rel] = count
    assert found == WRITES_ALLOWED


def test_one_vocabulary_for_lessons() -> None:
    """Severity, scope, status, trigger and outcome are spelled once, in kinds.py:
    everywhere else names a member. (JSON keys of an agent's feedback that happen to share a
    trigger's name, `retries` and `rejected`, are keys, not values.)"""
    from skillwiki import kinds

    vocabulary = {
        member.value
        for kind in (kinds.Severity, kinds.Scope, kinds.Status, kinds.Trigger, kinds.Outcome)
        for member in kind
    }
    feedback_keys = {("memory/suggest.py", "retries"), ("memory/suggest.py", "rejected")}
    spelled = sorted(
        (str(path.relative_to(PACKAGE)), node.lineno, node.value)
        for path in PACKAGE.rglob("*.py")
        if path.name != "kinds.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in vocabulary
        if (str(path.relative_to(PACKAGE)), node.value) not in feedback_keys
    )
    assert spelled == []


def _module_of(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _every_import(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function: `from a.b import c` gives
    a.b and a.b.c (c may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


# Imports that would run back up: (row id, importers, what they must not import). The faces
# (skillwiki.cli, skillwiki.server, skillwiki.hooks) import the core and skillwiki.api, never
# one another; the core imports no face and not the read paths above it.
FACES = ("skillwiki.cli", "skillwiki.server", "skillwiki.hooks")
UPWARD = [
    ("server-to-cli", ("skillwiki.server",), ("skillwiki.cli",)),
    ("hooks-to-cli", ("skillwiki.hooks",), ("skillwiki.cli", "skillwiki.server")),
    ("api-to-a-face", ("skillwiki.api",), FACES),
    ("memory-to-reading", ("skillwiki.memory",), ("skillwiki.reading", "skillwiki.api")),
    ("memory-to-a-face", ("skillwiki.memory",), FACES),
    ("search-to-a-face", ("skillwiki.search",), FACES),
    ("compiler-to-a-face", ("skillwiki.compiler",), FACES),
    ("lint-to-a-face", ("skillwiki.lint",), FACES),
]
KEPT_NAMES: set[tuple[str, str]] = set()  # (importer, imported) allowed to run back up: none


@pytest.mark.parametrize(
    ("importers", "forbidden"), [row[1:] for row in UPWARD], ids=[row[0] for row in UPWARD]
)
def test_no_import_runs_back_up(importers: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    found = sorted(
        (module, name)
        for path in PACKAGE.rglob("*.py")
        if any(_within(module := _module_of(path), importer) for importer in importers)
        for name in _every_import(path)
        if any(_within(name, face) for face in forbidden)
        if (module, name) not in KEPT_NAMES
    )
    assert found == []


def test_the_hooks_are_a_face_beside_the_cli_and_the_server() -> None:
    from skillwiki import hooks

    assert Path(hooks.__file__).parent == PACKAGE / "hooks"
    assert callable(hooks.answer) and hooks.CLIENTS == ("claude-code", "codex", "cursor")
    in_memory = PACKAGE / "memory" / "hooks.py"
    assert not in_memory.exists() or _every_import(in_memory) == {
        "skillwiki.hooks",
        "skillwiki.hooks.*",
    }


# What a read on an unchanged workspace never uses: the terminal's styling, pydantic, OpenSSL
# (through the stdlib `secrets`, which an index's build id came from), what a server's watcher
# tells; and for query and show, which read no lesson, the Markdown and YAML readers; and for a
# hook in the form clients call it, the CLI framework.
UNUSED_BY_READS = ["rich", "pydantic", "secrets", "hmac", "_hashlib", "skillwiki.statcache.changes"]
READERS = ["markdown_it", "yaml", "frontmatter"]
READS = {
    "query": ["query", "agent tools"],
    "status": ["status"],
    "show": ["show", "docs/ci.md"],
    "recall": ["recall", "--task", "fix the deploy job"],
    "hook": ["hook", "claude-code", "user-prompt"],
}


@pytest.mark.parametrize("read", list(READS))
def test_a_read_of_an_unchanged_workspace_loads_only_what_it_uses(demo: Path, read: str) -> None:
    """The read commands, run as a process is (`skillwiki.cli.main`) on a wiki that is up to
    date, load none of the modules only other paths need: each is imported where it is used."""
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "fix the deploy job"})
    unused = UNUSED_BY_READS + (READERS if read in ("query", "show") else [])
    unused += ["typer", "click"] if read == "hook" else []  # its plain form (cli/hook_run.py)
    code = (
        "import os, sys\n"
        "real_exit = os._exit\n"
        f"sys.argv = ['skillwiki', '-w', {str(demo)!r}, *{READS[read]!r}]\n"
        "def leave(status):\n"
        f"    loaded = sorted(set({unused!r}) & set(sys.modules))\n"
        "    sys.stderr.write(f'{loaded} {status}\\n')\n"
        "    sys.stderr.flush()\n"
        "    real_exit(0)\n"
        "os._exit = leave\n"
        "from skillwiki.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(demo)}
    argv = [sys.executable, "-c", code]
    time.sleep(RACY_NS / 1e9)  # the raw files' ctimes (the copy's) out of the racy window
    subprocess.run(argv, input=prompt, capture_output=True, text=True, check=True, env=env)
    time.sleep(RACY_NS / 1e9)  # and the files the first run wrote
    out = subprocess.run(argv, input=prompt, capture_output=True, text=True, check=True, env=env)
    assert out.stderr.splitlines()[-1] == "[] 0"


def test_the_server_loads_neither_typer_nor_the_command_line(demo: Path) -> None:
    """The MCP face, built and asked every reading tool, never loads Typer or skillwiki.cli:
    what it shares with the command line lives in skillwiki.api. (Click comes with the MCP
    SDK's own dependencies, so only Typer is looked for.)"""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "import anyio\n"
        "from skillwiki.server import build\n"
        "from skillwiki.server.live import WorkspaceLookup\n"
        "wiki = build(WorkspaceLookup(Path(sys.argv[1])), read_only=False)\n"
        "calls = [('query', {'text': 'agent tools'}), ('show', {'key': 'docs/ci.md'}),\n"
        "         ('recall', {}), ('status', {}), ('suggest', {'feedback': {'retries': 5}})]\n"
        "for name, arguments in calls:\n"
        "    anyio.run(wiki.call_tool, name, arguments)\n"
        "loaded = sorted(n for n in sys.modules if n.split('.')[0] == 'typer'\n"
        "                or n == 'skillwiki.cli' or n.startswith('skillwiki.cli.'))\n"
        "print(loaded)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(demo)], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines()[-1] == "[]"
