"""Turn command-line strings into parameter values without building pydantic adapters.

Typer (0.29 and later) coerces every parameter through a pydantic TypeAdapter, built lazily
when a command runs: importing pydantic and building the adapters costs more than the whole
work of a query. Our parameters only use str, int, float, Path, str enums and lists of them,
so for those we give Typer a plain coercer before it builds its own. Typer calls
`param.get_runtime_param().coerce(value, param=..., ctx=...)`; a parameter of any other type,
or a Typer without that hook, keeps Typer's own coercion.

This is the one module that reaches into Typer's private parts, each seam pinned by
tests/test_typer_seams.py at both ends of the declared range of `typer`: the coercer is
set on a parameter's private `_runtime_param`, which `get_runtime_param` returns when set;
and `built_once` has Typer's CliRunner reuse one command instead of building it anew on
every invoke (through `typer.testing._get_command`, which no public API replaces); and
`UsageError`, the class of Click's usage errors in the Click Typer carries, which Typer does not
export, reached as the base of the `typer.BadParameter` it does export.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import typer
from typer.core import TyperCommand, TyperGroup

Convert = Callable[[Any, Any], Any]
UsageError: Any = next(base for base in typer.BadParameter.__mro__ if base.__name__ == "UsageError")


class PlainCoercer:
    """What Typer's RuntimeParam offers (`coerce`), for simple types."""

    def __init__(self, convert: Convert) -> None:
        self._convert = convert

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        many = bool(param.multiple) or param.nargs == -1
        if value is None:
            return () if many else None
        if many:
            if isinstance(value, str):
                raise typer.BadParameter("Value must be an iterable.", ctx=ctx, param=param)
            return [self._convert(item, param) for item in value]
        return self._convert(value, param)


class FastGroup(TyperGroup):
    """A TyperGroup whose simple parameters skip pydantic."""

    def get_params(self, ctx: Any) -> Any:
        return speed_up(super().get_params(ctx))


class FastCommand(TyperCommand):
    """A TyperCommand whose simple parameters skip pydantic."""

    def get_params(self, ctx: Any) -> Any:
        return speed_up(super().get_params(ctx))


def speed_up(params: list[Any]) -> list[Any]:
    """Give each simple parameter a plain coercer (idempotent); return the same list."""
    for param in params:
        if getattr(param, "_runtime_param", "absent") is not None:
            continue  # already set, or a Typer without the hook
        descriptor = getattr(param, "type_descriptor", None)
        annotation = getattr(descriptor, "annotation", None)
        info = getattr(descriptor, "parameter_info", None)
        if annotation is None or info is None or getattr(info, "parser", None) is not None:
            continue
        if get_origin(annotation) is list:
            (annotation,) = get_args(annotation) or (None,)
        convert = _converter(annotation, info)
        if convert is not None:
            param._runtime_param = PlainCoercer(convert)
    return params


@contextmanager
def built_once(app: typer.Typer) -> Iterator[None]:
    """Have typer.testing's CliRunner turn `app` into its command once, for as long as this
    lasts (Typer builds it anew on every invoke: for a whole app, a third of a test suite's
    time). A Typer without that hook builds it on every invoke, as before."""
    import typer.testing

    testing: Any = typer.testing
    turn = getattr(testing, "_get_command", None)
    if turn is None:
        yield
        return
    built = turn(app)
    testing._get_command = lambda given: built if given is app else turn(given)
    try:
        yield
    finally:
        testing._get_command = turn


def _converter(annotation: Any, info: Any) -> Convert | None:
    if annotation is bool:
        return _to_bool
    if annotation is str:
        return _to_str
    if annotation is Path:
        return lambda value, param: Path(_to_str(value, param))
    if annotation in (int, float) and not getattr(info, "clamp", False):
        return _number(annotation, getattr(info, "min", None), getattr(info, "max", None))
    if isinstance(annotation, type) and issubclass(annotation, Enum) and str in annotation.__mro__:
        return _choice(annotation)
    return None


def _to_bool(value: Any, param: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = _to_str(value, param).strip().lower()
    if text in ("1", "true", "t", "yes", "y", "on"):
        return True
    if text in ("0", "false", "f", "no", "n", "off"):
        return False
    raise typer.BadParameter(f"{value!r} is not a valid boolean.", param=param)


def _to_str(value: Any, param: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _number(kind: type, low: float | None, high: float | None) -> Convert:
    name = "integer" if kind is int else "number"

    def convert(value: Any, param: Any) -> Any:
        try:
            number = kind(value)
        except (TypeError, ValueError):
            raise typer.BadParameter(f"{value!r} is not a valid {name}.", param=param) from None
        if (low is not None and number < low) or (high is not None and number > high):
            span = f"{'' if low is None else f'{low}<='}x{'' if high is None else f'<={high}'}"
            raise typer.BadParameter(f"{number} is not in the range {span}.", param=param)
        return number

    return convert


def _choice(enum: type[Enum]) -> Convert:
    def convert(value: Any, param: Any) -> Any:
        if isinstance(value, enum):
            return value
        try:
            return enum(_to_str(value, param))
        except ValueError:
            allowed = ", ".join(repr(member.value) for member in enum)
            raise typer.BadParameter(f"{value!r} is not one of {allowed}.", param=param) from None

    return convert
