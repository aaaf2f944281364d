"""The workspace a process keeps open between commands (`skillwiki serve`), as the reads and
`status` take it while that process runs one of them."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the protocol is for the type checker: a query pays nothing to define it
    from pathlib import Path
    from typing import Protocol

    from skillwiki.api.reads import Opened
    from skillwiki.compiler import Plan
    from skillwiki.config import Config
    from skillwiki.workspace import Workspace

    class Keeper(Protocol):
        """A workspace kept open; each answers None for a workspace it does not keep."""

        def kept(self, root: Path) -> Opened | None:
            """The workspace at `root` brought up to date as it is kept (its watcher says what
            changed: no stat of every file)."""
            ...

        def planned(self, ws: Workspace, config: Config) -> Plan | None:
            """The plan of a compile (`status`'s), kept while the watcher tells nothing changed."""
            ...


# Set by the process that keeps a workspace open for the time of a command it runs.
keeper: ContextVar[Keeper | None] = ContextVar("keeper", default=None)
