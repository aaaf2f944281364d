"""The old name of the hooks face, skillwiki.hooks, kept only while a test imports it by this
name; nothing in the package imports it. Delete it once no one names it."""

from skillwiki.hooks import *  # noqa: F403
