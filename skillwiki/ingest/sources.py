"""What an ingest takes: the files named, the files of the folders named that are of the kinds
asked for, or stdin; each named for its raw copy, and read only when it is needed."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from skillwiki import gitignore
from skillwiki.compiler.article import TEXT_SUFFIXES
from skillwiki.config import Config
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import check_size, decode
from skillwiki.names import check_component, check_relative
from skillwiki.workspace import PARSED_SUFFIXES, WIKI_DIR, Workspace

STDIN = "-"
STDIN_ORIGIN = "stdin"
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
# A folder that holds this file is a Python virtual environment (PEP 405): installed packages,
# never notes, however it is named (`venv/`, `env/`, `.tox/py311/`).
VENV_MARKER = "pyvenv.cfg"
# What a folder gives by default: Markdown and the plain-text kinds documentation is written
# in. Data and code beside the pages (Starlight's `.json` sidebars, examples, configuration)
# would show in search results as if they were pages: they come only when asked for (`Kinds`).
DOC_SUFFIXES = PARSED_SUFFIXES | frozenset({".txt", ".text", ".rst", ".adoc", ".org"})


@dataclass(frozen=True)
class Kinds:
    """Which files of a folder to take besides Markdown and plain text: those whose name, or
    path below the folder named, matches one of `include` (shell patterns, case as written),
    and with `all_text` every kind compile writes a fenced article of (code, data, config).
    A file named alone is taken whatever its kind."""

    include: tuple[str, ...] = ()
    all_text: bool = False

    def take(self, name: str, below: str) -> bool:
        """Whether the file `name`, at `below` under the folder named, is taken."""
        suffix = PurePosixPath(name).suffix.lower()
        if suffix in DOC_SUFFIXES or (self.all_text and suffix in TEXT_SUFFIXES):
            return True
        return any(fnmatchcase(name, glob) or fnmatchcase(below, glob) for glob in self.include)


@dataclass(frozen=True)
class Source:
    """One file to ingest: where it came from, the raw path it mirrors to (before any
    collision suffix), and where to read it: `path`, or `data` (stdin's bytes)."""

    origin: str
    name: str
    shown: str  # how to name it in messages
    path: Path | None = None
    data: bytes = b""
    in_folder: bool = False  # found in a folder named: refused alone, the rest go on


@dataclass(frozen=True)
class Ingested:
    origin: str
    raw: str  # relative to raw/
    changed: bool


@dataclass(frozen=True)
class Refused:
    """A file of a folder that could not be ingested, and why."""

    path: str
    reason: str


@dataclass
class IngestResult:
    files: list[Ingested] = field(default_factory=list)
    skipped: int = 0  # files of folders not of the kinds taken
    empty: int = 0  # files of folders with nothing in them (`__init__.py`), left out
    environments: list[str] = field(default_factory=list)  # virtual environments left out
    ignored: int = 0  # files and folders of folders that .gitignore leaves out
    # files and folders of folders whose names start with '.' (`.github/`, tldr's `..md`),
    # left out: no name in .wiki/ may be hidden
    hidden: int = 0
    refused: list[Refused] = field(default_factory=list)  # files of folders, each with its reason


def load(config: Config, source: Source) -> tuple[bytes, str]:
    """Read a source's bytes and decode them, or raise InputError saying why it cannot be."""
    if source.path is None:
        return source.data, decode(source.data, source.shown, config.max_file_bytes)
    try:
        check_size(source.path.stat().st_size, source.shown, config.max_file_bytes)
        data = source.path.read_bytes()
    except PermissionError:
        raise InputError(source.shown, "cannot be read (permission denied)") from None
    except OSError as exc:
        raise InputError(source.shown, f"cannot be read ({exc.strerror or exc})") from None
    return data, decode(data, source.shown, config.max_file_bytes)


def stdin_source(data: bytes | None, name: str | None) -> Source:
    if not name:
        raise InputError(None, "reading from stdin ('-') needs --name FILE.md to name the note")
    check_relative(name, "--name")
    return Source(STDIN_ORIGIN, name, "stdin", data=data or b"")


def unique(sources: list[Source]) -> list[Source]:
    seen: dict[tuple[str, str], Source] = {}
    for source in sources:
        seen.setdefault((source.origin, source.name), source)
    return list(seen.values())


def collect(ws: Workspace, given: Path, kinds: Kinds, result: IngestResult) -> list[Source]:
    """The sources of a path named: the file, or the files of the folder that `kinds` takes;
    what the folder leaves out is counted in `result`."""
    path = Path(os.path.abspath(given))
    if not path.is_symlink() and not path.exists():
        raise InputError(given, "no such file or directory")
    root = os.path.realpath(ws.root)
    if _inside(path, ws.root):  # every step of the path, links or not, stays in the repository
        _check_link(path, given, Path(root), Path(root))
    elif path.is_symlink():  # a link named outside the repository, as one found in a folder
        _check_link(path, given, Path(root), Path(os.path.realpath(path.parent)))
    if not path.exists():
        raise InputError(given, "is a symbolic link to nothing; point it at a file")
    if ws.dot in (path, *path.parents):
        raise InputError(given, f"is inside {WIKI_DIR}/; ingest files from the repository instead")
    if path.is_dir():
        walk = _Walk(path, kinds, result, (Path(root), Path(os.path.realpath(path))))
        files = walk.files(path, gitignore.rules_for(path))
        return [_source(ws, file, file, in_folder=True) for file in files]
    if not path.is_file():
        raise InputError(given, "is not a regular file")
    return [_source(ws, path, given, in_folder=False)]


@dataclass(frozen=True)
class _Walk:
    """The walk of one folder named: `within` is where its linked files may lead (the
    repository, or the folder named), wherever that folder is."""

    top: Path
    kinds: Kinds
    result: IngestResult
    within: tuple[Path, Path]

    def files(self, folder: Path, rules: gitignore.Rules | None) -> list[Path]:
        """The files of `folder` to ingest: of a kind taken, not hidden, not in node_modules/
        or a virtual environment, not what git ignores (`rules`; unless that is the folder
        named). What is left out is counted in `result` (node_modules/ and __pycache__/ are
        not). A file that is a symbolic link must lead into `within`; a linked folder is not
        followed."""
        found: list[Path] = []
        result = self.result
        for entry in sorted(os.scandir(folder), key=lambda item: item.name):
            path = Path(entry.path)
            if entry.name.startswith("."):
                result.hidden += 1
                continue
            if entry.name in SKIPPED_DIRS:
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if rules is not None and rules.ignores(path, is_dir):
                result.ignored += 1
                continue
            if is_dir:
                if os.path.isfile(os.path.join(entry.path, VENV_MARKER)):
                    result.environments.append(entry.path)
                    continue
                found.extend(self.files(path, rules and rules.below(path)))
            elif self._takes(entry) and entry.is_file():
                if entry.is_symlink():
                    _check_link(path, path, *self.within)
                found.append(path)
            else:
                result.skipped += 1
        return found

    def _takes(self, entry: os.DirEntry[str]) -> bool:
        below = Path(entry.path).relative_to(self.top).as_posix()
        return self.kinds.take(entry.name, below)


def _check_link(path: Path, given: Path, root: Path, folder: Path) -> None:
    """Refuse `path` unless it resolves inside the repository (`root`) or `folder` (the
    folder ingested, or the one a named link is in), both as resolved: the same rule for a
    folder inside the repository and one outside it, so that no link copies a file from
    anywhere else (a credentials file, /etc/hostname) into the wiki."""
    try:
        real = path.resolve(strict=True)
    except RuntimeError:  # Python 3.11: "Symlink loop"
        raise InputError(given, "is a symbolic link loop; point the link at a file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(given, "is a symbolic link loop; point the link at a file") from None
        raise InputError(given, "is a symbolic link to nothing; point it at a file") from None
    if not (_inside(real, root) or _inside(real, folder)):
        where = "the workspace" if _inside(folder, root) else f"{folder} and the workspace"
        raise InputError(
            given, f"is a symbolic link to {real}, outside {where}; copy the file instead"
        )


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _source(ws: Workspace, path: Path, given: Path, *, in_folder: bool) -> Source:
    if _inside(path, ws.root):
        origin = ws.rel(path)
        return Source(origin, origin, str(given), path, in_folder=in_folder)
    return Source(path.as_posix(), path.name, str(given), path, in_folder=in_folder)


def check_name(source: Source) -> None:
    """Refuse a file whose raw path could not be a file's name everywhere (checked once the
    file is read: what is wrong with its content is told first)."""
    if source.path is None:
        return  # stdin's --name is checked as it is given
    if source.origin == source.name:
        check_relative(source.name, source.shown)
    else:
        check_component(source.name, source.shown)
