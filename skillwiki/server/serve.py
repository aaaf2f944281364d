"""`skillwiki serve`: a workspace kept open for the command line, on a unix socket.

One server per workspace: it holds `.wiki/.cache/serve.lock` (an flock, with its process id)
while it runs, so a second one is refused and a socket left by a server that was killed is
known to be stale and replaced. The socket (skillwiki.channel) is made with mode 0600 and
removed when the server ends: on SIGTERM, SIGINT, `skillwiki serve --stop`, or after `idle`
seconds without a request.

A request is run as the client would run it (`as_the_caller`): its arguments, working
directory, environment and stdin, its streams encoded and buffered as the client's are, and
written down in the order the command writes them. The command is the command line's own
(`run`, handed over by skillwiki.cli, which this layer never imports), so the answer is its
answer; the difference is how the workspace is brought up to date: a read of the workspace
this server keeps open takes it from the LiveWorkspace (live.py), whose watcher says what
changed since the last look, instead of a stat of every raw file. The kernel queues a change
during the write that makes it, so a file saved before the request was sent is looked at.

Requests are taken on a thread of their own (each client told at once that its request waits
its turn) and answered one at a time on the main thread: the working directory and the
environment belong to the process. For that reason the workspace does not follow changes on
a thread of its own (`follow`): every look is made inside a request, with that request's
environment, as the command line's own would be. The server's own standard streams lead to
/dev/null while it serves: a command must not find a terminal there (help and error text are
laid out for the terminal a process has).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import math
import os
import queue
import select
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from skillwiki import channel, fsio
from skillwiki.errors import InputError
from skillwiki.server.live import LiveWorkspace, Reading, WorkspaceLookup

if TYPE_CHECKING:
    from skillwiki.compiler import Plan
    from skillwiki.config import Config
    from skillwiki.workspace import Workspace

# The command line, run in this process: (arguments, argv[0], __main__'s package) -> status.
Run = Callable[[list[str], str, str | None], int]
REQUEST_WAIT = 2.0  # seconds a client has to send its whole request
# How often a server with nothing to do checks that its socket is still where clients look
# (`.wiki/.cache/` is disposable: a server whose socket was deleted could never be reached).
REACHABLE_CHECK = 5.0
STOP_WAIT = 10.0  # seconds `--stop` waits for the server to end


class Stopped(BaseException):
    """SIGTERM: end the server as Ctrl-C does."""


@dataclass
class Server:
    """A workspace kept open, answering the command line on its socket."""

    root: Path
    run: Run
    live: LiveWorkspace = field(init=False)
    answered: int = 0
    socket_id: tuple[int, int] | None = None  # the socket it listens on, as found on disk

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.live = LiveWorkspace(WorkspaceLookup(self.root))

    def kept(self, root: Path) -> Reading | None:
        """The workspace at `root` brought up to date, if it is the one kept open."""
        if root.resolve() != self.root:
            return None
        with self.live.reading() as read:
            return read

    def planned(self, ws: Workspace, config: Config) -> Plan | None:
        """The plan of the workspace kept open, as its watcher knows it (`status`'s)."""
        if ws.root.resolve() != self.root:
            return None
        return self.live.plan(ws, config)

    def take(self, connection: socket.socket) -> tuple[dict[str, Any], bytes] | None:
        """Read one request and tell its client it is taken (ACCEPTED: it waits for the
        answer, however many are before it), or refused (another version: None)."""
        connection.settimeout(REQUEST_WAIT)
        header = channel.decode(channel.receive_frame(connection))
        stdin = channel.receive_frame(connection)
        if header.get("protocol") != channel.PROTOCOL or header.get("version") != (
            channel.version()
        ):
            connection.sendall(channel.REFUSED)
            return None
        connection.sendall(channel.ACCEPTED)
        return header, stdin

    def answer(self, connection: socket.socket, header: dict[str, Any], stdin: bytes) -> None:
        """Run a request taken and send its answer; one that cannot be run as its client would
        run it gets no answer (its client then runs it itself)."""
        connection.settimeout(None)
        with as_the_caller(header, stdin) as written:
            status = self._run(header)
        writes, data = written.take()
        answer = channel.encode({"status": status, "writes": writes})
        self.answered += 1
        connection.sendall(channel.frame(answer) + channel.frame(data))

    def _run(self, header: dict[str, Any]) -> int:
        """The command's exit status, run with the kept workspace as the one its reads open."""
        from skillwiki.api.kept import keeper

        token = keeper.set(self)
        try:
            return self.run(list(header["args"]), str(header["argv0"]), header["main_package"])
        finally:
            keeper.reset(token)


class Written:
    """What a command writes to stdout (1) and stderr (2), in the order it reaches them."""

    def __init__(self) -> None:
        self._chunks: list[tuple[int, bytes]] = []

    def stream(self, descriptor: int) -> io.RawIOBase:
        """The raw end of stream `descriptor`, which notes each write it receives."""
        chunks = self._chunks

        class Noted(io.RawIOBase):
            def writable(self) -> bool:
                return True

            def write(self, data: Any) -> int:
                chunks.append((descriptor, bytes(data)))
                return len(data)

        return Noted()

    def take(self) -> tuple[list[tuple[int, int]], bytes]:
        """The writes, as (stream, length), and their bytes joined."""
        writes = [(descriptor, len(data)) for descriptor, data in self._chunks if data]
        return writes, b"".join(data for _, data in self._chunks)


@contextlib.contextmanager
def as_the_caller(header: dict[str, Any], stdin: bytes) -> Iterator[Written]:
    """This process made to look like the client for the time of one command: its working
    directory, environment, umask, argv and standard streams (encoded, buffered and
    line-buffered as the client's); everything put back after."""
    saved = (dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr)
    written = Written()
    streams = header["streams"]
    mask = os.umask(int(header["umask"]))
    # A warning shown once a place is shown again to each client, as each process shows it.
    warned = warnings.catch_warnings()
    warned.__enter__()
    try:
        os.chdir(header["cwd"])
        os.environ.clear()
        os.environ.update(header["env"])
        sys.argv = [header["argv0"], *header["args"]]
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), *streams["stdin"])
        sys.stdout = _writer(written, 1, streams["stdout"], int(header["stdout_buffer"]))
        sys.stderr = _writer(written, 2, streams["stderr"], io.DEFAULT_BUFFER_SIZE)
        yield written
        for stream in (sys.stdout, sys.stderr):  # as the process's end flushes them
            with contextlib.suppress(ValueError):
                stream.flush()
    finally:
        os.environ.clear()
        os.environ.update(saved[0])
        os.chdir(saved[1])
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved[2:]
        warned.__exit__(None, None, None)
        os.umask(mask)


def _writer(written: Written, descriptor: int, form: list[Any], size: int) -> io.TextIOWrapper:
    """A text stream as the client's: its encoding and errors, line-buffered and written
    through as it is (`form`: [encoding, errors, line_buffering, write_through])."""
    encoding, errors, line_buffering, write_through = form
    buffered = io.BufferedWriter(written.stream(descriptor), buffer_size=max(size, 1))
    return io.TextIOWrapper(
        buffered,
        encoding,
        errors,
        newline="\n",
        line_buffering=bool(line_buffering),
        write_through=bool(write_through),
    )


def serve(server: Server, *, idle: float, say: Callable[[str], None]) -> None:
    """Answer requests until stopped (SIGTERM, SIGINT, `--stop`) or `idle` seconds pass
    without one (0: never); InputError if another server answers for the workspace."""
    folder = channel.cache_folder(str(server.root))
    fsio.make_dirs(Path(folder))
    lock = _hold_lock(folder)
    listener: socket.socket | None = None
    try:
        with _stopped_by_sigterm():
            listener = _listen(folder)
            server.socket_id = _socket_id(folder)
            say(
                f"skillwiki serve: answering for {server.root} (pid {os.getpid()}); "
                "stop with Ctrl-C, SIGTERM or `skillwiki serve --stop`"
            )
            with _quiet_streams():
                _loop(server, listener, idle, say)
    except (Stopped, KeyboardInterrupt):
        pass
    finally:
        if listener is not None:
            _CLOSED_IN_CHILD.discard(listener.fileno())
            listener.close()
            if _socket_id(folder) == server.socket_id:  # not another server's, made since
                fsio.remove_file(Path(folder, channel.SOCKET))
        server.live.close()
        _CLOSED_IN_CHILD.discard(lock)
        os.close(lock)
    say(f"skillwiki serve: ended after {server.answered} answer(s)")


def _loop(server: Server, listener: socket.socket, idle: float, say: Callable[[str], None]) -> None:
    """Answer the requests a thread of their own takes (so that a client whose request waits
    behind others knows it is taken), one after another on this thread, which the working
    directory and the environment belong to; end once `idle` seconds pass without one, or
    once its socket is no longer where clients look for it. A request that could not be
    answered is said (its client answers it itself)."""
    taken: queue.Queue[tuple[socket.socket, dict[str, Any], bytes]] = queue.Queue()
    threading.Thread(
        target=_take, args=(server, listener, taken, say), name="skillwiki-take", daemon=True
    ).start()
    folder = channel.cache_folder(str(server.root))
    last = time.monotonic()
    while True:
        left = math.inf if idle <= 0 else last + idle - time.monotonic()
        try:
            connection, header, stdin = taken.get(timeout=max(0.0, min(left, REACHABLE_CHECK)))
        except queue.Empty:
            if left <= REACHABLE_CHECK:
                return
            if _socket_id(folder) != server.socket_id:
                say("skillwiki serve: its socket is gone or replaced; no client can reach it")
                return
            continue
        with connection:
            try:
                server.answer(connection, header, stdin)
            except Exception as exc:  # noqa: BLE001 - its client does the work itself
                say(f"skillwiki serve: a request was not answered: {type(exc).__name__}: {exc}")
        last = time.monotonic()


def _take(
    server: Server,
    listener: socket.socket,
    taken: queue.Queue[tuple[socket.socket, dict[str, Any], bytes]],
    say: Callable[[str], None],
) -> None:
    """Take each connection's request and queue it, until the listener is closed."""
    while True:
        try:
            select.select([listener], [], [])
            connection, _ = listener.accept()
        except BlockingIOError:
            continue
        except (OSError, ValueError):  # closed: the server ends
            return
        try:
            request = server.take(connection)
        except Exception as exc:  # noqa: BLE001 - its client does the work itself
            say(f"skillwiki serve: a request was not taken: {type(exc).__name__}: {exc}")
            request = None
        if request is None:
            connection.close()
        else:
            taken.put((connection, *request))


def _socket_id(folder: str) -> tuple[int, int] | None:
    """The device and inode of the socket at the socket's path; None when none is there."""
    try:
        found = os.stat(os.path.join(folder, channel.SOCKET))
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def _hold_lock(folder: str) -> int:
    """The server's lock, held (its process id written in it); InputError if another holds it."""
    path = Path(folder, channel.LOCK)
    descriptor = fsio.try_lock(path)
    if descriptor is None:
        holder = path.read_text(errors="replace").strip() or "unknown"
        raise InputError(
            None,
            f"a server already answers for {path.parent.parent.parent} (pid {holder}); "
            "stop it with `skillwiki serve --stop`",
        )
    _CLOSED_IN_CHILD.add(descriptor)
    return descriptor


def _listen(folder: str) -> socket.socket:
    """The socket, listening, with mode 0600: made under a name of its own, then renamed
    over whatever is at the socket's path (a socket left by a server that ended without
    removing it: the lock says none runs), so that a client finds a socket there only once
    it listens."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    made = f"{channel.SOCKET}.{os.getpid()}"
    try:
        fsio.remove_file(Path(folder, made))
        path, descriptor = channel.address(folder, made)
        mask = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(mask)
            if descriptor is not None:
                os.close(descriptor)
        os.chmod(os.path.join(folder, made), 0o600)
        listener.listen(64)
        listener.setblocking(False)
        fsio.move(Path(folder, made), Path(folder, channel.SOCKET))
    except channel.Unanswered as exc:
        listener.close()
        raise InputError(None, f"cannot make the server's socket: {exc}") from None
    except OSError as exc:
        listener.close()
        raise InputError(folder, f"cannot make the server's socket ({exc.strerror})") from None
    _CLOSED_IN_CHILD.add(listener.fileno())
    return listener


@contextlib.contextmanager
def _quiet_streams() -> Iterator[None]:
    """Descriptors 0, 1 and 2 on /dev/null while serving; put back after."""
    saved = [os.dup(descriptor) for descriptor in (0, 1, 2)]
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for descriptor in (0, 1, 2):
            os.dup2(null, descriptor)
        yield
    finally:
        for descriptor, copy in enumerate(saved):
            os.dup2(copy, descriptor)
            os.close(copy)
        os.close(null)


@contextlib.contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM raises Stopped while serving."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop(root: Path) -> str:
    """End the server of the workspace at `root`, if one runs (SIGTERM to the process that
    holds its lock), and wait until it has; what happened, in words."""
    path = os.path.join(channel.cache_folder(str(root)), channel.LOCK)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return f"no server answers for {root}"
    try:
        if _free(descriptor):
            return f"no server answers for {root}"
        holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip()
        if not holder.isdigit():
            raise InputError(path, "holds no process id; cannot tell which server to stop")
        os.kill(int(holder), signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT
        while not _free(descriptor):
            if time.monotonic() >= deadline:
                raise InputError(None, f"the server (pid {holder}) did not end in {STOP_WAIT:g}s")
            time.sleep(0.02)
        return f"stopped the server of {root} (pid {holder})"
    finally:
        os.close(descriptor)


def _free(descriptor: int) -> bool:
    """Whether no server holds the lock open on `descriptor` (taken and let go at once)."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    fcntl.flock(descriptor, fcntl.LOCK_UN)
    return True


# The server's lock and socket: a worker process a compile forks must not hold them on.
_CLOSED_IN_CHILD: set[int] = set()


def _close_in_child() -> None:
    for descriptor in _CLOSED_IN_CHILD:
        with contextlib.suppress(OSError):
            os.close(descriptor)
    _CLOSED_IN_CHILD.clear()


os.register_at_fork(after_in_child=_close_in_child)
