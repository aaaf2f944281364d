"""A package's names loaded from their modules on first use (PEP 562's module `__getattr__`).

A package that re-exports its modules' names would otherwise load every module as soon as any
one of them is imported: compile takes `search.snapshot` without the ranking, status takes
`markdown.references` without the reader, a command takes one use-case of `api` without the
others. The package lists each name with the module that defines it; type checkers read the
same names from imports under `TYPE_CHECKING`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from importlib import import_module
from typing import Any


def exports(
    package: str, module_of: Mapping[str, str], modules: Collection[str] = ()
) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: a name of `module_of` is imported from its module the
    first time it is asked for, then kept in the package like any other attribute; so is a
    submodule named in `modules` (`package.module` without importing it first)."""
    namespace = sys.modules[package].__dict__

    def load(name: str) -> Any:
        if name in modules:
            return import_module(f"{package}.{name}")  # the import sets the attribute
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return load
