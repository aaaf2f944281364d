"""Full-text search over the articles (SQLite FTS5 in .cache/).

`text` holds the one normalisation that index and queries share, `index` keeps the index in
step with wiki/ and reads it through busy writers and damage, `rank` turns a query into
ranked hits with snippets.
"""

from __future__ import annotations

from skillwiki.search.index import folder_index, index_path, open_index
from skillwiki.search.rank import (
    MAX_QUERY_WORDS,
    Hit,
    prime,
    query_terms,
    search,
    snippet,
    words_left_out,
)
from skillwiki.search.text import normalize
from skillwiki.snapshot import Since, Snapshot

__all__ = [
    "MAX_QUERY_WORDS",
    "Hit",
    "Since",
    "Snapshot",
    "folder_index",
    "index_path",
    "normalize",
    "open_index",
    "prime",
    "query_terms",
    "search",
    "snippet",
    "words_left_out",
]
