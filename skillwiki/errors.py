"""One error tree: each error carries its exit code and a message that says what to do."""

from __future__ import annotations

from pathlib import Path


class SkillwikiError(Exception):
    """An expected failure the user can fix; the CLI prints it as one `Error:` line."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WorkspaceNotFound(SkillwikiError):
    """No .wiki/ where one was expected."""


class ConfigError(SkillwikiError):
    """config.toml is unreadable, or a key is unknown or has a wrong value."""

    def __init__(self, path: Path | str, message: str, key: str | None = None) -> None:
        where = f"{path}: {key}: " if key else f"{path}: "
        super().__init__(where + message)
        self.path = str(path)
        self.key = key


class InputError(SkillwikiError):
    """A file or value given to skillwiki cannot be accepted as it is."""

    def __init__(self, path: Path | str | None, message: str) -> None:
        super().__init__(f"{path}: {message}" if path is not None else message)
        self.path = None if path is None else str(path)
        self.detail = message


class EmptyNote(InputError):
    """A file with nothing to ingest: no text, no frontmatter."""


class ReadOnlyWorkspace(InputError):
    """The workspace cannot be written (a read-only checkout, or no permission)."""


class OutsideWorkspace(InputError):
    """A path, or a symlink under .wiki/, that leads out of the workspace: never written."""


class NotFound(SkillwikiError):
    """A lesson id or article path that does not exist."""


class LockTimeout(SkillwikiError):
    """Another writer held the workspace lock for longer than we were willing to wait."""


class Conflict(SkillwikiError):
    """The target changed since the caller read it, or a write would overwrite someone's work."""
