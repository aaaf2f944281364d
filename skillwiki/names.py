"""What may be a file or folder name inside .wiki/: Unicode letters yes, escapes no."""

from __future__ import annotations

import re
import unicodedata

from skillwiki.errors import InputError

_RESERVED = re.compile(r"^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$", re.IGNORECASE)


# A name's bytes, leaving room below the usual 255 for what skillwiki adds to it: `.md` for
# an article of a non-Markdown file, and `.NAME.PID.RANDOM.tmp` for the file being written.
MAX_NAME_BYTES = 200
MAX_PATH_BYTES = 1024  # a relative path below raw/ or wiki/, well under any PATH_MAX


def check_component(name: str, where: str) -> None:
    """Refuse a path component that could escape .wiki/, hide itself, or break a filesystem."""
    problem = None
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        raise InputError(
            where, f"the name {name!r} is not valid UTF-8 (a lone surrogate); rename it"
        ) from None
    if size > MAX_NAME_BYTES:
        problem = (
            f"the name {name[:40]!r}... is {size} bytes long, over the {MAX_NAME_BYTES} allowed"
        )
    elif name in ("", ".", ".."):
        problem = f"the name {name!r} is not allowed"
    elif "/" in name or "\\" in name:
        problem = f"the name {name!r} contains a path separator"
    elif any(unicodedata.category(char) == "Cc" for char in name):
        problem = f"the name {name!r} contains control characters"
    elif name.startswith((".", "-")):
        problem = f"the name {name!r} starts with {name[0]!r}"
    elif _RESERVED.match(name):
        problem = f"the name {name!r} is reserved on Windows"
    if problem:
        raise InputError(where, problem + "; rename it")


def check_relative(rel: str, where: str) -> None:
    """Refuse a relative path with any component that check_component refuses."""
    size = len(rel.encode("utf-8", errors="surrogatepass"))
    if size > MAX_PATH_BYTES:
        raise InputError(where, f"the path is {size} bytes long, over the {MAX_PATH_BYTES} allowed")
    for part in rel.split("/"):
        check_component(part, where)


def folded(name: str) -> str:
    """A name as a file system that ignores case and Unicode normalization (macOS's, Windows')
    compares it: two names equally folded are one file there (`Guide.md`, `guide.md`)."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


SLUG_BYTES = 120  # a dated lesson file's name and its temp file's stay under 255 bytes


def slugify(text: str, limit: int = 60) -> str:
    """Make a file-name slug that keeps Unicode letters: `Retry on 429!` -> `retry-on-429`.

    At most `limit` characters and SLUG_BYTES bytes of UTF-8 (file names are limited in bytes:
    60 letters of four bytes each are 240), cut at a word's end when one is near.
    """
    kept = [char if unicodedata.category(char)[0] in "LN" else "-" for char in text.lower()]
    slug = re.sub(r"-+", "-", "".join(kept)).strip("-")
    if len(slug) > limit:
        slug = _cut(slug, limit)
    data = slug.encode("utf-8")
    if len(data) > SLUG_BYTES:  # as many whole characters as the bytes hold
        slug = _cut(slug, len(data[:SLUG_BYTES].decode("utf-8", "ignore")))
    return slug.strip("-") or "lesson"


def _cut(slug: str, limit: int) -> str:
    """The first `limit` characters of a slug, at a word's end in the second half if any."""
    cut = slug[: limit + 1]
    return cut[: cut.rfind("-")] if "-" in cut[limit // 2 :] else slug[:limit]
