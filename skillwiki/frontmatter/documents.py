"""Raw files and articles: decode, split, load frontmatter strictly, dump it deterministically."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, AnyStr, NamedTuple

from skillwiki.errors import EmptyNote, InputError

MAX_TITLE = 500
MAX_SUMMARY = 2_000
MAX_TAGS = 100
MAX_TAG = 100
MAX_LINE = 100_000
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class Document(NamedTuple):
    """A Markdown file split into its frontmatter mapping and its body."""

    meta: dict[str, Any]
    body: str
    has_frontmatter: bool


def decode(data: bytes, where: Path | str, max_bytes: int) -> str:
    """Decode a text file's bytes as UTF-8 (BOM stripped, CRLF to LF) or explain why not."""
    check_size(len(data), where, max_bytes)
    if data.startswith(_UTF16_BOMS):
        raise InputError(where, "file is UTF-16 encoded; save it as UTF-8")
    if b"\x00" in data:
        raise InputError(where, "binary file (contains NUL bytes); only text files can be used")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            where, f"not valid UTF-8 (byte {exc.start}); convert the file to UTF-8"
        ) from None
    return text.replace("\r\n", "\n")


def check_size(size: int, where: Path | str, max_bytes: int) -> None:
    """Refuse a file larger than max_bytes."""
    if size > max_bytes:
        raise InputError(
            where,
            f"file is {size} bytes, over the limit of {max_bytes} "
            "(max_file_bytes in .wiki/config.toml)",
        )


def split(text: str, where: Path | str) -> Document:
    """Split `text` into frontmatter and body with python-frontmatter's handlers.

    YAML between `---` and `---` (or `...`), or TOML between `+++` lines; a block that is
    never closed is no frontmatter (a leading `---` is then a thematic break of the body).
    A text that starts with neither opens no block, and loads no library to be told so; nor
    does the flat frontmatter skillwiki writes (`as_written`).
    """
    if not text.startswith(("---", "+++")):
        return Document({}, text, False)
    written = as_written(text)
    if written is not None:
        return written
    from skillwiki.frontmatter import handlers

    found = handlers.split(text, where)
    if found is None:
        return Document({}, text, False)
    meta, body = found
    return Document(meta, body, True)


def read_flat(source: str) -> dict[str, Any] | None:
    """Read the flat subset skillwiki writes (flat_yaml) as `strict_yaml.load` reads it, or
    return None for anything else.

    A plain scalar YAML's resolvers may type (one starting with flat_yaml.RESOLVED_FIRST: a
    number, a date) is typed by PyYAML's own resolvers, imported for it; no other text loads a
    YAML library. The values are plain by construction: strings, numbers, booleans, None, lists.
    """
    from skillwiki.frontmatter import flat_yaml

    if "&" in source or "*" in source:
        return None  # an anchor or alias is StrictLoader's to refuse
    return flat_yaml.load(source, _typed)


def _typed(raw: str) -> Any:
    from skillwiki.frontmatter.strict_yaml import resolve

    return resolve(raw)


def as_written(text: str) -> Document | None:
    """Split the flat YAML frontmatter skillwiki writes without loading python-frontmatter, or
    return None for any other text (the handlers split it).

    The block is cut as the YAML handler cuts it (its detection, then the library's split on
    its boundary: `fences`) and read by `read_flat`, which the handlers' loader would have
    read it with. tests/test_layers.py holds the two equal over real documentation trees.
    """
    from skillwiki.frontmatter import fences

    if fences.YAML_OPENING.match(text) is None:
        return None
    # The library's `split(text, 2)` on the boundary, its three parts cut from the two first
    # boundaries found: the body is copied once, not twice.
    boundaries = fences.YAML_BOUNDARY.finditer(text)
    opening, closing = next(boundaries, None), next(boundaries, None)
    if opening is None or closing is None:
        return None  # never closed: the handlers say what that is
    meta = read_flat(text[opening.end() : closing.start()])
    if meta is None:
        return None
    start = closing.end() + 1 if text.startswith("\n", closing.end()) else closing.end()
    return Document(meta, text[start:], True)


def body_of(text: AnyStr) -> AnyStr:
    """Return the body of an article skillwiki wrote (`---` YAML frontmatter), unparsed; of
    its text or of its UTF-8 bytes alike (search reads an article's bytes undecoded)."""
    opening, closing_mark = (
        ("---\n", "\n---\n") if isinstance(text, str) else (b"---\n", b"\n---\n")
    )
    if not text.startswith(opening):
        return text
    closing = text.find(closing_mark, 3)
    if closing < 0:
        return text
    return text[closing + 5 :]


def dump_yaml(meta: Mapping[str, Any]) -> str:
    """Dump `meta` in its own key order, block style, one line per scalar: deterministic."""
    from skillwiki.frontmatter import flat_yaml

    flat = flat_yaml.dump(dict(meta))
    if flat is not None:
        return flat
    from skillwiki.frontmatter.strict_yaml import dump

    return dump(dict(meta))


def join(meta: Mapping[str, Any], body: str) -> str:
    """Return a file's text: frontmatter (when there is any) then body."""
    if not meta:
        return body
    return f"---\n{dump_yaml(meta)}---\n{body}"


TAGS_FORM = "a list of strings"  # what lint and errors say a `tags` value must be


def tags_of(meta: Mapping[str, Any], where: Path | str) -> list[str]:
    """Return a note's tags as read_tags reads them; raise InputError for any other value."""
    tags = read_tags(meta.get("tags"))
    if tags is None:
        raise InputError(where, f"frontmatter key 'tags' must be {TAGS_FORM}")
    return tags


def read_tags(value: object) -> list[str] | None:
    """Return the tags a frontmatter `tags` value holds, or None when it is no tag list. The
    one reader of tags, for ingest, compile, search and lint alike: a list of strings (or
    numbers), or one string of tags separated by commas (`tags: deploy, ci`), each trimmed;
    a string without a comma is one tag. Absent is no tags."""
    if value is None:
        return []
    if isinstance(value, str):
        return [tag.strip() for tag in value.split(",") if tag.strip()]
    if isinstance(value, list) and all(isinstance(item, str | int | float) for item in value):
        return [str(item) for item in value]
    return None


def optional_str(meta: Mapping[str, Any], key: str, where: Path | str) -> str | None:
    """Return a frontmatter string value, or None when the key is absent or empty."""
    value = meta.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InputError(where, f"frontmatter key '{key}' must be a string")
    return str(value)


def check_note(meta: Mapping[str, Any], body: str, where: Path | str) -> None:
    """Refuse a note with no content, or with values no person or agent meant to write."""
    if not body.strip() and not meta:
        raise EmptyNote(where, "the file is empty; there is nothing to ingest")
    # What compile reads of the frontmatter, checked before anything is written: a value
    # compile would refuse must not leave a raw file behind it cannot compile.
    for key in ("title", "summary", "type", "origin"):
        optional_str(meta, key, where)
    tags = tags_of(meta, where)
    for key, limit in (("title", MAX_TITLE), ("summary", MAX_SUMMARY)):
        value = meta.get(key)
        if isinstance(value, str) and len(value) > limit:
            raise InputError(
                where, f"frontmatter key '{key}' is {len(value)} characters; at most {limit}"
            )
    if len(tags) > MAX_TAGS:
        raise InputError(where, f"{len(tags)} tags; at most {MAX_TAGS}")
    if any(len(tag) > MAX_TAG for tag in tags):
        raise InputError(where, f"a tag is longer than {MAX_TAG} characters")
    longest = max(body.split("\n"), key=len)
    if len(longest) > MAX_LINE:
        number = body.split("\n").index(longest) + 1
        raise InputError(
            where, f"line {number} of the body is {len(longest)} characters; at most {MAX_LINE}"
        )
