"""`skillwiki serve` and the command line's client of it (skillwiki.channel), as processes: the
answer through the server is the command's own, byte for byte; a change made just before a
query is seen; and whatever goes wrong with the server, the client answers by itself."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillwiki import channel
from skillwiki.cli.serve_cmd import _program
from tests.support import NOW, write

# Every client is run as `python -m skillwiki`, as a hook's command line may run it.
CLI = [sys.executable, "-m", "skillwiki"]


@dataclass
class Ran:
    status: int
    stdout: bytes
    stderr: bytes


def run(
    root: Path,
    *args: str,
    stdin: bytes = b"",
    served: bool = True,
    env: dict[str, str] | None = None,
) -> Ran:
    """The command run in a process of its own in `root`, pipes on every stream, `env` added
    to the environment; with `served` off, SKILLWIKI_NO_SERVER keeps it from asking a server."""
    environ = {**os.environ, "SKILLWIKI_NOW": NOW, "SKILLWIKI_SEMANTIC": "0", **(env or {})}
    environ.pop("SKILLWIKI_NO_SERVER", None)
    if not served:
        environ[channel.OFF_ENV] = "1"
    done = subprocess.run(
        [*CLI, *args], input=stdin, capture_output=True, cwd=root, env=environ, timeout=60
    )
    return Ran(done.returncode, done.stdout, done.stderr)


class Serving:
    """A `skillwiki serve` process for one workspace."""

    def __init__(self, root: Path, *args: str, program: list[str] | None = None) -> None:
        self.root = root
        self.socket = root / ".wiki" / ".cache" / channel.SOCKET
        env = {**os.environ, "SKILLWIKI_NOW": NOW, "SKILLWIKI_SEMANTIC": "0"}
        self.process = subprocess.Popen(
            [*(program or CLI), "-w", str(root), "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.process.stderr is not None
        said = self.process.stderr.readline().decode()  # once it listens
        assert said.startswith("skillwiki serve: answering for "), said

    def stop(self) -> str:
        """End the server (SIGTERM); what it said on stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=30)
        return err.decode()

    def answered(self) -> int:
        """Stop the server; how many answers it said it gave."""
        said = self.stop()
        assert self.process.returncode == 0, said
        assert "not answered" not in said, said
        return int(said.rsplit("ended after ", 1)[1].split(" ")[0])


def test_the_socket_is_the_owner_s_alone_and_goes_with_the_server(served: Serving) -> None:
    mode = served.socket.stat().st_mode
    assert stat.S_ISSOCK(mode)
    assert stat.S_IMODE(mode) == 0o600
    assert served.answered() == 0
    assert not served.socket.exists()


# Every read command, and their errors and usage errors: the served answer is the same bytes.
READS = [
    ("query", "tool failure retry"),
    ("query", "tool failure retry", "--json", "--limit", "3"),
    ("query", "retry", "--explain", "--type", "document"),
    ("query", "zzzunfound"),
    ("query",),
    ("query", "x", "--limit", "0"),
    ("status",),
    ("status", "--json"),
    ("status", "--check"),
    ("show", "docs/ci.md"),
    ("show", "docs/ci.md", "--json"),
    ("show", "nosuch"),
    ("recall", "--task", "retry the tool"),
    ("recall", "--format", "json", "--agent", "coder"),
    ("query", "--help"),
]
HOOKS = [
    ("claude-code", "session-start", {"session_id": "s1"}),
    ("claude-code", "user-prompt", {"session_id": "s2", "prompt": "retry the tool"}),
    ("codex", "pre-tool", {"session_id": "s3", "tool_name": "Edit", "tool_input": {}}),
    ("cursor", "stop", {"conversation_id": "c1"}),
    ("claude-code", "no-such-event", {}),
]


@pytest.mark.slow
def test_every_read_command_answers_the_same_bytes_served_or_not(
    served: Serving, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cases: list[tuple[Path, tuple[str, ...], bytes, dict[str, str]]] = [
        (served.root, args, b"", {}) for args in READS
    ]
    cases += [
        (served.root / "docs", ("query", "retry"), b"", {"COLUMNS": "60", "NO_COLOR": "1"}),
        (elsewhere, ("-w", str(served.root), "status"), b"", {}),
        (elsewhere, ("status",), b"", {"SKILLWIKI_WORKSPACE": str(served.root)}),
    ]
    for client, event, payload in HOOKS:
        given = json.dumps(payload).encode()
        cases.append((served.root, ("hook", client, event), given, {}))
    for where, args, stdin, env in cases:
        # A hook's session is shown a lesson once: each run is a session of its own.
        alone = run(where, *args, stdin=stdin.replace(b'"s', b'"alone-s'), served=False, env=env)
        answered = run(where, *args, stdin=stdin.replace(b'"s', b'"served-s'), env=env)
        assert answered == alone, args
    assert served.answered() == len(cases)


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("hook", "claude-code", "stop"), {"SKILLWIKI_HOOK_SECONDS": "abc"}),
        (("hook", "claude-code", "pre-tool", "--agnet", "coder"), {}),
    ],
)
def test_a_hook_s_warning_is_said_once_served_or_not(
    served: Serving, args: tuple[str, ...], env: dict[str, str]
) -> None:
    """The budget's warning of a bad SKILLWIKI_HOOK_SECONDS, and a hook's usage error (a
    warning and status 0: a client takes status 2 as a block), one line either way."""
    alone = run(served.root, *args, stdin=b'{"session_id": "a"}', served=False, env=env)
    answered = run(served.root, *args, stdin=b'{"session_id": "b"}', env=env)
    assert answered == alone
    assert alone.status == 0 and alone.stdout == b""
    assert len(alone.stderr.splitlines()) == 1 and alone.stderr.startswith(b"Warning: ")
    assert served.answered() == 1


def test_a_closed_stdout_is_not_served(served: Serving) -> None:
    """A hook whose stdout the caller closed prints nothing and exits 0 by itself; a server's
    answer could not be written."""
    script = 'exec "$0" -m skillwiki hook claude-code session-start >&- </dev/null'
    done = subprocess.run(
        ["sh", "-c", script, sys.executable], cwd=served.root, capture_output=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert served.answered() == 0


@pytest.mark.slow
def test_a_server_whose_socket_was_deleted_ends_and_leaves_the_next_one_s(demo: Path) -> None:
    """`.wiki/.cache/` is disposable: a server whose socket went with it can never be reached,
    so it ends; the socket of a server started since is not its to remove."""
    first = Serving(demo)
    shutil.rmtree(demo / ".wiki" / ".cache")
    second = Serving(demo)
    said = first.process.communicate(timeout=30)[1].decode()
    assert "its socket is gone or replaced" in said and first.process.returncode == 0
    assert second.socket.exists()
    assert run(demo, "status").status in (0, 1)
    assert second.answered() == 1


def test_a_raw_file_changed_just_before_a_query_is_seen(served: Serving) -> None:
    assert json.loads(run(served.root, "query", "kookaburra", "--json").stdout)["results"] == []
    raw = served.root / ".wiki" / "raw" / "docs" / "ci.md"
    raw.write_text(raw.read_text() + "\nThe kookaburra step.\n")
    answer = json.loads(run(served.root, "query", "kookaburra", "--json").stdout)
    assert [hit["path"] for hit in answer["results"]] == [".wiki/wiki/docs/ci.md"]
    assert answer["refreshed"] == 1
    assert served.answered() == 2


def test_what_a_writer_wrote_meanwhile_is_seen(served: Serving) -> None:
    assert run(served.root, "show", "notes.md").status == 2
    note = b"# Wombat notes\n\nThe wombat runbook.\n"
    wrote = run(served.root, "ingest", "-", "--name", "notes.md", stdin=note)  # in-process
    assert wrote.status == 0, wrote.stderr
    shown = run(served.root, "show", "raw/notes.md")
    assert shown.status == 0 and b"wombat runbook" in shown.stdout
    assert served.answered() == 2  # the two reads; the ingest ran by itself


def test_a_second_server_of_one_workspace_is_refused(served: Serving) -> None:
    second = run(served.root, "serve")
    assert second.status == 2
    assert second.stderr.decode().startswith("Error: a server already answers for ")
    assert len(second.stderr.splitlines()) == 1


def test_serve_stop_ends_the_server_and_says_so(served: Serving) -> None:
    stopped = run(served.root, "serve", "--stop")
    assert stopped.status == 0
    assert stopped.stderr.decode().startswith(f"stopped the server of {served.root} (pid ")
    served.process.wait(timeout=30)
    assert not served.socket.exists()
    again = run(served.root, "serve", "--stop")
    assert again.stderr.decode() == f"no server answers for {served.root}\n"


def test_an_idle_server_ends_by_itself(demo: Path) -> None:
    server = Serving(demo, "--idle", "0.3")
    assert server.process.wait(timeout=30) == 0
    assert server.answered() == 0
    assert not server.socket.exists()


def test_a_stale_socket_is_passed_over_then_replaced(demo: Path) -> None:
    alone = run(demo, "query", "retry", served=False)
    path = demo / ".wiki" / ".cache" / channel.SOCKET
    path.parent.mkdir(exist_ok=True)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(path))  # a server killed with SIGKILL leaves its socket as this one
    left.close()
    assert run(demo, "query", "retry") == alone
    server = Serving(demo)
    assert run(demo, "query", "retry") == alone
    assert server.answered() == 1


def test_a_server_of_another_version_is_passed_over(demo: Path) -> None:
    alone = run(demo, "query", "retry", served=False)
    older = [
        sys.executable,
        "-c",
        "import sys, skillwiki; skillwiki.__version__ = '0.0.1'; "
        "sys.argv[0] = 'skillwiki'; from skillwiki.cli import main; main()",
    ]
    server = Serving(demo, program=older)
    assert run(demo, "query", "retry") == alone
    assert server.answered() == 0


# A server that takes the request and then ends (as if killed), or never takes it.
FAKE = """
import os, socket, sys, time
from skillwiki import channel
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen(8)
print("ready", flush=True)
while True:
    connection, _ = listener.accept()
    channel.receive_frame(connection)
    channel.receive_frame(connection)
    with open(sys.argv[1] + ".asked", "a") as asked:
        asked.write("asked\\n")
    if sys.argv[2] == "dies":
        connection.sendall(channel.ACCEPTED + b"\\0\\0")  # half an answer
        os._exit(9)
    time.sleep(3600)
"""


@pytest.mark.parametrize("how", ["dies", "stays silent"])
def test_a_server_that_fails_mid_answer_leaves_the_client_to_answer(demo: Path, how: str) -> None:
    run(demo, "compile", served=False)
    payload = json.dumps({"session_id": "k1", "prompt": "retry the tool"}).encode()
    asks = [(("query", "retry", "--json"), b""), (("hook", "claude-code", "user-prompt"), payload)]
    alone = [run(demo, *args, stdin=stdin, served=False) for args, stdin in asks]
    for (args, stdin), expected in zip(asks, alone, strict=True):
        path = demo / ".wiki" / ".cache" / channel.SOCKET
        path.unlink(missing_ok=True)
        fake = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(FAKE), str(path), how.split()[0]],
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(Path(channel.__file__).parent.parent)},
        )
        try:
            assert fake.stdout is not None and fake.stdout.readline() == b"ready\n"
            started = time.monotonic()
            # The hook's session is new to this workspace each time: the answer is the same.
            again = run(demo, *args, stdin=stdin.replace(b"k1", f"k{how[0]}".encode()))
            took = time.monotonic() - started
        finally:
            fake.kill()
            fake.communicate()
        assert (path.parent / (path.name + ".asked")).read_text() == "asked\n"
        (path.parent / (path.name + ".asked")).unlink()
        if args[0] == "hook":
            again_json = json.loads(again.stdout)
            assert again_json == json.loads(expected.stdout) and again.status == 0
        else:
            assert again == expected
        if how == "stays silent":
            assert took >= channel.ACCEPT_WAIT


def test_a_workspace_too_deep_for_a_socket_s_path_is_served_through_proc(
    tmp_path: Path, demo: Path
) -> None:
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc on this system")
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.parent.mkdir()
    demo.rename(deep)
    assert len(os.fsencode(deep / ".wiki" / ".cache" / channel.SOCKET)) > channel.SUN_PATH
    alone = run(deep, "query", "retry", served=False)
    server = Serving(deep)
    assert run(deep, "query", "retry") == alone
    assert server.answered() == 1


def test_a_hook_starts_a_server_where_the_settings_ask_for_one(demo: Path) -> None:
    path = demo / ".wiki" / ".cache" / channel.SOCKET
    payload = json.dumps({"session_id": "d1"}).encode()
    assert run(demo, "hook", "claude-code", "session-start", stdin=payload).status == 0
    assert not path.exists()  # off by default
    config = demo / ".wiki" / "config.toml"
    write(config, config.read_text() + "\n[serve]\non_demand = true\nidle = 30\n")
    alone = run(demo, "hook", "claude-code", "session-start", stdin=payload)
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, "no server started"
        time.sleep(0.05)
    try:
        assert run(demo, "hook", "claude-code", "session-start", stdin=payload) == alone
    finally:
        assert run(demo, "serve", "--stop").status == 0
    assert not path.exists()


def test_the_program_is_named_as_click_names_it() -> None:
    assert _program("/usr/bin/skillwiki", None) == "skillwiki"
    assert _program("/x/skillwiki/__main__.py", "skillwiki") == "python -m skillwiki"
    assert _program("/x/skillwiki/cli.py", "skillwiki") == "python -m skillwiki.cli"


def test_a_terminal_is_never_served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(channel.OFF_ENV, raising=False)
    monkeypatch.setattr(os, "isatty", lambda descriptor: descriptor == 1)
    assert not channel.servable()
    monkeypatch.setattr(os, "isatty", lambda descriptor: False)
    monkeypatch.setattr(sys, "stdin", sys.__stdin__)
    assert channel.servable()
    monkeypatch.setenv(channel.OFF_ENV, "1")
    assert not channel.servable()


@pytest.mark.parametrize(
    ("args", "found"),
    [
        (["query", "x", "-w", "A"], "A"),
        (["-wA", "query", "x"], "A"),
        (["--workspace=A", "query", "-w", "B", "x"], "B"),
        (["query", "--", "-w"], None),
    ],
)
def test_the_client_finds_the_workspace_an_option_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], found: str | None
) -> None:
    for name in ("A", "B"):
        (tmp_path / name / ".wiki").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKILLWIKI_WORKSPACE", raising=False)
    expected = None if found is None else str(tmp_path / found)
    assert channel.workspace_root(args, "query") == expected


def test_a_server_runs_only_the_commands_it_is_asked_for() -> None:
    from skillwiki.cli.serve_cmd import Runner

    run_here = Runner()
    with pytest.raises(ValueError, match="not a command a server answers"):
        run_here(["ingest", "-"], "skillwiki", None)
    with pytest.raises(ValueError, match="not a command a server answers"):
        run_here(["serve", "--stop"], "skillwiki", None)


def test_clients_at_once_are_each_answered_in_turn(served: Serving) -> None:
    alone = run(served.root, "query", "retry", "--json", served=False)
    environ = {**os.environ, "SKILLWIKI_NOW": NOW, "SKILLWIKI_SEMANTIC": "0"}
    environ.pop(channel.OFF_ENV, None)
    clients = [
        subprocess.Popen(
            [*CLI, "query", "retry", "--json"],
            cwd=served.root,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for client in clients:
        out, err = client.communicate(timeout=60)
        assert Ran(client.returncode, out, err) == alone
    assert served.answered() == 4


@pytest.mark.parametrize("idle", ["nan", "inf", "-1", "soon"])
def test_an_idle_time_that_is_no_time_is_one_error_line(demo: Path, idle: str) -> None:
    refused = run(demo, "serve", "--idle", idle)
    assert refused.status == 2
    assert refused.stderr.decode().startswith("Error: ")
    assert len(refused.stderr.splitlines()) == 1
    assert not (demo / ".wiki" / ".cache" / channel.SOCKET).exists()


def _imported(root: Path, *args: str, stdin: bytes = b"") -> set[str]:
    """The modules a client imports (`python -X importtime`), beyond the interpreter's own."""
    environ = {**os.environ, "SKILLWIKI_NOW": NOW, "SKILLWIKI_SEMANTIC": "0"}
    environ.pop(channel.OFF_ENV, None)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "skillwiki", *args],
        input=stdin,
        capture_output=True,
        cwd=root,
        env=environ,
        timeout=60,
        check=False,
    )
    lines = done.stderr.decode().splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_a_served_client_imports_nothing_it_does_not_use_before_asking(served: Serving) -> None:
    """Beyond what `--version` imports, a client answered by a server imports the channel and
    the interpreter's socket module, and a hook its time budget: no Typer, no signal.py and
    the enum module it pulls in."""
    version = _imported(served.root, "--version")
    query = _imported(served.root, "query", "retry") - version
    assert query <= {"gc", "_socket", "skillwiki.channel"}, query
    hook = _imported(served.root, "hook", "claude-code", "stop", stdin=b'{"session_id": "i"}')
    assert hook - version <= query | {"skillwiki.cli.budget"}, hook - version
    assert served.answered() == 2
