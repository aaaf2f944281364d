"""The two places skillwiki reaches into Typer's private parts (skillwiki.cli.coerce), pinned:
what each relies on must hold at both ends of the declared range of `typer`, else these fail
(rather than the CLI silently falling back to pydantic, or the suite to building the command
on every invoke)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.core
import typer.main
import typer.testing

from skillwiki.api import ArticleType
from skillwiki.cli import coerce
from skillwiki.cli.app import app, one_line

# A parameter of `query` of each simple type, the text a command line gives it, and the value
# the plain coercer must make of it (through Typer's own processing of the parameter).
PARAMETERS = [
    ("text", "agent tools", "agent tools"),
    ("limit", "3", 3),
    ("kind", "lesson", ArticleType("lesson")),
    ("tag", ("a", "b"), ["a", "b"]),
    ("explain", "yes", True),
    ("workspace", "some/where", Path("some/where")),
]


def _query() -> tuple[Any, Any]:
    """The `query` command as Typer builds it, and a context of it (the Click Typer uses)."""
    group: Any = typer.main.get_command(app)
    top = group.context_class(group)
    command = group.get_command(top, "query")
    assert command is not None
    return command, command.context_class(command, parent=top)


@pytest.mark.parametrize(("name", "given", "expected"), PARAMETERS, ids=[r[0] for r in PARAMETERS])
def test_a_simple_parameter_is_coerced_by_the_plain_coercer(
    name: str, given: Any, expected: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typer returns the coercer set on `_runtime_param` from get_runtime_param, and coerces
    every value through it: the coercer is called and its value is the parameter's."""
    calls: list[Any] = []
    plain = coerce.PlainCoercer.coerce

    def counted(self: coerce.PlainCoercer, value: Any, param: Any, ctx: Any) -> Any:
        calls.append(value)
        return plain(self, value, param, ctx)

    monkeypatch.setattr(coerce.PlainCoercer, "coerce", counted)
    command, ctx = _query()
    (param,) = [param for param in command.get_params(ctx) if param.name == name]
    set_on = param._runtime_param
    assert isinstance(set_on, coerce.PlainCoercer)
    assert param.get_runtime_param() is set_on
    assert param.process_value(ctx, given) == expected
    assert calls == [given]


def test_the_hook_the_plain_coercer_takes_is_typers() -> None:
    """The private attribute, and the call through it, as Typer has them."""
    source = inspect.getsource(typer.core)
    assert "_runtime_param: RuntimeParam | None" in source
    assert "self.get_runtime_param().coerce(value, param=self, ctx=ctx)" in source


def test_built_once_reuses_one_command_and_puts_typers_back() -> None:
    """CliRunner.invoke turns the app into its command through typer.testing._get_command;
    within built_once that is one command for every invoke, after it Typer's own again."""
    assert "_get_command(app)" in inspect.getsource(typer.testing.CliRunner.invoke)
    before = typer.testing._get_command  # type: ignore[attr-defined]
    other = typer.Typer()
    other.command()(lambda: None)
    with coerce.built_once(app):
        turn = typer.testing._get_command  # type: ignore[attr-defined]
        assert turn(app) is turn(app)
        assert turn(other) is not turn(other)
        result = typer.testing.CliRunner().invoke(app, ["--version"])
        assert result.exit_code == 0 and result.output.strip()
    assert typer.testing._get_command is before  # type: ignore[attr-defined]


def test_usage_error_is_the_class_typers_parsing_raises() -> None:
    """An unknown option, as Typer's Click reports it, is a `coerce.UsageError` carrying the
    context and message that `app.one_line` turns into one line."""
    group: Any = typer.main.get_command(app)
    assert issubclass(typer.BadParameter, coerce.UsageError)
    with pytest.raises(coerce.UsageError) as raised:
        typer.core.TyperGroup.make_context(group, "skillwiki", ["--no-such-option"])
    assert raised.value.ctx is not None and raised.value.exit_code == 2
    assert raised.value.format_message() == "No such option: --no-such-option"
    plain = one_line(raised.value)
    assert isinstance(plain, coerce.UsageError) and plain.ctx is None and plain.exit_code == 2
    assert plain.format_message() == "No such option: --no-such-option (see 'skillwiki --help')"
