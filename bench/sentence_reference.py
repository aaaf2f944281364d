"""Make tests/data/sentences/reference.json: the token ids and the vectors of a few texts as
the original all-MiniLM-L6-v2 gives them, for tests/search/test_sentences.py to hold the
shipped encoder (int8 ONNX, the vendored vocabulary) against.

The ids are those of the model's own tokenizer.json; the vectors a plain float32 forward pass
of its model.safetensors in NumPy (BERT: embeddings, 6 layers of 12-head attention and a GELU
feed-forward, each with a residual and layer norm), mean-pooled over the tokens and scaled to
length 1, as sentence-transformers computes them.

    python bench/sentence_reference.py MODEL_DIR   # the folder of config.json, tokenizer.json,
                                                   # model.safetensors (the model's own files)
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "sentences" / "reference.json"
TEXTS = REPO / "tests" / "data" / "sentences" / "texts.json"
MAX_TOKENS = 256


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def forward(w: dict[str, np.ndarray], ids: list[int], heads: int, layers: int) -> np.ndarray:
    """The sentence vector of one text's token ids."""
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][: len(ids)]
        + w["embeddings.token_type_embeddings.weight"][0]
    ).astype(np.float64)
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    size = x.shape[1] // heads
    for n in range(layers):
        p = f"encoder.layer.{n}."

        def dense(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return h @ w[p + name + ".weight"].T.astype(np.float64) + w[p + name + ".bias"]

        q, k, v = (
            dense(x, f"attention.self.{name}").reshape(len(ids), heads, size).transpose(1, 0, 2)
            for name in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(len(ids), -1)
        x = _layer_norm(
            dense(context, "attention.output.dense") + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        inner = _gelu(dense(x, "intermediate.dense"))
        x = _layer_norm(
            dense(inner, "output.dense") + x,
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
        )
    mean = x.mean(0)
    return mean / np.linalg.norm(mean)


def main(folder: Path) -> None:
    config = json.loads((folder / "config.json").read_text())
    weights = load_file(str(folder / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    texts = json.loads(TEXTS.read_text(encoding="utf-8"))
    ids = [encoding.ids for encoding in tokenizer.encode_batch(texts)]
    heads, layers = config["num_attention_heads"], config["num_hidden_layers"]
    vectors = [forward(weights, row, heads, layers) for row in ids]
    reference = {
        "model": "sentence-transformers/all-MiniLM-L6-v2, float32, NumPy forward pass",
        "ids": ids,
        "vectors": [[round(float(value), 7) for value in vector] for vector in vectors],
    }
    OUT.write_text(json.dumps(reference) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
