"""Findings, and the view of a workspace that lint rules read (every file analysed once)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from skillwiki import parallel, statcache
from skillwiki.compiler import Plan
from skillwiki.config import Config
from skillwiki.lint import raw_links
from skillwiki.lint.facts import FORMAT, FileFacts, analyze
from skillwiki.workspace import Workspace


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the workspace root
    line: int
    column: int
    rule: str
    severity: Severity
    message: str
    # For a link (SW001): where it is written in the raw file (path, line) and its target as
    # written there; None where not known.
    source: tuple[str, int] | None = None
    target: str | None = None


class Read(NamedTuple):
    """A file outside .wiki/ that a rule looked at: its findings hold while it is unchanged."""

    path: str


Check = Callable[["LintContext"], Iterator[Finding | Read]]


@dataclass(frozen=True)
class Rule:
    """One lint rule, as its module declares it: what SARIF, the docs and the config know."""

    id: str  # SW001...: also the start of its module's name, sw001_*.py
    name: str  # a short slug: broken-link
    description: str  # one line: Broken link, wikilink or anchor
    help: str  # what to do about a finding
    severity: Severity  # of its findings, unless one says otherwise
    check: Check


@dataclass(frozen=True)
class File:
    """A file with its facts, as rules receive it."""

    path: str  # relative to the workspace root
    facts: FileFacts

    def key_line(self, key: str) -> int:
        """Return the 1-based line of a top-level frontmatter key (1 when it is absent)."""
        return self.facts.key_lines.get(key, 1)

    @property
    def meta(self) -> dict[str, object]:
        return self.facts.meta


@dataclass
class LintContext:
    """Everything the rules look at: the compile plan and every file's facts."""

    ws: Workspace
    config: Config
    plan: Plan
    raw: dict[str, File] = field(default_factory=dict)  # by raw-relative path
    articles: dict[str, File] = field(default_factory=dict)  # by wiki-relative path
    others: list[File] = field(default_factory=list)  # index.md, index.json, log.md

    def lessons(self) -> list[File]:
        """Return the raw files that are lessons (by type, or by living in raw/lessons/)."""
        return [
            file
            for rel, file in self.raw.items()
            if file.meta.get("type") == "lesson" or rel.startswith("lessons/")
        ]

    def every_file(self) -> list[File]:
        return [*self.raw.values(), *self.articles.values(), *self.others]


def cache_path(ws: Workspace) -> Path:
    return ws.cache / "lint.marshal"


def links_path(ws: Workspace) -> Path:
    return ws.cache / "lint-links.marshal"


def load_context(ws: Workspace, config: Config, plan: Plan) -> LintContext:
    """Analyse every file whose stat changed since the last lint; the rest come from the cache.

    The files to analyse are read and parsed across the machine's cores when there are many
    (a cold lint of a big workspace); the facts are the same either way. The raw files' links
    the last lint read (raw_links) are taken up too, for SW001.
    """
    cache = statcache.load_files(cache_path(ws), FORMAT)
    ctx = LintContext(ws, config, plan)
    wanted = _wanted(ws, ctx)
    facts = _facts(ws, config, wanted, cache)
    for file in wanted:
        if file.into is None:
            ctx.others.append(File(file.path, facts[file.path]))
        else:
            file.into[file.rel] = File(file.path, facts[file.path])
    cache.prune([file.path for file in wanted])
    statcache.save_files(cache_path(ws), cache, FORMAT)
    raw_links.MEMO.load(links_path(ws), FORMAT, {file.path for file in ctx.raw.values()})
    return ctx


class _Wanted(NamedTuple):
    """A file lint reads: its path from the root, its stat, and the folder's files it joins
    as `rel` (the raw files or the articles; None: the others)."""

    path: str
    stat: statcache.Stat
    into: dict[str, File] | None
    rel: str


def _wanted(ws: Workspace, ctx: LintContext) -> list[_Wanted]:
    """Every file lint reads: the raw files and the articles the plan found, then the wiki's
    index and log where they exist."""
    plan = ctx.plan
    wanted: list[_Wanted] = []
    for folder, stats, into in (
        ("raw", plan.raw_stats, ctx.raw),
        ("wiki", plan.wiki_stats, ctx.articles),
    ):
        wanted += [_Wanted(f".wiki/{folder}/{rel}", stats[rel], into, rel) for rel in sorted(stats)]
    for extra in (ws.index_md, ws.index_json, ws.log_md):
        try:
            wanted.append(_Wanted(ws.rel(extra), statcache.stat_of(extra), None, ""))
        except OSError:
            continue
    return wanted


def _facts(
    ws: Workspace, config: Config, wanted: list[_Wanted], cache: statcache.FileCache
) -> dict[str, FileFacts]:
    """The facts of each wanted file: from the cache while its stat is the same, else read and
    analysed (across the machine's cores when there are many) and put in the cache."""
    facts: dict[str, FileFacts] = {}
    for file in wanted:
        cached = cache.get(file.path, file.stat)
        if isinstance(cached, tuple) and len(cached) == len(FileFacts._fields):
            facts[file.path] = FileFacts._make(cached)
    unknown = [file for file in wanted if file.path not in facts]
    jobs = [(str(ws.root), file.path, config.max_file_bytes) for file in unknown]
    for file, found in zip(unknown, parallel.imap(_analyze, jobs), strict=True):
        cache.put(file.path, file.stat, tuple(found))
        facts[file.path] = found
    return facts


def _analyze(job: tuple[str, str, int]) -> FileFacts:
    """Read and analyse one file (in a worker process, when there are many)."""
    root, path, max_bytes = job
    try:
        with open(os.path.join(root, path), "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return FileFacts(f"cannot be read ({exc.strerror})", False, {}, {}, 0, [], [], [], [])
    # Only what people and agents write (raw/) is held to the size limit.
    limit = max_bytes if path.startswith(".wiki/raw/") else len(data) + 1
    return analyze(path, data, limit)
