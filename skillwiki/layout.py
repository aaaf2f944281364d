"""Create the .wiki/ layout of SPEC section 1, never touching a file that already exists."""

from __future__ import annotations

from pathlib import Path

from skillwiki import fsio
from skillwiki.compiler import catalog
from skillwiki.errors import InputError
from skillwiki.memory.usage import GITATTRIBUTES
from skillwiki.workspace import Workspace, confined

GITIGNORE = ".cache/\n.lock\n"
LOG_HEADER = (
    "# Operations log\n\nOne line per write, appended by skillwiki; never edit earlier lines.\n\n"
)
CONFIG = """\
# skillwiki settings. Every key is optional; the values shown are the defaults.
# fingerprint = "xxh3"          # or "fnv1a64"
# max_file_bytes = 5000000
# lock_timeout = 30             # seconds a writer waits for another writer

# [lint.rules]
# SW012 = "off"                 # "off", "error" or "warning"

# [lint.links]                  # how a docs site's generator resolves links, for SW001
# root = ""                     # folder where root-relative links (/guide/x) start
# html = false                  # a link to x.html also finds x.md or x.html.md
# directories = false           # x/ or x also finds x.md, x/index.md, x/README.md
# static = []                   # folders served at the site's root too: ["docs/public"]
# ignore = []                   # regular expressions of targets not checked

# [recall]
# budget = 1500
# max_entries = 4
# min_confidence = 0.2

# [lessons]
# require_review = false
"""


def init_workspace(root: Path) -> tuple[Workspace, list[str]]:
    """Create whatever part of the layout is missing; return the paths created."""
    if not root.is_dir():
        raise InputError(root, "is not a directory; create it first or pick another")
    ws = confined(Workspace(root.resolve()))
    created: list[str] = []
    try:
        for folder in (ws.dot, ws.raw, ws.wiki):
            if not folder.is_dir():
                fsio.make_dirs(folder)
                created.append(ws.rel(folder) + "/")
        index_md, index_json = catalog.render({})
        files = {
            ws.dot / ".gitignore": GITIGNORE.encode(),
            ws.dot / ".gitattributes": GITATTRIBUTES.encode(),
            ws.config_file: CONFIG.encode(),
            ws.index_md: index_md,
            ws.index_json: index_json,
            ws.log_md: LOG_HEADER.encode(),
        }
        for path, data in files.items():
            if not path.exists():
                fsio.atomic_write(path, data)
                created.append(ws.rel(path))
    except PermissionError:
        raise InputError(root, "cannot create .wiki/ here (permission denied)") from None
    return ws, created
