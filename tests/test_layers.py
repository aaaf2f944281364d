"""The package's layers: frontmatter split once, by the library, and no import running back up."""

from __future__ import annotations

from typing import Any

import pytest

from skillwiki import _flatyaml
from skillwiki.documents import split

# One row per shape of frontmatter: its text, then what it holds (None: it is no frontmatter).
SHAPES: list[tuple[str, str, dict[str, Any] | None]] = [
    (
        "as skillwiki writes it",
        "---\ntitle: A\ntags:\n  - x\n---\nBody.\n",
        {"title": "A", "tags": ["x"]},
    ),
    ("a number", "---\ntitle: A\nyear: 2026\n---\nBody.\n", {"title": "A", "year": 2026}),
    ("a date", "---\ncreated: 2026-11-30\n---\nBody.\n", {"created": "2026-11-30"}),
    ("a flow list", "---\ntags: [x, y]\n---\nBody.\n", {"tags": ["x", "y"]}),
    ("a nested mapping", "---\nauthor:\n  name: A\n---\nBody.\n", {"author": {"name": "A"}}),
    ("closed by YAML's document end", "---\ntitle: A\n...\nBody.\n", {"title": "A"}),
    ("spaces after the fences", "---  \ntitle: A\n--- \nBody.\n", {"title": "A"}),
    ("an empty block", "---\n---\nBody.\n", {}),
    ("TOML", '+++\ntitle = "A"\n+++\nBody.\n', {"title": "A"}),
    ("a block never closed", "---\ntitle: A\nBody.\n", None),
]


@pytest.mark.parametrize(
    ("text", "meta"), [row[1:] for row in SHAPES], ids=[row[0] for row in SHAPES]
)
def test_frontmatter_is_split_once_by_the_library(
    monkeypatch: pytest.MonkeyPatch, text: str, meta: dict[str, Any] | None
) -> None:
    """python-frontmatter's handler cuts the block, and the flat reader runs once at most."""
    from frontmatter.default_handlers import BaseHandler

    splits: list[str] = []
    flat_reads: list[str] = []
    library_split = BaseHandler.split
    flat_load = _flatyaml.load

    def counted_split(self: BaseHandler, whole: str) -> tuple[str, str]:
        splits.append(whole)
        return library_split(self, whole)

    def counted_load(source: str, resolve: Any = None) -> Any:
        flat_reads.append(source)
        return flat_load(source, resolve)

    monkeypatch.setattr(BaseHandler, "split", counted_split)
    monkeypatch.setattr(_flatyaml, "load", counted_load)
    document = split(text, "note.md")
    assert (len(splits), len(flat_reads) <= 1) == (1, True)
    if meta is None:
        assert (document.has_frontmatter, document.meta, document.body) == (False, {}, text)
    else:
        assert (document.has_frontmatter, document.meta, document.body) == (True, meta, "Body.\n")


def test_a_text_without_a_fence_loads_no_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from skillwiki.documents import split\n"
        "document = split('# Title\\n\\n---\\n\\nBody.\\n', 'note.md')\n"
        "print(document.has_frontmatter, sorted({'frontmatter', 'yaml'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False []\n"
