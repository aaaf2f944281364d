"""The search index a kept-open workspace (live.py) holds open between its looks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from skillwiki.workspace import Workspace

if TYPE_CHECKING:
    import sqlite3

    from skillwiki.search import VectorCache


class KeptIndex:
    """The search index connection kept open between looks, with the vectors read from it.

    It is trusted while its file is still the one at the index's place: a look that finds
    another there (the index rebuilt, replaced or removed) opens that one. An index in memory
    (read_only) is trusted while it is of the same .wiki/ folder."""

    def __init__(self, in_memory: bool) -> None:
        self._in_memory = in_memory
        self.connection: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None  # (device, inode) of its file, or of .wiki/
        self._vectors: VectorCache | None = None

    @property
    def vectors(self) -> VectorCache:
        """The vectors of the kept index as last read: held with the connection, so a search
        of an unchanged index reads none again, and after a change only those that came."""
        if self._vectors is None:
            from skillwiki.search import VectorCache

            self._vectors = VectorCache(stays=True)
        return self._vectors

    @property
    def open(self) -> bool:
        """Whether a connection is kept, and its file known."""
        return self._file is not None

    def kept(self, ws: Workspace) -> sqlite3.Connection | None:
        """The connection kept, while its file is still the one at the index's place (for an
        index in memory: while it is of this workspace's .wiki/)."""
        if self.connection is None or self._file is None:
            return None
        try:
            found = os.stat(ws.dot if self._in_memory else _index_path(ws))
        except OSError:
            return None
        return self.connection if (found.st_dev, found.st_ino) == self._file else None

    def keep(self, index: sqlite3.Connection | None, ws: Workspace | None = None) -> None:
        """Keep `index` open for the next reads, and close the one kept before.

        The new one reads first: a connection that has read holds the index file (SQLite's
        shared lock, in WAL mode), so closing the old one is not the last close, which would
        checkpoint the write-ahead log into the file and remove it, only for the next write
        to make it again."""
        self._file = None
        try:
            if index is not None:
                index.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        finally:
            if self.connection is not None and self.connection is not index:
                self.connection.close()
            self.connection = index
        if index is None:
            return
        files = [row[2] for row in index.execute("PRAGMA database_list") if row[1] == "main"]
        if files and files[0]:
            found = os.stat(files[0])
            self._file = (found.st_dev, found.st_ino)
        elif self._in_memory and ws is not None:  # in memory: built from this workspace
            found = os.stat(ws.dot)
            self._file = (found.st_dev, found.st_ino)


def _index_path(ws: Workspace) -> Path:
    """The search index's file in `ws`."""
    from skillwiki.search import index_path

    return index_path(ws)
