"""Optional local semantic search: the `semantic` extra (`pip install 'skillwiki[semantic]'`).

The model is WordLlama's static word vectors (`l2_supercat`, 256 dimensions), which its wheel
carries with its tokenizer, so nothing is ever downloaded. A text's vector is the mean of its
tokens' vectors, scaled to length 1, exactly as `WordLlama.embed(..., norm=True)` computes it
(a test holds the two equal on the real corpora); it is computed here from the wheel's two
files with `tokenizers`, `safetensors` and NumPy, because importing `wordllama` itself costs
half a second (it brings pydantic and requests) and a query must stay quick.

Without the extra, or with SKILLWIKI_SEMANTIC=0, `available()` is False, nothing here imports
anything, and search is the text ranking alone.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MODEL = "wordllama l2_supercat 256"  # kept in the index: vectors of another model are redone
DIMENSIONS = 256
PACKED = 2 * DIMENSIONS  # bytes of a stored vector (`pack`)
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_NEEDED = ("numpy", "safetensors", "tokenizers")


def available() -> bool:
    """Whether semantic search is on: the extra installed and SKILLWIKI_SEMANTIC not 0."""
    if os.environ.get("SKILLWIKI_SEMANTIC", "").strip() in ("0", "false", "no", "off"):
        return False
    return _installed()


@functools.cache
def _installed() -> bool:
    return _package_dir() is not None and all(
        importlib.util.find_spec(name) is not None for name in _NEEDED
    )


def _package_dir() -> Path | None:
    """The installed wordllama package's folder, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder if (folder / _WEIGHTS).is_file() and (folder / _TOKENIZER).is_file() else None


class _Model:
    """The tokenizer and the vector of every token, loaded once per process."""

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / _TOKENIZER))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        # Kept in half precision as stored: a text's rows are widened when it is embedded,
        # exactly as WordLlama widens the whole table first, without paying for all of it.
        self.vectors = np.ascontiguousarray(load_file(str(folder / _WEIGHTS))["embedding.weight"])


@functools.cache
def _model() -> _Model:
    folder = _package_dir()
    if folder is None:
        raise RuntimeError("the semantic extra is not installed")
    return _Model(folder)


def embed(texts: Sequence[str]) -> NDArray[np.float32]:
    """One unit vector per text (a row of zeros for a text with no tokens)."""
    import numpy as np

    model = _model()
    matrix = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    last = model.vectors.shape[0] - 1
    encoded = model.tokenizer.encode_batch(list(texts), add_special_tokens=False)
    for row, encoding in enumerate(encoded):
        if not encoding.ids:
            continue
        ids = np.clip(np.asarray(encoding.ids, dtype=np.int32), 0, last)
        rows = model.vectors[ids].astype(np.float32)
        mean = np.sum(rows, axis=0, dtype=np.float32) / np.float32(len(ids))
        norm = np.linalg.norm(mean)
        matrix[row] = mean / norm if norm else mean
    return matrix


def article_text(title: str, summary: str, body: str) -> str:
    """What of an article is embedded: its title, summary and body up to the Sources the
    compiler adds."""
    cut = body.find("\n## Sources")
    return f"{title}\n{summary}\n{body if cut < 0 else body[:cut]}"


def pack(vector: NDArray[np.float32]) -> bytes:
    """A vector as the index stores it: half precision, 512 bytes."""
    import numpy as np

    return vector.astype(np.float16).tobytes()


def matrix(packed: Sequence[bytes]) -> NDArray[np.float32]:
    """Stored vectors (`pack`) as the rows of one matrix."""
    import numpy as np

    rows = np.frombuffer(b"".join(packed), dtype=np.float16).reshape(len(packed), DIMENSIONS)
    return rows.astype(np.float32)


def nearest(
    query: str, ids: Sequence[int], vectors: NDArray[np.float32], count: int
) -> list[tuple[int, float]]:
    """The `count` rows of `vectors` (one per id) nearest the query's vector, as (id, cosine
    similarity), nearest first, ties by id."""
    return top(ids, vectors @ embed([query])[0], count)


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
