"""The raw path each ingested file goes to: its mirror of the repository, or a free name, never
one that clashes with a raw file already there or with another of the same ingest."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from skillwiki import statcache
from skillwiki.errors import InputError
from skillwiki.frontmatter.documents import split
from skillwiki.ingest.sources import STDIN_ORIGIN, Source
from skillwiki.memory.store import LESSONS_DIR
from skillwiki.names import folded
from skillwiki.workspace import Workspace, article_rel


def target(ws: Workspace, source: Source, tree: RawTree) -> str:
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
class RawTree:
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
    def listed(cls, ws: Workspace) -> RawTree:
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
