"""What git's ignore files leave out of a folder that is ingested: a docs build, a site
generator's output, logs.

The rules are those of the repository the folder is in (none outside one): its
`.git/info/exclude`, and every `.gitignore` from the repository's root down, each read
relative to its own folder, a deeper file's word winning over a shallower one's as in git.
pathspec reads the patterns (negations, `**`, folder-only patterns). Two things git knows and
a file does not are left aside: a file git tracks although a pattern matches it is left out
all the same, and the user's own excludes (`core.excludesFile`) are not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".gitignore"


@dataclass(frozen=True)
class Rules:
    """The ignore files in force in one folder, shallowest first: (their folder, patterns)."""

    specs: tuple[tuple[Path, GitIgnoreSpec], ...]

    def below(self, folder: Path) -> Rules:
        """The rules in force in a subfolder: these, and its own `.gitignore` if it has one."""
        spec = _read(folder / IGNORE_FILE)
        return self if spec is None else Rules((*self.specs, (folder, spec)))

    def ignores(self, path: Path, is_dir: bool) -> bool:
        """Tell whether git ignores this file or folder (the last pattern that matches)."""
        for base, spec in reversed(self.specs):
            rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            decided = spec.check_file(rel).include
            if decided is not None:
                return decided
        return False


def rules_for(folder: Path) -> Rules | None:
    """The rules in force in a folder named to be ingested, or None: it is in no repository,
    or git ignores it or a folder it is in (then it was named on purpose)."""
    root = next((path for path in (folder, *folder.parents) if (path / ".git").exists()), None)
    if root is None:
        return None
    exclude = _read(root / ".git" / "info" / "exclude")
    rules = Rules(((root, exclude),) if exclude is not None else ())
    rel = folder.relative_to(root)
    for step in [*reversed(rel.parents), rel]:  # the root, each folder down, the folder
        here = root / step
        if here != root and rules.ignores(here, is_dir=True):
            return None
        rules = rules.below(here)
    return rules


def _read(path: Path) -> GitIgnoreSpec | None:
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:  # none there, or not a file
        return None
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(text.splitlines())
