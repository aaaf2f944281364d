"""The socket a kept-open workspace (`skillwiki serve`) answers the command line on, and the
client that asks it, before the CLI framework or anything else of skillwiki is imported.

One server per workspace listens on `.wiki/.cache/serve.sock` (mode 0600). A read command
(SERVED) whose output goes to no terminal sends the server what its answer depends on: its
arguments, working directory, environment, how its streams encode, and for `hook` its stdin.
The server runs the very command in its own process on the workspace it keeps open and sends
back the exit status and what the command wrote, in the order it wrote it; the client writes
that and exits. Anything else (no server, a stale socket, a server of another version, one
that ends or stays silent mid-answer) leaves the client to do the work itself, having written
nothing. A terminal is never served: what is written to one depends on that terminal.

A socket's path is at most SUN_PATH bytes. A deeper workspace's socket is reached through its
folder's descriptor, `/proc/self/fd/N/serve.sock` (Linux); where there is no /proc it has no
server. The protocol (PROTOCOL) is versioned, and a server answers only a client of its own
skillwiki version: a server left running across an upgrade is never asked to answer for other
code.

Each message is frames: a 4-byte big-endian length, then that many bytes. The request is a
frame of its fields, then the stdin frame. The answer is one byte (ACCEPTED, or REFUSED for
another version), then, once the command ran, a frame of the exit status and the streams'
writes as `[stream, length]` pairs, and one frame of their bytes. Values are in marshal's
format 4 (the interpreter's own: no module to import).
"""

from __future__ import annotations

import _socket
import io
import marshal
import os
import sys

# Only modules the interpreter holds already are imported here (not typing, json, struct or
# socket.py): the client's imports are most of what a served command costs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

PROTOCOL = 1
SERVED = frozenset({"query", "status", "show", "recall", "hook"})
SOCKET = "serve.sock"
LOCK = "serve.lock"  # held by the server while it runs; holds its process id
SUN_PATH = 107  # bytes of a socket's path, at most (Linux: 108 with the closing NUL)
ACCEPTED = b"+"
REFUSED = b"-"
# How long a client waits for the server to take its request, then for the answer (a hook's
# own time budget ends it sooner); OFF_ENV=1 turns the client off.
ACCEPT_WAIT = 1.0
ANSWER_WAIT = 600.0
OFF_ENV = "SKILLWIKI_NO_SERVER"
_MOST = 1 << 31  # a frame longer than this is no frame of this protocol


class Unanswered(Exception):
    """No answer came: the client does the work itself."""


def cache_folder(root: str) -> str:
    """The folder of a workspace's socket and lock: `.wiki/.cache/` of `root`."""
    return os.path.join(root, ".wiki", ".cache")


def address(folder: str, name: str = SOCKET) -> tuple[str, int | None]:
    """The path to bind or connect the socket `name` of `folder` by: the path itself when it
    fits in SUN_PATH bytes, else through the folder's descriptor under /proc/self/fd, which
    the caller closes once bound or connected (the second item). Unanswered if neither can
    be."""
    path = os.path.join(folder, name)
    if len(os.fsencode(path)) <= SUN_PATH:
        return path, None
    if not os.path.isdir("/proc/self/fd"):
        raise Unanswered(f"the socket's path is over {SUN_PATH} bytes and there is no /proc")
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise Unanswered(str(exc)) from None
    return f"/proc/self/fd/{descriptor}/{name}", descriptor


def encode(value: Any) -> bytes:
    """A message's value (dicts, lists, strings, numbers, None) as bytes."""
    return marshal.dumps(value, 4)


def decode(data: bytes) -> dict[str, Any]:
    """A message's value; Unanswered if it is no dict."""
    value = marshal.loads(data)
    if not isinstance(value, dict):
        raise Unanswered("a message that is no dict")
    return value


def frame(data: bytes) -> bytes:
    """`data` as one frame."""
    return len(data).to_bytes(4, "big") + data


def receive(connection: _socket.socket, size: int) -> bytes:
    """Exactly `size` bytes; Unanswered if the other end closes first."""
    chunks = []
    while size:
        chunk = connection.recv(min(size, 1 << 20))
        if not chunk:
            raise Unanswered("the connection closed mid-message")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive_frame(connection: _socket.socket) -> bytes:
    """One frame's bytes."""
    size = int.from_bytes(receive(connection, 4), "big")
    if size > _MOST:
        raise Unanswered("a frame longer than the protocol allows")
    return receive(connection, size)


def version() -> str:
    """This skillwiki's version, which a server must share to answer."""
    from skillwiki import __version__

    return __version__


def workspace_root(args: Sequence[str], command: str) -> str | None:
    """The workspace the arguments most likely name, as the command would find it: `-w`,
    SKILLWIKI_WORKSPACE, for a Claude Code hook CLAUDE_PROJECT_DIR, else the nearest folder
    holding `.wiki/` at or above the working directory. A guess only: the server finds the
    workspace again from the request, as the command does."""
    explicit = _option(args, "-w", "--workspace") or os.environ.get("SKILLWIKI_WORKSPACE")
    if explicit:
        root = os.path.abspath(os.path.expanduser(explicit))
        return root if os.path.isdir(os.path.join(root, ".wiki")) else None
    start = None
    if command == "hook" and "claude-code" in args:
        start = os.environ.get("CLAUDE_PROJECT_DIR")
    here = os.path.abspath(start or os.getcwd())
    while True:
        if os.path.isdir(os.path.join(here, ".wiki")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _option(args: Sequence[str], short: str, long: str) -> str | None:
    """The last value given to an option (`-w X`, `-wX`, `--workspace X`, `--workspace=X`)."""
    found = None
    position = 0
    while position < len(args):
        arg = args[position]
        if arg == "--":
            break
        if arg in (short, long) and position + 1 < len(args):
            found = args[position + 1]
            position += 1
        elif arg.startswith(long + "="):
            found = arg[len(long) + 1 :]
        elif arg.startswith(short) and not arg.startswith("--") and len(arg) > len(short):
            found = arg[len(short) :]
        position += 1
    return found


def servable() -> bool:
    """Whether this process may be answered by a server: turned on, and no standard stream a
    terminal or closed (a terminal's width and colours shape what is written to it)."""
    if os.environ.get(OFF_ENV) == "1":
        return False
    if sys.stdin is None or sys.stdout is None or sys.stderr is None:
        return False
    try:
        for descriptor in (0, 1, 2):
            os.fstat(descriptor)  # a stream closed by the caller (`>&-`): OSError
        return not any(os.isatty(descriptor) for descriptor in (0, 1, 2))
    except OSError:
        return False


def request(args: Sequence[str], stdin: bytes) -> bytes:
    """The request for running `args` as this process would: everything its answer depends
    on besides the files."""
    main = sys.modules.get("__main__")
    header = {
        "protocol": PROTOCOL,
        "version": version(),
        "argv0": sys.argv[0] if sys.argv else "skillwiki",
        "main_package": getattr(main, "__package__", None),
        "args": list(args),
        "cwd": os.getcwd(),
        "umask": _umask(),
        "env": dict(os.environ),
        "streams": {
            "stdin": [sys.stdin.encoding, sys.stdin.errors],
            "stdout": _form(sys.stdout),
            "stderr": _form(sys.stderr),
        },
        "stdout_buffer": _buffer_size(1),
    }
    return frame(encode(header)) + frame(stdin)


def _umask() -> int:
    """This process's umask (the files a command makes get their modes from it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _form(stream: Any) -> list[Any]:
    """How a standard stream encodes and buffers what is written to it."""
    return [stream.encoding, stream.errors, stream.line_buffering, stream.write_through]


def _buffer_size(descriptor: int) -> int:
    """The buffer Python gives a stream on `descriptor` (io.open's choice)."""
    try:
        size = os.fstat(descriptor).st_blksize
    except OSError:
        size = 0
    return size if size > 1 else 8192


def ask(args: Sequence[str], command: str) -> int | None:
    """Have the workspace's server run `args` and write its answer; the exit status, or None
    when no server answered: then nothing was written, and a hook's stdin, read to be sent,
    is put back as sys.stdin for the command to read (a closed or unreadable stdin: None,
    and the command meets it as it is)."""
    if command not in SERVED or not servable():
        return None
    root = workspace_root(args, command)
    if root is None or not os.path.exists(os.path.join(cache_folder(root), SOCKET)):
        return None
    # A hook's payload is read first: a client that writes it slowly keeps no server waiting.
    try:
        sent = [sys.stdin.buffer.read()] if command == "hook" else []
    except (OSError, ValueError, AttributeError):  # the command meets it as it is
        return None
    try:
        path, descriptor = address(cache_folder(root))
        connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            connection.settimeout(ACCEPT_WAIT)
            try:
                connection.connect(path)
            finally:
                if descriptor is not None:
                    os.close(descriptor)
            return _exchange(connection, args, sent)
        finally:
            connection.close()
    except (Unanswered, OSError, ValueError, KeyError, TypeError, EOFError):
        if sent:
            sys.stdin = io.TextIOWrapper(
                io.BytesIO(sent[0]), encoding=sys.stdin.encoding, errors=sys.stdin.errors
            )
        return None


def _exchange(connection: _socket.socket, args: Sequence[str], sent: list[bytes]) -> int:
    """Send the request (with the stdin read for it, if any) and write the answer; its exit
    status. Unanswered if the server refused it."""
    connection.sendall(request(args, sent[0] if sent else b""))
    if receive(connection, 1) != ACCEPTED:
        raise Unanswered("refused: another version")
    connection.settimeout(ANSWER_WAIT)
    header = decode(receive_frame(connection))
    written = receive_frame(connection)
    status = int(header["status"])
    writes = [(int(descriptor), int(size)) for descriptor, size in header["writes"]]
    if any(descriptor not in (1, 2) for descriptor, _ in writes):
        raise Unanswered("an answer for streams other than stdout and stderr")
    try:
        _replay(writes, written)
    except OSError:  # the reader went away: what was written stands, as in the command's end
        return status or 1
    return status


def _replay(writes: Sequence[tuple[int, int]], written: bytes) -> None:
    """Write the answer's bytes to stdout (1) and stderr (2) in the order the command did."""
    position = 0
    for descriptor, size in writes:
        chunk = written[position : position + size]
        position += size
        while chunk:
            chunk = chunk[os.write(descriptor, chunk) :]
