"""The YAML dialect of skillwiki files: safe, strict on input, deterministic on output."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node

from skillwiki.frontmatter import flat_yaml


def _unique_keys(loader: yaml.constructor.SafeConstructor, node: MappingNode) -> None:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
        seen.add(key)


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate keys and aliases, and leaves dates as strings."""

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            # Aliases make "billion laughs" documents possible, and frontmatter never needs them.
            event = cast(Any, self).peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed", event.start_mark
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        _unique_keys(self, node)
        return super().construct_mapping(node, deep=deep)


class _FastLoader(yaml.CSafeLoader):
    """StrictLoader's rules on libyaml's parser, for text that has no anchor or alias."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        _unique_keys(self, node)
        return cast(dict[Any, Any], super().construct_mapping(node, deep=deep))


def load(source: str) -> Any:
    """Load frontmatter YAML with StrictLoader's rules, the cheapest way that is exact.

    Text that could hold an alias (any `&` or `*`) takes the pure-Python loader; anything else
    goes to libyaml, and on any error to the pure-Python loader too: its messages are the ones
    users see. (`documents.read_flat` reads the subset skillwiki writes first, without either.)
    """
    if "&" in source or "*" in source:
        return yaml.load(source, Loader=StrictLoader)  # noqa: S506 - a SafeLoader
    if not getattr(yaml, "__with_libyaml__", False):
        return yaml.load(source, Loader=StrictLoader)  # noqa: S506 - a SafeLoader
    try:
        return yaml.load(source, Loader=_FastLoader)  # noqa: S506 - a CSafeLoader
    except yaml.YAMLError:
        return yaml.load(source, Loader=StrictLoader)  # noqa: S506 - a SafeLoader


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _without_timestamps(
    resolvers: dict[Any, list[tuple[str, Any]]],
) -> dict[Any, list[tuple[str, Any]]]:
    return {
        first: [(tag, regex) for tag, regex in found if tag != "tag:yaml.org,2002:timestamp"]
        for first, found in resolvers.items()
    }


# Dates stay text both ways, so `created: 2026-11-30` round-trips to the same bytes.
StrictLoader.yaml_implicit_resolvers = _without_timestamps(yaml.SafeLoader.yaml_implicit_resolvers)
_FastLoader.yaml_implicit_resolvers = StrictLoader.yaml_implicit_resolvers
_Dumper.yaml_implicit_resolvers = _without_timestamps(yaml.SafeDumper.yaml_implicit_resolvers)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Line breaks other than \n, and characters YAML cannot print, only survive double quotes.
    style = '"' if any(not _plain_char(char) for char in value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _plain_char(char: str) -> bool:
    return (
        char == "\n"
        or ("\x20" <= char <= "\x7e")
        or (
            "\xa0" <= char <= "\U0010ffff"
            and char not in "\u2028\u2029\ufeff"
            and not "\ud800" <= char <= "\udfff"
            and char not in "\ufffe\uffff"
        )
    )


_Dumper.add_representer(str, _represent_str)


def dump(meta: dict[str, Any]) -> str:
    """Dump a mapping in insertion order, block lists, no line folding, Unicode kept."""
    return yaml.dump(
        meta,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )


_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_BUILD = {
    "tag:yaml.org,2002:str": lambda node: node.value,
    "tag:yaml.org,2002:null": lambda node: None,
    "tag:yaml.org,2002:bool": _CONSTRUCTOR.construct_yaml_bool,
    "tag:yaml.org,2002:int": _CONSTRUCTOR.construct_yaml_int,
    "tag:yaml.org,2002:float": _CONSTRUCTOR.construct_yaml_float,
}


@lru_cache(maxsize=8192)  # frontmatter repeats itself: types, compiler, tags, dates
def resolve(raw: str) -> Any:
    """One scalar of the flat subset (see flat_yaml) as `load` would read it, a plain one typed
    by PyYAML's own resolvers; flat_yaml.NO_VALUE when it is not one of plain values, or when
    PyYAML cannot build it (an integer of thousands of digits: `load` says why)."""
    value = flat_yaml.quoted_or_plain(raw)
    if value is not flat_yaml.PLAIN:
        return value
    tag = "tag:yaml.org,2002:str"
    for candidate, pattern in StrictLoader.yaml_implicit_resolvers.get(raw[0], []):
        if pattern.match(raw):
            tag = candidate
            break
    build = _BUILD.get(tag)
    if build is None:
        return flat_yaml.NO_VALUE
    try:
        return build(yaml.ScalarNode(tag, raw))
    except ValueError:
        return flat_yaml.NO_VALUE
