"""The hook payloads each client documents (tests/data/clients/), moved to a test's project."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import DATA

CLIENTS = DATA / "clients"
PROJECT = "/home/dev/project"  # where the documented payloads say the project is
TRANSCRIPT = CLIENTS / "claude-code" / "transcript.jsonl"  # three failed calls in a row


def documented(name: str, project: Path, **changes: object) -> str:
    """A documented payload, its project moved to `project`."""
    text = (CLIENTS / name).read_text(encoding="utf-8").replace(PROJECT, str(project))
    return json.dumps({**json.loads(text), **changes})
