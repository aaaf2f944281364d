"""Render one raw file into its article: a pure function of the raw path and bytes."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from skillwiki import COMPILER, markdown
from skillwiki.fingerprint import fingerprint
from skillwiki.frontmatter.documents import Document, join, optional_str, tags_of
from skillwiki.markdown import references
from skillwiki.workspace import MARKDOWN_SUFFIXES, PARSED_SUFFIXES, article_rel

DOCUMENT_TYPES = ("document", "lesson")
LESSON_KEYS = (
    "id",
    "trigger",
    "severity",
    "scope",
    "agents",
    "category",
    "prevention_rule",
    "paths",
    "status",
    "created",
)
_OWN_KEYS = frozenset(
    {
        "title",
        "type",
        "summary",
        "tags",
        "origin",
        "sources",
        "source_fingerprints",
        "compiled_fingerprint",
        "compiler",
        *LESSON_KEYS,
    }
)
# Text files that compile into a fenced block, with the info string of the fence.
CODE_INFO = {
    ".txt": "text",
    ".text": "text",
    ".log": "text",
    ".rst": "rst",
    ".adoc": "asciidoc",
    ".org": "org",
    ".csv": "csv",
    ".py": "python",
    ".sh": "bash",
    ".bash": "bash",
    ".js": "javascript",
    ".ts": "typescript",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rb": "ruby",
    ".sql": "sql",
    ".html": "html",
    ".css": "css",
    ".xml": "xml",
}
TEXT_SUFFIXES = PARSED_SUFFIXES | frozenset(CODE_INFO)
# Links to these are links to a site's pages, never to an ingested file's article.
_PAGE_SUFFIXES = frozenset({".html", ".htm"})
FOREIGN_TYPE_KEY = "page_type"  # where an author's own `type` (not document/lesson) is kept
SUMMARY_LIMIT = 200
SOURCES_HEADING = "Sources"  # the last section of every article: the raw file it comes from
_FENCE_RUN = re.compile(r"`{3,}|~{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|[。！？]")


@dataclass(frozen=True)
class Rendered:
    """A compiled article: its bytes and the catalog entry that index.json lists.

    `headings`: the text of its headings below the title (what the search index reads), or
    None where they cannot be told without parsing the article itself; `refs` likewise, the
    articles and names it refers to (references.refs).
    """

    text: str
    meta: dict[str, Any]
    headings: tuple[str, ...] | None = None
    refs: tuple[str, ...] | None = None


def render(
    raw_rel: str,
    raw: Document,
    raw_fingerprint: str,
    algorithm: str,
    outline: markdown.Outline | None = None,
) -> Rendered:
    """Compile a parsed raw file into its article (SPEC 2.3)."""
    where = f".wiki/raw/{raw_rel}"
    kind = optional_str(raw.meta, "type", where) or "document"
    foreign = None if kind in DOCUMENT_TYPES else kind
    kind = "document" if foreign is not None else kind
    suffix = PurePosixPath(raw_rel).suffix.lower()
    shape = outline if outline is not None or suffix not in PARSED_SUFFIXES else None
    if shape is None and suffix in PARSED_SUFFIXES:
        shape = markdown.analyze(raw.body, mdx=suffix == ".mdx")
    title = _title(raw_rel, raw, shape, where)
    body = _body(raw_rel, raw, shape, title, where)
    summary = _summary(raw, shape, where) or title
    article_body = _article_body(raw_rel, title, body)
    meta: dict[str, Any] = {
        "title": title,
        "type": kind,
        "summary": summary,
        "tags": tags_of(raw.meta, where),
        "sources": [f"raw/{raw_rel}"],
        "source_fingerprints": [f"raw/{raw_rel}={raw_fingerprint}"],
        "compiled_fingerprint": fingerprint(article_body.encode(), algorithm),
        "compiler": COMPILER,
    }
    meta.update(_carried(raw.meta, kind, foreign))
    headings = _headings(raw.body, shape)
    refs = None if headings is None else _refs(raw_rel, title, shape)
    return Rendered(join(meta, article_body), meta, headings, refs)


def _refs(raw_rel: str, title: str, shape: markdown.Outline | None) -> tuple[str, ...] | None:
    """What the article refers to, read off the raw file's parse: its links as the article
    will hold them (rewritten), the names its code spans start with. A fenced file refers to
    nothing. None where the raw file cannot tell: a link definition some link uses, when the
    title the article drops may be that link (`# [Foo]`)."""
    if shape is None:
        return ()
    leading = shape.leading_h1
    dropped = leading[1] if leading and " ".join(leading[0].split()) == title else 0
    if dropped and any(link.kind == "reference" for link in shape.links):
        return None
    links = [
        (link.kind, rewrite_target(raw_rel, link.target, None))
        for link in shape.links
        if link.line > dropped  # the title the article drops (it has its own) is left out
    ]
    mentions = [word for word, line in shape.mentions if line > dropped]
    return references.refs(links, mentions, article_rel(raw_rel), title)


def _body(
    raw_rel: str, raw: Document, shape: markdown.Outline | None, title: str, where: str
) -> str:
    """The raw body as the article shows it: Markdown with its links rewritten and a leading
    title dropped, anything else fenced as code."""
    if shape is None:
        return _fence(raw.body, CODE_INFO.get(PurePosixPath(raw_rel).suffix.lower(), "text"))
    body = _rewrite_links(raw_rel, raw.body, shape, optional_str(raw.meta, "origin", where))
    body = _drop_leading_title(body, shape, title)
    if shape.open_fence:  # close it, or it swallows the Sources section
        body = body.rstrip("\n") + "\n" + shape.open_fence + "\n"
    return body


def _carried(raw_meta: dict[str, Any], kind: str, foreign: str | None) -> dict[str, Any]:
    """The raw frontmatter the article keeps, in order: a lesson's keys, origin, every key
    compile does not set itself, and the type compile did not know."""
    carried = {key: raw_meta[key] for key in LESSON_KEYS if kind == "lesson" and key in raw_meta}
    if "origin" in raw_meta:
        carried["origin"] = raw_meta["origin"]
    carried.update((key, value) for key, value in raw_meta.items() if key not in _OWN_KEYS)
    if foreign is not None and FOREIGN_TYPE_KEY not in raw_meta:
        carried[FOREIGN_TYPE_KEY] = foreign
    return carried


def _headings(raw_body: str, shape: markdown.Outline | None) -> tuple[str, ...] | None:
    """The article's headings below its title, read off the raw file's parse.

    The article is the raw body (links rewritten, a leading title dropped, an open fence
    closed) between its `# title` and `## Sources`: its headings are the raw file's plus
    Sources. Not so if a block still open at the end of the raw body (an HTML block, say)
    could take in `## Sources`: then None, and whoever needs them parses the article.
    A test holds this equal to parsing the article, on the corpora.
    """
    if shape is None:  # a fenced file: its fence is closed, Sources is the one heading
        return (SOURCES_HEADING,)
    last = raw_body.rstrip("\n").count("\n") + 1
    if any(end >= last for _, end in shape.code):
        return None
    return (*(heading.text for heading in shape.headings if heading.level > 1), SOURCES_HEADING)


def _title(raw_rel: str, raw: Document, shape: markdown.Outline | None, where: str) -> str:
    title = optional_str(raw.meta, "title", where)
    if title is None and shape is not None:
        title = _heading_title(shape)
    if not title:
        title = readable_name(raw_rel)
    return " ".join(title.split())


def _heading_title(shape: markdown.Outline) -> str | None:
    """The heading that names a page with no `title`: its first H1; on a page with no H1, the
    heading it opens with, of any level, if no heading of the page outranks it.

    mdBook's sub-chapters and pages included in others open with `## Name` and hold no H1.
    A page that opens with text, or whose opening heading is a lesser one (`### Note` above
    `## Usage`), is named by its file instead.
    """
    headings = shape.headings
    first_h1 = next((heading for heading in headings if heading.level == 1), None)
    if first_h1 is not None:
        return first_h1.text
    if shape.opens_with_heading and all(h.level >= headings[0].level for h in headings):
        return headings[0].text
    return None


def readable_name(rel: str) -> str:
    """Turn `docs/retry_policy.md` into `Retry policy`."""
    name = PurePosixPath(rel).name
    for suffix in TEXT_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    words = " ".join(re.split(r"[-_\s]+", name)).strip() or name
    return words[:1].upper() + words[1:]


def _summary(raw: Document, shape: markdown.Outline | None, where: str) -> str:
    given = optional_str(raw.meta, "summary", where)
    if given is not None:
        return " ".join(given.split())
    if shape is not None:
        return first_sentence(shape.first_paragraph)
    return first_sentence(_first_text_line(raw.body))


def _first_text_line(text: str) -> str:
    """Return the first line of a plain-text file that has words (not a rule or fence)."""
    for line in text.splitlines():
        cleaned = " ".join(_FENCE_RUN.sub(" ", line).split())
        if cleaned.strip("-=#*~_ "):
            return cleaned
    return ""


def first_sentence(text: str) -> str:
    """Return the first sentence of `text`, at most SUMMARY_LIMIT characters."""
    text = " ".join(text.split())
    end = _SENTENCE_END.search(text)
    sentence = text[: end.end()].strip() if end else text
    if len(sentence) <= SUMMARY_LIMIT:
        return sentence
    cut = sentence[: SUMMARY_LIMIT - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > SUMMARY_LIMIT // 2 else cut).rstrip() + "…"


def _drop_leading_title(body: str, shape: markdown.Outline, title: str) -> str:
    """The body without its leading H1 when that is the title; MyST targets above it stay."""
    leading = shape.leading_h1
    if leading is None or " ".join(leading[0].split()) != title:
        return body
    lines = body.splitlines(keepends=True)
    targets = [line for line in lines[: leading[1]] if markdown.is_target(line)]
    return "".join(targets + lines[leading[1] :])


def _fence(text: str, info: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}\n"


def _article_body(raw_rel: str, title: str, body: str) -> str:
    depth = raw_rel.count("/")
    back = "../" * (depth + 1)
    content = body.strip("\n")
    parts = [f"# {title}\n"]
    if content:
        parts.append(content + "\n")
    parts.append(f"## {SOURCES_HEADING}\n- [raw/{raw_rel}]({file_link(back + 'raw/' + raw_rel)})\n")
    return "\n".join(parts)


def link_destination(path: str) -> str:
    """Write `path` as a Markdown link destination, in <> when it has spaces or parentheses."""
    return f"<{path}>" if re.search(r"[\s()<>]", path) else path


_NOT_IN_A_PATH_LINK = {char: f"%{ord(char):02X}" for char in "%#?<>"}


def file_link(path: str) -> str:
    """A link destination to a file skillwiki names itself (an article, a raw file).

    A file name may hold what a link reads otherwise: `#` starts a fragment, `?` a query, `%`
    an escape, `<` and `>` end an angle-bracket destination. Those are percent-encoded, which
    every Markdown renderer and lint's own link check decode back to the name.
    """
    return link_destination("".join(_NOT_IN_A_PATH_LINK.get(char, char) for char in path))


def _rewrite_links(raw_rel: str, body: str, shape: markdown.Outline, origin: str | None) -> str:
    pieces: list[str] = []
    last = 0
    for link in shape.links:
        if link.kind == "wikilink" or link.start < last:
            continue
        new = rewrite_target(raw_rel, link.target, origin)
        if new != link.target:
            pieces.append(body[last : link.start])
            angled = body.startswith("<", link.start)
            pieces.append(f"<{new}>" if angled else link_destination(new))
            last = link.end
    pieces.append(body[last:])
    return "".join(pieces)


def rewrite_target(raw_rel: str, target: str, origin: str | None) -> str:
    """Return the link target that, from the article, reaches what `target` reached from raw."""
    found = references.relative_target(raw_rel, target)
    if found is None:
        return target
    resolved, path, sep, fragment = found
    suffix = PurePosixPath(resolved).suffix.lower()
    inside_raw = not (resolved.startswith("../") or resolved == "..")
    if inside_raw and (suffix in MARKDOWN_SUFFIXES or suffix in _PAGE_SUFFIXES):
        return target  # the mirror layout: the same path reaches the other article (or page)
    if inside_raw and suffix in TEXT_SUFFIXES:
        return path + ".md" + sep + fragment  # a text file's article has .md appended
    # Anything else (images, files never ingested) stays in the repository: point there.
    if origin is None or origin == "-" or posixpath.isabs(origin) or origin.startswith("../"):
        return target
    in_repo = posixpath.normpath(posixpath.join(posixpath.dirname(origin), unquote(path)))
    if in_repo.startswith("../") or in_repo == "..":
        return target
    up = "../" * (article_rel(raw_rel).count("/") + 2)
    return up + in_repo + sep + fragment
