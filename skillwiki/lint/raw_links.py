"""The links of raw files, read once for each content and kept between lints.

SW001 names a broken link as the raw file writes it, so it reads the raw file of every article
that has one: on a big tree with many broken links, that is most of a lint the saved report
cannot answer (a file changed since). A raw file whose bytes are those read last time is not
parsed again; what was read is kept in `.wiki/.cache/` beside the facts of each file.
"""

from __future__ import annotations

import marshal
from pathlib import Path

from skillwiki import fsio, markdown
from skillwiki.errors import InputError
from skillwiki.fingerprint import fingerprint
from skillwiki.frontmatter.documents import decode, split

FORMAT = 1  # of the saved links; the caller's version says how they were read (facts.FORMAT)
LinkFacts = tuple[str, str, int, int]  # kind, target as written, line, column


def parse(rel: str, data: bytes) -> list[LinkFacts]:
    """Every link of a raw file: kind, target as written, line, column (none if unreadable)."""
    try:
        text = decode(data, rel, len(data) + 1)
        document = split(text, rel)
    except InputError:
        return []
    offset = text[: len(text) - len(document.body)].count("\n")
    outline = markdown.analyze(document.body, mdx=rel.lower().endswith(".mdx"))
    return [(link.kind, link.target, offset + link.line, link.column) for link in outline.links]


class RawLinks:
    """Raw files' links by path, each with the fingerprint of the bytes they were read from."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[str, list[LinkFacts]]] = {}
        self.changed = False
        self.parsed = 0  # raw files parsed since made: what a warm lint should leave at 0

    def links(self, rel: str, data: bytes) -> list[LinkFacts]:
        """The links of the raw file `rel` whose bytes are `data` (a copy: the caller may
        consume it), parsed only when they are not those read last time."""
        key = fingerprint(data)
        known = self.known.get(rel)
        if known is None or known[0] != key:
            known = (key, parse(rel, data))
            self.known[rel] = known
            self.changed = True
            self.parsed += 1
        return list(known[1])

    def load(self, path: Path, version: int, alive: set[str]) -> None:
        """Take the links saved at `path` by lint's `version` of reading links, of the raw
        files in `alive` only (a missing, damaged or older file is nothing saved); what is
        already known stays where still alive."""
        self.known = {rel: found for rel, found in self.known.items() if rel in alive}
        self.changed = False
        try:
            data = marshal.loads(path.read_bytes())
            if data["format"] != (FORMAT, version):
                return
            for rel, (key, links) in data["files"].items():
                if rel in alive and rel not in self.known:
                    self.known[rel] = (key, [tuple(link) for link in links])
        except (OSError, EOFError, ValueError, TypeError, KeyError):
            return

    def save(self, path: Path, version: int) -> None:
        """Keep what was read for the next lint, if anything new was (a cache: a checkout
        that cannot be written is no error)."""
        if not self.changed:
            return
        files = {rel: self.known[rel] for rel in sorted(self.known)}
        data = {"format": (FORMAT, version), "files": files}
        try:
            fsio.atomic_write(path, marshal.dumps(data))
        except OSError:
            return
        self.changed = False


MEMO = RawLinks()  # one per process: the MCP server's lints share it
