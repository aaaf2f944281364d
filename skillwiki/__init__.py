"""skillwiki: a repository's institutional memory, kept as reviewable Markdown under .wiki/."""

__version__ = "0.1.0"
