"""Find the workspace (the nearest .wiki/) and name the paths inside it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from skillwiki.errors import WorkspaceNotFound

WIKI_DIR = ".wiki"
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
# Read as Markdown; an `.mdx` page (Astro, Docusaurus) is one, and its article gets `.md` added.
PARSED_SUFFIXES = MARKDOWN_SUFFIXES | {".mdx"}


@dataclass(frozen=True)
class Workspace:
    """The paths of one workspace; `root` is the directory that holds `.wiki/`."""

    root: Path

    @property
    def dot(self) -> Path:
        return self.root / WIKI_DIR

    @property
    def raw(self) -> Path:
        return self.dot / "raw"

    @property
    def wiki(self) -> Path:
        return self.dot / "wiki"

    @property
    def cache(self) -> Path:
        return self.dot / ".cache"

    @property
    def config_file(self) -> Path:
        return self.dot / "config.toml"

    @property
    def index_md(self) -> Path:
        return self.dot / "index.md"

    @property
    def index_json(self) -> Path:
        return self.dot / "index.json"

    @property
    def log_md(self) -> Path:
        return self.dot / "log.md"

    @property
    def lock_file(self) -> Path:
        return self.dot / ".lock"

    def rel(self, path: Path) -> str:
        """Return `path` relative to the workspace root, with forward slashes."""
        return Path(os.path.relpath(path, self.root)).as_posix()


def article_rel(raw_rel: str) -> str:
    """Map a raw-relative path to its article's wiki-relative path (a mirror)."""
    if suffix(raw_rel) in MARKDOWN_SUFFIXES:
        return raw_rel
    return raw_rel + ".md"


def suffix(rel: str) -> str:
    """Return the lower-cased suffix of a '/'-separated path, as PurePosixPath.suffix would."""
    name = rel[rel.rfind("/") + 1 :]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


def find_workspace(start: Path, explicit: Path | None = None) -> Workspace:
    """Return the workspace named by `explicit`, or the nearest one at or above `start`."""
    if explicit is not None:
        root = explicit.expanduser()
        if not root.is_dir():
            raise WorkspaceNotFound(f"workspace {explicit} is not a directory")
        if not (root / WIKI_DIR).is_dir():
            raise WorkspaceNotFound(f"no .wiki/ found in {explicit}; run 'skillwiki init'")
        return Workspace(root.resolve())
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / WIKI_DIR).is_dir():
            return Workspace(candidate)
    raise WorkspaceNotFound(f"no .wiki/ found at or above {start}; run 'skillwiki init'")
