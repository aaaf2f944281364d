"""skillwiki: a repository's institutional memory, kept as reviewable Markdown under .wiki/."""

__version__ = "0.1.0"
# The compiled-article format: a new value makes every article stale, so all are recompiled.
COMPILER = "skillwiki/4"
