"""SIGKILL trials, as many as asked: python bench/stress.py --trials 100 [--files 300]

Each trial gives a compile (or a record-lesson) work to do, kills it at a random moment, checks
that every file under .wiki/ is a complete old or new version, then that the next compile makes
the wiki fresh and lint-clean and that queries work. Prints the count of torn files (0 expected).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.crash import main

if __name__ == "__main__":
    main()
