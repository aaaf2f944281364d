"""Optional local semantic search: the `semantic` extra (`pip install 'skillwiki[semantic]'`).

The model is WordLlama's static word vectors (`l2_supercat`, 256 dimensions), which its wheel
carries with its tokenizer, so nothing is ever downloaded. A text's vector is the mean of its
tokens' vectors, scaled to length 1, exactly as `WordLlama.embed(..., norm=True)` computes it
(a test holds the two equal on the real corpora); it is computed here from the wheel's two
files with `tokenizers`, `safetensors` and NumPy, because importing `wordllama` itself costs
half a second (it brings pydantic and requests) and a query must stay quick.

A query's vector (`embed_query`) is found without loading the tokenizer, which takes longer
than the rest of a query: its vocabulary and merges are read from the same file with the json
module, and the query's words merged by the same BPE rules, one word at a time (`Pieces`); only
the rows of its tokens are read from the weights. A test holds its tokens equal to the
tokenizer's on real Markdown, and the vector equal to `embed`'s. A process that has loaded the
model (to embed articles) uses the model.

Without the extra, or with SKILLWIKI_SEMANTIC=0, `available()` is False, nothing here imports
anything, and search is the text ranking alone.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# Kept in the index: vectors of another model, or stored another way, are redone.
MODEL = "wordllama l2_supercat 256 int8"
DIMENSIONS = 256
PACKED = 4 + DIMENSIONS  # bytes of a stored vector (`pack`): its scale, then a byte a dimension
_WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER_FILE = "tokenizers/l2_supercat_tokenizer_config.json"
_NEEDED = ("numpy", "safetensors", "tokenizers")


def available() -> bool:
    """Whether semantic search is on: the extra installed and SKILLWIKI_SEMANTIC not 0."""
    return not turned_off() and installed()


def turned_off() -> bool:
    """Whether SKILLWIKI_SEMANTIC turns the extra off (0, false, no or off): both rankings by
    meaning, this one and the sentence encoder's."""
    return os.environ.get("SKILLWIKI_SEMANTIC", "").strip() in ("0", "false", "no", "off")


def importable(modules: Sequence[str]) -> bool:
    """Whether each of `modules` is installed, found without importing it."""
    return all(importlib.util.find_spec(name) is not None for name in modules)


@functools.cache
def installed() -> bool:
    return package_dir() is not None and importable(_NEEDED)


def package_dir() -> Path | None:
    """The installed wordllama package's folder, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder if (folder / _WEIGHTS).is_file() and (folder / TOKENIZER_FILE).is_file() else None


class Model:
    """The tokenizer and the vector of every token, loaded once per process."""

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        # Kept in half precision as stored: a text's rows are widened when it is embedded,
        # exactly as WordLlama widens the whole table first, without paying for all of it.
        self.vectors = np.ascontiguousarray(load_file(str(folder / _WEIGHTS))["embedding.weight"])


def _folder() -> Path:
    """The wordllama package's folder, asked for only once the extra is known installed."""
    folder = package_dir()
    if folder is None:
        raise RuntimeError("the semantic extra is not installed")
    return folder


@functools.cache
def loaded_model() -> Model:
    """The tokenizer and token vectors, loaded on the first call of a process and kept."""
    return Model(_folder())


def embed(texts: Sequence[str]) -> NDArray[np.float32]:
    """One unit vector per text (a row of zeros for a text with no tokens)."""
    import numpy as np

    model = loaded_model()
    matrix = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    last = model.vectors.shape[0] - 1
    encoded = model.tokenizer.encode_batch(list(texts), add_special_tokens=False)
    for row, encoding in enumerate(encoded):
        if encoding.ids:
            ids = np.clip(np.asarray(encoding.ids, dtype=np.int32), 0, last)
            matrix[row] = _unit_mean(model.vectors[ids])
    return matrix


def _unit_mean(rows: NDArray[np.float16]) -> NDArray[np.float32]:
    """The mean of some tokens' vectors (widened first), scaled to length 1."""
    import numpy as np

    mean: NDArray[np.float32] = np.sum(rows.astype(np.float32), axis=0, dtype=np.float32)
    mean /= np.float32(len(rows))
    norm = np.linalg.norm(mean)
    return mean / norm if norm else mean


def embed_query(text: str) -> NDArray[np.float32]:
    """`embed([text])[0]`, the same bits, without loading the tokenizer or the whole table of
    vectors unless they are loaded already (or `text` is one `Pieces` does not take)."""
    import numpy as np

    ids = None if loaded_model.cache_info().currsize else query_pieces().ids(text)
    if ids is None:
        vector: NDArray[np.float32] = embed([text])[0]
        return vector
    return _unit_mean(_rows(ids)) if ids else np.zeros(DIMENSIONS, dtype=np.float32)


def _rows(ids: list[int]) -> NDArray[np.float16]:
    """The vectors of these tokens, read from the weights file alone (each row once per
    process: a server asks for the same words again and again)."""
    import numpy as np

    return np.concatenate([_row(token) for token in ids])


@functools.lru_cache(maxsize=4096)
def _row(token: int) -> NDArray[np.float16]:
    table = _table()
    at = min(max(token, 0), table.get_shape()[0] - 1)
    row: NDArray[np.float16] = table[at : at + 1]
    return row


@functools.cache
def _table() -> Any:
    """The weights file's table of vectors, opened (mapped, not read) once per process."""
    from safetensors import safe_open

    weights: Any = safe_open(str(_folder() / _WEIGHTS), framework="numpy")
    return weights.get_slice("embedding.weight")


class Pieces:
    """The tokenizer's BPE, for short texts: its vocabulary and merge ranks, and the rules of its
    file (a `▁` before the text and for each space, no pre-tokenizer, bytes for a character
    not in the vocabulary, the pair of lowest rank merged first, the leftmost of equals).

    No token holds a `▁` after another character (unless it is all `▁`), so no token spans
    the start of a word, and each word (a `▁` after another character starts one) is merged on
    its own: the same tokens as the whole text, and each word's kept for the next query.
    """

    # The file's settings these rules are written for; another file is left to the tokenizer.
    NORMALIZER = {
        "type": "Sequence",
        "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        ],
    }
    MODEL = {
        "type": "BPE",
        "dropout": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "byte_fallback": True,
        "ignore_merges": False,
    }
    LONGEST = 64  # a longer word is left to the tokenizer (merging it here takes its square)

    def __init__(self, config: dict[str, object]) -> None:
        model = config.get("model")
        model = model if isinstance(model, dict) else {}
        self.vocab: dict[str, int] = model.get("vocab", {})
        merges = model.get("merges", [])
        added = config.get("added_tokens")
        self.special = [str(token["content"]) for token in added] if isinstance(added, list) else []
        self.usable = (
            config.get("normalizer") == self.NORMALIZER
            and config.get("pre_tokenizer") is None
            and all(model.get(key) == value for key, value in self.MODEL.items())
            # Merges as "left right" strings (later files write pairs: left to the tokenizer).
            and bool(merges)
            and isinstance(merges[0], str)
            and all(f"<0x{byte:02X}>" in self.vocab for byte in range(256))
            # No token holds a `▁` after another character (one scan of them all, each on a
            # line of its own: a token holding a line break can only make this say no).
            and not re.search("[^\n\u2581]\u2581", "\n".join(self.vocab))
        )
        self.ranks = dict(zip(merges, range(len(merges)), strict=True)) if self.usable else {}
        self._word = functools.lru_cache(maxsize=4096)(self._merged)

    def ids(self, text: str) -> list[int] | None:
        """The tokenizer's ids for `text` (no special tokens added); None: ask the tokenizer."""
        if not self.usable or any(token in text for token in self.special):
            return None
        if not text:
            return []
        pieces = "\u2581" + text.replace(" ", "\u2581")
        ids: list[int] = []
        start = 0
        for end in range(1, len(pieces) + 1):
            if end == len(pieces) or (pieces[end] == "\u2581" and pieces[end - 1] != "\u2581"):
                if end - start > self.LONGEST:
                    return None
                ids += self._word(pieces[start:end])
                start = end
        return ids

    def _merged(self, word: str) -> list[int]:
        symbols: list[str] = []
        for char in word:
            if char in self.vocab:
                symbols.append(char)
            else:
                symbols += [f"<0x{byte:02X}>" for byte in char.encode()]
        while len(symbols) > 1:
            best, at = None, -1
            for place in range(len(symbols) - 1):
                rank = self.ranks.get(f"{symbols[place]} {symbols[place + 1]}")
                if rank is not None and (best is None or rank < best):
                    best, at = rank, place
            if best is None:
                break
            symbols[at : at + 2] = [symbols[at] + symbols[at + 1]]
        return [self.vocab[symbol] for symbol in symbols]


@functools.cache
def query_pieces() -> Pieces:
    """The tokenizer's rules for a query's words, loaded on the first call and kept."""
    return Pieces(json.loads((_folder() / TOKENIZER_FILE).read_bytes()))


def article_text(title: str, summary: str, body: str) -> str:
    """What of an article is embedded: its title, summary and body up to the Sources the
    compiler adds."""
    cut = body.find("\n## Sources")
    return f"{title}\n{summary}\n{body if cut < 0 else body[:cut]}"


@functools.cache
def _stored(dimensions: int = DIMENSIONS) -> np.dtype[Any]:
    """How `pack` lays a vector out: a little-endian float32 scale, then one signed byte a
    dimension."""
    import numpy as np

    return np.dtype([("scale", "<f4"), ("steps", "i1", (dimensions,))])


def pack(vector: NDArray[np.float32]) -> bytes:
    """A vector as the index stores it, in 4 bytes more than its dimensions (260 here): each
    dimension rounded to one of 255 steps of its largest magnitude / 127 (the scale, kept
    beside them). A unit vector comes back within half a step of each dimension (`matrix`),
    which moves a cosine by less than a ranking notices, at half the room of half precision
    (the vectors are most of an index's size)."""
    import numpy as np

    scale = np.float32(float(np.max(np.abs(vector))) / 127)
    record = np.zeros(1, dtype=_stored(len(vector)))
    record["scale"] = scale
    if scale:  # else a vector of zeros (a text without tokens): all steps 0
        record["steps"] = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    return record.tobytes()


def matrix(packed: Sequence[bytes], dimensions: int = DIMENSIONS) -> NDArray[np.float32]:
    """Stored vectors (`pack`) of `dimensions` each as the rows of one matrix, in order (a
    value may hold several, one after another)."""
    import numpy as np

    records = np.frombuffer(b"".join(packed), dtype=_stored(dimensions))
    rows: NDArray[np.float32] = records["steps"].astype(np.float32)
    rows *= records["scale"][:, None]
    return rows


def nearest(
    query: str, ids: Sequence[int], vectors: NDArray[np.float32], count: int
) -> list[tuple[int, float]]:
    """The `count` rows of `vectors` (one per id) nearest the query's vector, as (id, cosine
    similarity), nearest first, ties by id."""
    return top(ids, vectors @ embed_query(query), count)


def top(ids: Sequence[int], similarity: NDArray[np.float32], count: int) -> list[tuple[int, float]]:
    """The `count` ids of highest similarity (one per id), as (id, similarity), highest first,
    ties by id."""
    import numpy as np

    if not ids:
        return []
    among = np.arange(len(ids))
    if count < len(ids):  # those at least as near as the count-th (ties kept), then sorted
        least = np.partition(similarity, len(ids) - count)[len(ids) - count]
        among = np.flatnonzero(similarity >= least)
    chosen = np.asarray(ids)[among]
    order = among[np.lexsort((chosen, -similarity[among]))][:count]
    return [(ids[i], float(similarity[i])) for i in order]
