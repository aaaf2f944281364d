"""Full-text search over the articles (SQLite FTS5 in .cache/).

`text` holds the one normalisation that index and queries share. `index` opens the index in
step with wiki/ and reads it through busy writers and damage; `schema` holds its tables,
`sync` brings it in step (what differs: `differences`; each article read as a `row`; the
references between articles counted: `inbound`). A query's words are `terms`,
`rank` turns them into ranked hits (`hits`): of BM25's best (`matches`), the order by words
held close together (`near`; a title the query names counts one more: `cover`) fused with the
order by BM25, then, with the `semantic` extra, with the articles nearest in
meaning (`vectors`, its cache held by the connection's owner): by WordLlama's word vectors
(`semantic`) and by a sentence encoder's (`sentences`; `embedders` says how each kind is made
and stored). Each hit comes with a line of its article (`snippets`, the words in bold as
`highlight` finds them, read through `files`); the copies of one page are one hit (`copies`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillwiki import lazy

if TYPE_CHECKING:
    from skillwiki.search.hits import Hit
    from skillwiki.search.index import folder_index, index_path, keep_in_step, open_index
    from skillwiki.search.rank import search
    from skillwiki.search.snapshot import ChangesSince, Snapshot
    from skillwiki.search.snippets import snippet
    from skillwiki.search.terms import MAX_QUERY_WORDS, query_terms, words_left_out
    from skillwiki.search.text import normalize
    from skillwiki.search.vectors import VectorCache, prime

__all__ = [
    "MAX_QUERY_WORDS",
    "Hit",
    "ChangesSince",
    "Snapshot",
    "VectorCache",
    "folder_index",
    "index_path",
    "keep_in_step",
    "normalize",
    "open_index",
    "prime",
    "query_terms",
    "search",
    "snippet",
    "words_left_out",
]


# Each name, and the module it is loaded from the first time it is asked for: compile and lint
# take `heading_cache` and `snapshot` from here, and must not load SQLite and the ranking.
__getattr__ = lazy.exports(
    __name__,
    {
        "Hit": "hits",
        "folder_index": "index",
        "index_path": "index",
        "keep_in_step": "index",
        "open_index": "index",
        "search": "rank",
        "ChangesSince": "snapshot",
        "Snapshot": "snapshot",
        "snippet": "snippets",
        "MAX_QUERY_WORDS": "terms",
        "query_terms": "terms",
        "words_left_out": "terms",
        "normalize": "text",
        "VectorCache": "vectors",
        "prime": "vectors",
    },
)
