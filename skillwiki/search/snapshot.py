"""wiki/ as a compile left it: what the search index needs to come in step, in one value."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from skillwiki.search.heading_cache import ArticleHeadings
from skillwiki.statcache.scan import Stat


def _no_entry(rel: str) -> str | None:
    return None


def _covers_all(rel: str) -> bool:
    return True


class ChangesSince(NamedTuple):
    """What changed since a known state: if the index was last synced to `token`, only the
    articles of these folders (folder -> the articles in it now that were looked at, with
    their stats), and of those only the ones `covers` accepts, may differ.

    `present` (folder -> the names of every article in it now) spares `covers` the many rows
    of a big folder: an article there now that `folders` does not hold was not looked at."""

    token: str
    folders: Mapping[str, Mapping[str, Stat]]
    covers: Callable[[str], bool] = _covers_all
    present: Mapping[str, Mapping[str, object]] = {}


class Snapshot(NamedTuple):
    """wiki/ at one moment, each part computed only when the index asks for it.

    `articles`: every article's stat, by path (a sync that knows `changes` rarely needs them).
    `entry_of`: an article's index.json entry as JSON, so that its frontmatter is not read
    again; None for an article without one. `token` names this exact state as recorded in
    the saved stat cache (None when unsaved): an index synced to the same token is in step
    without a comparison. `changes`: the folders that may differ from the state the index may
    have been synced to. `headings`: what compile found in the articles it wrote (heading_cache), so
    that the index need not parse them again.
    """

    articles: Callable[[], Mapping[str, Stat]]
    entry_of: Callable[[str], str | None] = _no_entry
    token: str | None = None
    changes: ChangesSince | None = None
    headings: Mapping[str, ArticleHeadings] = {}
