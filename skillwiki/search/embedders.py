"""The two kinds of vector the `semantic` extra keeps per article, and what each is made of:
WordLlama's mean of static word vectors (semantic.py), one an article, and MiniLM's sentence
vectors (sentences.py), one a passage of it (its opening and its first sections). Each has its
table in the index (an article's vectors packed one after another in its row), the key in the
index's meta naming the model its vectors are of, and the field of an article's row (row.py)
holding what it embeds: a text, or a text a vector."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from skillwiki.search import semantic, sentences


class Embedder(NamedTuple):
    """One kind of vector: where the index keeps it, and the module that makes it (its MODEL,
    DIMENSIONS, available(), embed(texts) and embed_query(text), looked up at each call)."""

    table: str  # the index's table of (id, vec)
    meta: str  # the meta key naming the model of every article's vector ('': some lack one)
    field: str  # the ArticleRow field holding what it embeds: a text, or a tuple of them
    module: ModuleType
    most: int = 1  # vectors an article has, at most

    @staticmethod
    def texts(value: str | tuple[str, ...]) -> tuple[str, ...]:
        """What an article's field holds as the texts of its vectors, one at least (an empty
        text is a row of zeros)."""
        texts = (value,) if isinstance(value, str) else value
        return texts or ("",)

    @property
    def model(self) -> str:
        return str(self.module.MODEL)

    @property
    def dimensions(self) -> int:
        return int(self.module.DIMENSIONS)

    @property
    def packed(self) -> int:
        """The bytes of one stored vector (semantic.pack): a scale, then a byte a dimension."""
        return 4 + self.dimensions

    def available(self) -> bool:
        return bool(self.module.available())

    def embed(self, texts: Sequence[str]) -> Any:
        return self.module.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.module.embed_query(text)


WORDS = Embedder("vecs", "vectors", "text", semantic)
SENTENCES = Embedder("sents", "sentences", "prose", sentences, sentences.PASSAGES)
EMBEDDERS = (WORDS, SENTENCES)
