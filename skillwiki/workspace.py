"""Find the workspace (the nearest .wiki/) and name the paths inside it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from skillwiki.errors import OutsideWorkspace, WorkspaceNotFound

WIKI_DIR = ".wiki"
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
# Read as Markdown; an `.mdx` page (Astro, Docusaurus) is one, and its article gets `.md` added.
PARSED_SUFFIXES = MARKDOWN_SUFFIXES | {".mdx"}


class Workspace(NamedTuple):
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
    def usage_log(self) -> Path:
        """How often recall showed each lesson, rolled up from every clone (tracked in git)."""
        return self.dot / "usage.log"

    @property
    def lock_file(self) -> Path:
        return self.dot / ".lock"

    def holds(self, path: Path | str) -> bool:
        """Tell whether `path`, with `..` and symlinks resolved, is inside the workspace."""
        return within(os.path.realpath(path), os.path.realpath(self.root))

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
        return confined(Workspace(root.resolve()))
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / WIKI_DIR).is_dir():
            return confined(Workspace(candidate))
    raise WorkspaceNotFound(f"no .wiki/ found at or above {start}; run 'skillwiki init'")


# The paths below .wiki/ that commands write, create or remove: each may be a symlink only
# to a place inside the workspace. Deeper folders are checked as they are written (fsio).
SKELETON = (
    "",
    "raw",
    "raw/lessons",
    "wiki",
    ".cache",
    ".cache/search.sqlite",
    ".cache/search.sqlite-wal",
    ".cache/search.sqlite-shm",
    ".cache/search.sqlite-journal",
    "log.md",
    ".lock",
    "index.md",
    "index.json",
    "config.toml",
    ".gitignore",
    ".gitattributes",
    "usage.log",
    ".cache/hits.log",
    ".cache/hits.log.rolling",
)


def confined(ws: Workspace) -> Workspace:
    """Return `ws` if no symlink of its layout leads out of it; refuse it otherwise.

    A cloned repository may hold symlinks: writing through `.wiki/wiki -> elsewhere` would
    change or delete files that are not the workspace's. A few lstat calls, on every command.
    """
    real_root = os.path.realpath(ws.root)
    for rel in SKELETON:
        path = os.path.join(ws.root, WIKI_DIR, rel) if rel else os.path.join(ws.root, WIKI_DIR)
        if os.path.islink(path):
            outside_of(real_root, path, f"{WIKI_DIR}/{rel}".rstrip("/"))
    return ws


def outside_of(real_root: str, path: str, shown: str) -> None:
    """Refuse `path` (named `shown`) if it resolves outside `real_root` (a resolved path)."""
    target = os.path.realpath(path)
    if not within(target, real_root):
        raise OutsideWorkspace(
            shown,
            f"is a symlink that leads out of the workspace (to {target}); skillwiki never "
            f"writes outside {real_root}: replace the link with a real folder or file",
        )


def within(path: str, real_root: str) -> bool:
    """Tell whether the resolved `path` is `real_root` or below it."""
    return path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep)
