"""Copy files, folders or stdin into raw/, mirroring repo paths and recording their origin."""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from skillwiki import fsio, gitignore, statcache
from skillwiki.compiler.article import TEXT_SUFFIXES
from skillwiki.config import Config
from skillwiki.errors import EmptyNote, InputError
from skillwiki.fingerprint import expect
from skillwiki.frontmatter.documents import check_note, check_size, decode, join, split
from skillwiki.memory.store import LESSONS_DIR
from skillwiki.names import check_component, check_relative, folded
from skillwiki.workspace import PARSED_SUFFIXES, WIKI_DIR, Workspace, article_rel

STDIN = "-"
STDIN_ORIGIN = "stdin"
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
# A folder that holds this file is a Python virtual environment (PEP 405): installed packages,
# never notes, however it is named (`venv/`, `env/`, `.tox/py311/`).
VENV_MARKER = "pyvenv.cfg"


@dataclass(frozen=True)
class Source:
    """One file to ingest: where it came from and its decoded text."""

    origin: str
    name: str  # the raw-relative path it mirrors to, before any collision suffix
    text: str
    shown: str  # how to name it in messages


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
    skipped: int = 0
    empty: int = 0  # files of folders with nothing in them (`__init__.py`), left out
    environments: list[str] = field(default_factory=list)  # virtual environments left out
    ignored: int = 0  # files and folders of folders that .gitignore leaves out
    # files and folders of folders whose names start with '.' (`.github/`, tldr's `..md`),
    # left out: no name in .wiki/ may be hidden
    hidden: int = 0
    refused: list[Refused] = field(default_factory=list)  # files of folders, each with its reason


@dataclass(frozen=True)
class Overrides:
    title: str | None = None
    summary: str | None = None
    tags: tuple[str, ...] = ()


def ingest(
    ws: Workspace,
    config: Config,
    paths: Sequence[str],
    *,
    stdin: bytes | None = None,
    name: str | None = None,
    overrides: Overrides = Overrides(),
    expected: str | None = None,
) -> IngestResult:
    """Validate every input first, then copy them into raw/ under the workspace lock."""
    result = IngestResult()
    sources: list[tuple[Source, bool]] = []  # and whether it came from a folder
    for given in paths:
        if given == STDIN:
            sources.append((_stdin_source(config, stdin, name), False))
        else:
            sources.extend(_collect(ws, config, Path(given), result))
    texts = _raw_texts(config, _unique(sources), overrides, result)
    if expected is not None and len(texts) != 1:
        raise InputError(None, "--expect-fingerprint goes with a single file to ingest")
    with fsio.workspace_lock(ws, config.lock_timeout):
        tree = _RawTree.listed(ws)
        targets = [_target(ws, source, tree) for source, _ in texts]
        for rel in targets if expected is not None else ():
            expect(ws.raw / rel, expected, f".wiki/raw/{rel}")

        def log(will_write: list[bool]) -> None:
            # Logged before the files are put in place: a kill between the two leaves a
            # log line whose file did not arrive (its temp is swept), never a file unlogged.
            lines = [
                f"{source.origin} -> raw/{rel}"
                for (source, _), rel, written in zip(texts, targets, will_write, strict=True)
                if written
            ]
            if lines:
                fsio.append_log(ws, "ingest", *lines)

        changed = fsio.write_many(
            [(ws.raw / rel, text.encode()) for (_, text), rel in zip(texts, targets, strict=True)],
            before_rename=log,
        )
        for (source, _), rel, written in zip(texts, targets, changed, strict=True):
            result.files.append(Ingested(source.origin, rel, written))
    return result


def _raw_texts(
    config: Config,
    sources: list[tuple[Source, bool]],
    overrides: Overrides,
    result: IngestResult,
) -> list[tuple[Source, str]]:
    """Each source's raw text; a file of a folder that cannot be one is refused, not fatal, and
    one with nothing in it (a package's `__init__.py`) is left out and counted. A raw text
    that compile would refuse (its frontmatter added may take it over max_file_bytes) is
    refused here, before anything is written."""
    from skillwiki.compiler import refusal_of

    texts = []
    for source, in_folder in sources:
        try:
            text = _raw_text(source, overrides)
            problem = refusal_of(config, source.name, text.encode())
            if problem is not None:
                raise InputError(source.shown, f"compile would refuse it in .wiki/raw/: {problem}")
            texts.append((source, text))
        except EmptyNote:
            if not in_folder:
                raise
            result.empty += 1
        except InputError as exc:
            if not in_folder:
                raise
            result.refused.append(Refused(source.shown, exc.detail))
    return texts


def _unique(sources: list[tuple[Source, bool]]) -> list[tuple[Source, bool]]:
    seen: dict[tuple[str, str], tuple[Source, bool]] = {}
    for source, in_folder in sources:
        seen.setdefault((source.origin, source.name), (source, in_folder))
    return list(seen.values())


def _stdin_source(config: Config, data: bytes | None, name: str | None) -> Source:
    if not name:
        raise InputError(None, "reading from stdin ('-') needs --name FILE.md to name the note")
    check_relative(name, "--name")
    text = decode(data or b"", "stdin", config.max_file_bytes)
    return Source(STDIN_ORIGIN, name, text, "stdin")


def _collect(
    ws: Workspace, config: Config, given: Path, result: IngestResult
) -> list[tuple[Source, bool]]:
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
        found = []
        within = Path(root), Path(os.path.realpath(path))
        for file in _walk(ws, path, result, gitignore.rules_for(path), within):
            try:
                found.append((_read(ws, config, file, file), True))
            except InputError as exc:  # one odd file does not stop the folder
                result.refused.append(Refused(str(file), exc.detail))
        return found
    if not path.is_file():
        raise InputError(given, "is not a regular file")
    return [(_read(ws, config, path, given), False)]


def _walk(
    ws: Workspace,
    folder: Path,
    result: IngestResult,
    rules: gitignore.Rules | None,
    within: tuple[Path, Path],
) -> list[Path]:
    """The files of a folder to ingest: of a text kind, not hidden, not in node_modules/ or
    a virtual environment, not what git ignores (`rules`; unless that is the folder named).
    What is left out is counted in `result` (node_modules/ and __pycache__/ are not).
    A file that is a symbolic link must lead into `within` (the repository, or the folder
    named), wherever that folder is; a linked folder is not followed."""
    found: list[Path] = []
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
            found.extend(_walk(ws, path, result, rules and rules.below(path), within))
        elif PurePosixPath(entry.name).suffix.lower() in TEXT_SUFFIXES and entry.is_file():
            if entry.is_symlink():
                _check_link(path, path, *within)
            found.append(path)
        else:
            result.skipped += 1
    return found


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


def _read(ws: Workspace, config: Config, path: Path, given: Path) -> Source:
    check_size(path.stat().st_size, given, config.max_file_bytes)
    try:
        data = path.read_bytes()
    except PermissionError:
        raise InputError(given, "cannot be read (permission denied)") from None
    except OSError as exc:
        raise InputError(given, f"cannot be read ({exc.strerror or exc})") from None
    text = decode(data, given, config.max_file_bytes)
    if _inside(path, ws.root):
        origin = ws.rel(path)
        check_relative(origin, str(given))
        return Source(origin, origin, text, str(given))
    check_component(path.name, str(given))
    return Source(path.as_posix(), path.name, text, str(given))


def _raw_text(source: Source, overrides: Overrides) -> str:
    is_markdown = PurePosixPath(source.name).suffix.lower() in PARSED_SUFFIXES
    if is_markdown:
        document = split(source.text, source.shown)
        meta: dict[str, Any] = dict(document.meta)
        body = document.body
    else:
        meta, body = {}, source.text
    if overrides.title:
        meta["title"] = overrides.title
    if overrides.summary:
        meta["summary"] = overrides.summary
    if overrides.tags:
        meta["tags"] = list(overrides.tags)
    check_note(meta, body, source.shown)
    meta["origin"] = source.origin
    return join(meta, body)


def _target(ws: Workspace, source: Source, tree: _RawTree) -> str:
    """Return the raw path for `source`: its mirror, or a free name when that is taken (by
    another origin's note, or a name compile would not give an article beside the others).
    A repository file owns its mirror path: taken, it is an InputError, as is a path whose
    folders cannot be made (no free name helps there). Nothing is written before all are
    known."""
    where = "--name" if source.origin == STDIN_ORIGIN else source.shown
    blocked = tree.blocked(source.name)
    if blocked is not None:
        raise InputError(where, blocked)
    stem, suffix = _split_name(source.name)
    attempt = 1
    while True:
        rel = source.name if attempt == 1 else f"{stem}-{attempt}{suffix}"
        taken = tree.taken(ws, rel, source.origin)
        if taken is None:
            tree.claim(rel, source.origin)
            return rel
        if source.origin == source.name:  # a repo file owns its mirror path
            raise InputError(*taken)
        attempt += 1


@dataclass
class _RawTree:
    """The raw files as compile will list them once this ingest is written, by their names
    folded as file systems that ignore case fold them (two names one folds to are one file
    on macOS and Windows, and a wiki is shared through git between them): what a new name
    is checked against, so that no raw file is written that compile would then refuse, nor
    one that takes another's article (raw/a.txt.md beside raw/a.txt), nor a file where a
    folder is or the reverse (the article of raw/x.txt is wiki/x.txt.md: no raw/x.txt.md/)."""

    files: dict[str, str]  # folded raw path -> raw path
    articles: dict[str, str]  # folded article path -> the raw path that makes it
    folders: dict[str, str]  # folded path of every folder with a file below it -> its path
    claimed: dict[str, str] = field(default_factory=dict)  # raw path -> origin, this ingest

    @classmethod
    def listed(cls, ws: Workspace) -> _RawTree:
        tree = cls({}, {}, {folded(LESSONS_DIR): LESSONS_DIR})
        for folder, names in statcache.scan_folders(ws.raw, stats=False).items():
            for name in names:
                tree.add(folder + name)
        return tree

    def add(self, rel: str) -> None:
        self.files[folded(rel)] = rel
        self.articles[folded(article_rel(rel))] = rel
        end = rel.rfind("/")
        while end != -1 and folded(rel[:end]) not in self.folders:  # else known, and above
            self.folders[folded(rel[:end])] = rel[:end]
            end = rel.rfind("/", 0, end)

    def claim(self, rel: str, origin: str) -> None:
        self.claimed[rel] = origin
        self.add(rel)

    def blocked(self, rel: str) -> str | None:
        """Why no note can be put at `rel` or at any free name made from it (the suffix
        goes on the file's name, not on its folders), or None."""
        parts = rel.split("/")
        if len(parts) > 1 and folded(parts[0]) == folded(LESSONS_DIR):
            return (
                f"would go into .wiki/raw/{LESSONS_DIR}/, which holds the lessons that "
                "record-lesson writes (recall hands them to agents as rules); record a "
                "lesson with record-lesson, or give the note another name or folder"
            )
        for end in range(1, len(parts)):
            folder = "/".join(parts[:end])
            key = folded(folder)
            if key in self.files:
                return (
                    f".wiki/raw/{self.files[key]} is a file: it cannot hold {rel}; "
                    "give the note another name or folder"
                )
            if key in self.articles:
                return (
                    f"the folder .wiki/raw/{folder}/ would clash with the article "
                    f".wiki/wiki/{article_rel(self.articles[key])} of .wiki/raw/"
                    f"{self.articles[key]}; give the note another name or folder"
                )
        return None

    def taken(self, ws: Workspace, rel: str, origin: str) -> tuple[str, str] | None:
        """Where and why `rel` is taken for a note from `origin`, or None when it is free:
        nothing there, or a note from that origin (updated in place)."""
        key = folded(rel)
        there = f".wiki/raw/{rel}"
        held = self.files.get(key)
        if held == rel:
            holder = self.claimed.get(rel) or _origin_of(ws.raw / rel)
            if holder is None or holder == origin:
                return None
            return (
                there,
                f"already holds a note from {holder!r}, not from {origin!r}; move it first",
            )
        if held is not None:
            return there, (
                f"differs only in case from .wiki/raw/{held}, the same file where case is "
                "ignored (macOS, Windows); rename one"
            )
        article = folded(article_rel(rel))
        other = self.articles.get(article)
        if other is not None:
            return there, (
                f"would compile to the same article as .wiki/raw/{other} "
                f"(.wiki/wiki/{article_rel(other)}); rename one"
            )
        for name in (key, article):
            if name in self.folders:
                return (
                    there,
                    f"would clash with the folder .wiki/raw/{self.folders[name]}/; rename one",
                )
        if os.path.lexists(ws.raw / rel):
            return there, "is already there and is not a file; move it first"
        return None


def _split_name(name: str) -> tuple[str, str]:
    suffix = PurePosixPath(name).suffix
    return (name[: -len(suffix)], suffix) if suffix else (name, "")


def _origin_of(path: Path) -> str | None:
    """Return the origin recorded in a raw file, '' for a raw file without one, None if absent."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        meta = split(data.decode("utf-8", errors="replace"), path).meta
    except InputError:
        return ""
    origin = meta.get("origin")
    return origin if isinstance(origin, str) else ""
