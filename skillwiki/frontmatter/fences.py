"""Where a frontmatter block opens and closes: the boundaries the handlers split on.

A block opens on the file's first line, `---` or `+++` alone (spaces after it allowed), and
closes on a later line of the same kind (YAML's document end `...` closes YAML too). Kept
apart from the handlers so that reading the frontmatter skillwiki writes needs no library.
"""

from __future__ import annotations

import re

YAML_OPENING = re.compile(r"---[ \t]*$", re.MULTILINE)
YAML_BOUNDARY = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
TOML_BOUNDARY = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
