"""The served workspace the tests of `skillwiki serve` share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.test_serve import Serving, run


@pytest.fixture
def served(demo: Path) -> Iterator[Serving]:
    """The demo workspace, compiled, with a server answering for it."""
    run(demo, "compile", served=False)
    server = Serving(demo)
    yield server
    server.stop()
