"""Frontmatter: split by python-frontmatter's handlers, loaded strictly, written flat."""
