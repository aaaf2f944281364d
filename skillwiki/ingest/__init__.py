"""Copy files, folders or stdin into raw/, mirroring repo paths and recording their origin.

Every input is read and checked first, keeping of each only its name and a fingerprint; then,
under the workspace lock, each is read again and written a batch at a time, so that what an
ingest holds in memory does not grow with the tree it copies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from skillwiki import fsio
from skillwiki.config import Config
from skillwiki.errors import EmptyNote, InputError
from skillwiki.fingerprint import expect, xxh3
from skillwiki.frontmatter.documents import check_note, join, split
from skillwiki.ingest.names import RawTree, target
from skillwiki.ingest.sources import (
    DOC_SUFFIXES,
    STDIN,
    STDIN_ORIGIN,
    Ingested,
    IngestResult,
    Kinds,
    Refused,
    Source,
    check_name,
    collect,
    load,
    stdin_source,
    unique,
)
from skillwiki.workspace import PARSED_SUFFIXES, Workspace

# A batch is written (its files synced, its log lines appended, then renamed into place) once
# it holds this many files or this many bytes, whichever comes first.
BATCH_FILES = 256
BATCH_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Overrides:
    title: str | None = None
    summary: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Checked:
    """A source that passed every check: the fingerprint of the bytes checked, and the size
    of its raw text."""

    source: Source
    digest: int
    size: int


def ingest(
    ws: Workspace,
    config: Config,
    paths: Sequence[str],
    *,
    stdin: bytes | None = None,
    name: str | None = None,
    overrides: Overrides = Overrides(),
    kinds: Kinds | None = None,
    expected: str | None = None,
) -> IngestResult:
    """Check every input first, then copy them into raw/ under the workspace lock.

    Nothing is written unless every file named alone passes (a file of a folder that does
    not is refused, and the rest go on). Files are written a batch at a time, each batch
    logged before its files are put in place: a failure or a kill part way leaves every raw
    file either as it was or as ingested, never half written. A file that changed between
    its check and its copy is refused, and left as it was in raw/. `kinds`: which files of a
    folder to take (by default Markdown and plain text)."""
    result = IngestResult()
    sources: list[Source] = []
    for given in paths:
        if given == STDIN:
            sources.append(stdin_source(stdin, name))
        else:
            sources.extend(collect(ws, Path(given), kinds or Kinds(), result))
    checked = _checked(config, unique(sources), overrides, result)
    if expected is not None and len(checked) != 1:
        raise InputError(None, "--expect-fingerprint goes with a single file to ingest")
    with fsio.workspace_lock(ws, config.lock_timeout):
        tree = RawTree.listed(ws)
        targets = [target(ws, item.source, tree) for item in checked]
        for rel in targets if expected is not None else ():
            expect(ws.raw / rel, expected, f".wiki/raw/{rel}")
        for batch in _batches(list(zip(checked, targets, strict=True))):
            _write(ws, config, overrides, batch, result)
    return result


def _checked(
    config: Config, sources: list[Source], overrides: Overrides, result: IngestResult
) -> list[_Checked]:
    """The sources that can be ingested; a file of a folder that cannot be one is refused,
    not fatal, and one with nothing in it (a package's `__init__.py`) is left out and
    counted. A raw text that compile would refuse (its frontmatter added may take it over
    max_file_bytes) is refused here, before anything is written."""
    from skillwiki.compiler import refusal_of

    checked = []
    for source in sources:
        try:
            data, text = load(config, source)
            check_name(source)
            raw = _raw_text(source, text, overrides).encode()
            problem = refusal_of(config, source.name, raw)
            if problem is not None:
                raise InputError(source.shown, f"compile would refuse it in .wiki/raw/: {problem}")
            checked.append(_Checked(source, xxh3(data), len(raw)))
        except EmptyNote:
            if not source.in_folder:
                raise
            result.empty += 1
        except InputError as exc:
            if not source.in_folder:
                raise
            result.refused.append(Refused(source.shown, exc.detail))
    return checked


def _batches(
    items: list[tuple[_Checked, str]],
) -> Iterator[list[tuple[_Checked, str]]]:
    batch: list[tuple[_Checked, str]] = []
    size = 0
    for item in items:
        if batch and (len(batch) >= BATCH_FILES or size + item[0].size > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += item[0].size
    if batch:
        yield batch


def _write(
    ws: Workspace,
    config: Config,
    overrides: Overrides,
    batch: list[tuple[_Checked, str]],
    result: IngestResult,
) -> None:
    """Read each file of `batch` again and write their raw copies; one whose bytes are no
    longer those checked is refused."""
    ready: list[tuple[Source, str, bytes]] = []
    for item, rel in batch:
        source = item.source
        try:
            data, text = load(config, source)
        except InputError as exc:
            result.refused.append(Refused(source.shown, exc.detail))
            continue
        if xxh3(data) != item.digest:
            reason = "changed while it was being ingested; ingest it again"
            result.refused.append(Refused(source.shown, reason))
            continue
        ready.append((source, rel, _raw_text(source, text, overrides).encode()))

    def log(will_write: list[bool]) -> None:
        # Logged before the files are put in place: a kill between the two leaves a
        # log line whose file did not arrive (its temp is swept), never a file unlogged.
        lines = [
            f"{source.origin} -> raw/{rel}"
            for (source, rel, _), written in zip(ready, will_write, strict=True)
            if written
        ]
        if lines:
            fsio.append_log(ws, "ingest", *lines)

    changed = fsio.write_many([(ws.raw / rel, raw) for _, rel, raw in ready], before_rename=log)
    for (source, rel, _), written in zip(ready, changed, strict=True):
        result.files.append(Ingested(source.origin, rel, written))


def _raw_text(source: Source, text: str, overrides: Overrides) -> str:
    """The raw copy of `text`: its frontmatter (as YAML) with the overrides and its origin."""
    if PurePosixPath(source.name).suffix.lower() in PARSED_SUFFIXES:
        document = split(text, source.shown)
        meta: dict[str, Any] = dict(document.meta)
        body = document.body
    else:
        meta, body = {}, text
    if overrides.title:
        meta["title"] = overrides.title
    if overrides.summary:
        meta["summary"] = overrides.summary
    if overrides.tags:
        meta["tags"] = list(overrides.tags)
    check_note(meta, body, source.shown)
    meta["origin"] = source.origin
    return join(meta, body)


__all__ = [
    "DOC_SUFFIXES",
    "STDIN",
    "STDIN_ORIGIN",
    "IngestResult",
    "Ingested",
    "Kinds",
    "Overrides",
    "Refused",
    "ingest",
]
