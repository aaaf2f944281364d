"""Reading an article's file: whole, or its head, with no exception for one that cannot be
read."""

from __future__ import annotations

import os
from pathlib import Path

from skillwiki.frontmatter.documents import body_of
from skillwiki.search import near


def article_head(path: str) -> tuple[bytes | None, bool]:
    """An article file's bytes, or its first near.READ_BYTES if it is longer (None: it cannot
    be read), and whether that is the whole of it."""
    data = file_bytes(path, near.READ_BYTES + 1)
    if data is None:
        return None, False
    return data[: near.READ_BYTES], len(data) <= near.READ_BYTES


def decoded(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def article_body(path: str | Path) -> str | None:
    """An article's body (None: it cannot be read)."""
    data = file_bytes(path)
    return None if data is None else body_of(decoded(data))


def file_bytes(path: str | Path, most: int | None = None) -> bytes | None:
    """A file's bytes, or its first `most` (None: it cannot be read), read with os calls
    (open() and read() would build two Python objects per file). A file read whole is read
    to its end, should it have grown since its stat."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            left = os.fstat(fd).st_size + 1 if most is None else most
            parts = []
            while left > 0 and (chunk := os.read(fd, left)):
                parts.append(chunk)
                left = 1 << 16 if most is None else left - len(chunk)
        finally:
            os.close(fd)
    except OSError:
        return None
    return b"".join(parts)
