"""A deterministic synthetic wiki: N Markdown notes with frontmatter, headings and links.

The same (count, seed) always gives the same bytes, so figures are comparable across runs.
"""

from __future__ import annotations

import random
from pathlib import Path

WORDS = (
    "agent tool call retry backoff timeout cache index query search compile article lesson "
    "config deploy release build test lint review merge branch commit rollback service queue "
    "worker schedule budget cost token prompt model latency error failure permission network "
    "storage disk memory thread lock file folder path link heading summary title tag category "
    "owner team incident alert metric trace log debug profile benchmark migrate schema table "
    "record field value parse render format encode decode compress archive extract upload "
    "download sync backup restore monitor dashboard threshold policy limit quota region zone"
).split()
FOLDER_SIZE = 500


def _sentence(rng: random.Random, low: int = 6, high: int = 16) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def _name(index: int) -> str:
    return f"notes/{index // FOLDER_SIZE:03d}/note-{index:06d}.md"


def note(index: int, count: int, rng: random.Random) -> str:
    """Return the text of note `index` of `count`."""
    title = " ".join(rng.choice(WORDS) for _ in range(3)).title() + f" {index}"
    tags = sorted({rng.choice(WORDS) for _ in range(rng.randint(1, 4))})
    lines = [
        "---",
        f"title: {title}",
        f"summary: {_sentence(rng)}",
        f"tags: [{', '.join(tags)}]",
        "---",
        f"# {title}",
        "",
        " ".join(_sentence(rng) for _ in range(3)),
        "",
    ]
    for section in range(rng.randint(2, 4)):
        lines += [f"## {rng.choice(WORDS).title()} {section}", ""]
        lines += [" ".join(_sentence(rng) for _ in range(rng.randint(2, 5))), ""]
        other = rng.randrange(count)
        here = Path(_name(index)).parent
        target = Path(_name(other))
        relative = Path(*([".."] * len(here.parts)), target).as_posix()
        lines += [f"See [{target.stem}]({relative}) and - {_sentence(rng, 3, 6)}", ""]
    lines += ["- " + _sentence(rng, 4, 8) for _ in range(rng.randint(1, 4))]
    return "\n".join(lines) + "\n"


def generate(folder: Path, count: int, seed: int = 7) -> int:
    """Write `count` notes under `folder`; return the bytes written."""
    rng = random.Random(seed)
    total = 0
    for index in range(count):
        path = folder / _name(index)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = note(index, count, rng).encode()
        path.write_bytes(data)
        total += len(data)
    return total
