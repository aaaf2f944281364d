"""Full-text search over the articles (SQLite FTS5 in .cache/).

`text` holds the one normalisation that index and queries share, `index` keeps the index in
step with wiki/ and reads it through busy writers and damage, `rank` turns a query into
ranked hits with snippets.
"""

from __future__ import annotations

from skillwiki.search.index import Articles, Since, index_path, open_index
from skillwiki.search.rank import Hit, query_terms, search, snippet
from skillwiki.search.text import normalize

__all__ = [
    "Articles",
    "Hit",
    "Since",
    "index_path",
    "normalize",
    "open_index",
    "query_terms",
    "search",
    "snippet",
]
