"""Running SW001 on a workspace as a user would: ingest, then lint's JSON findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support import Invoke

CONFIG = Path(".wiki") / "config.toml"


def sw001(ws: Path, invoke: Invoke) -> list[dict[str, Any]]:
    """The SW001 findings of `lint --format json` on the workspace."""
    result = invoke("lint", "-w", str(ws), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "SW001"]


def ingest(ws: Path, invoke: Invoke, *paths: str) -> None:
    """Ingest the workspace's `paths`, which must succeed."""
    result = invoke("ingest", "-w", str(ws), *(str(ws / path) for path in paths))
    assert result.exit_code == 0, result.output


def sw001_targets(ws: Path, invoke: Invoke) -> list[str]:
    """The targets of the SW001 findings, as written, in the order lint gives them."""
    return [finding["target"] for finding in sw001(ws, invoke)]
