"""Runtime values: a scalar is a str, a vector a list, a map a dict (insertion-ordered)."""

from __future__ import annotations

from typing import TypeAlias, overload

from engine import ast
from engine.formatter import format_expression, variable_written
from engine.parser import parse_expression

Value: TypeAlias = str | list | dict

KIND_NAMES = {"$": "text", "@": "list", "%": "map"}


def kind(value: Value) -> ast.Sigil:
    """The sigil of a value's kind: ``$``, ``@`` or ``%``."""
    if isinstance(value, list):
        return "@"
    if isinstance(value, dict):
        return "%"
    return "$"


def to_text(value: Value) -> str:
    """A value as text: scalars as they are, lists and maps as OtterScript literals."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "@(" + ", ".join(to_text(item) for item in value) + ")"
    return "%(" + ", ".join(f"{key}: {to_text(item)}" for key, item in value.items()) + ")"


def is_true(value: Value) -> bool:
    """The truth test of a bare condition: the text ``true``, in any case."""
    return isinstance(value, str) and value.strip().lower() == "true"


def to_bool(value: Value) -> bool:
    """An argument given as true/false (also yes/no and 1/0)."""
    return isinstance(value, str) and value.strip().lower() in ("true", "yes", "1")


@overload
def copy_value(value: str) -> str: ...
@overload
def copy_value(value: list) -> list: ...
@overload
def copy_value(value: dict) -> dict: ...
def copy_value(value: Value) -> Value:
    """A deep copy, so that a list or map assigned elsewhere is not changed through both names."""
    if isinstance(value, list):
        return [copy_value(item) for item in value]
    if isinstance(value, dict):
        return {key: copy_value(item) for key, item in value.items()}
    return value


def describe(value: object) -> str:
    """A value for a message: quoted text, true/false, (none); long values cut short."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = to_text(value) if isinstance(value, list | dict | str) else str(value)
    return f"'{text}'" if len(text) <= 60 else f"'{text[:57]}...'"


def as_written(expression: ast.Expression, *, keep_escapes: bool = False) -> str:
    """A value as written, its variables not expanded: a scalar's text with each expansion in
    it as OtterScript writes it; anything else as its literal. With ``keep_escapes`` the
    scalar's escapes stay as written too (`` `$x `` is not ``$x``), for an argument that is not
    expanded (DisableVariableExpansion) because what takes it expands it later (a template)."""
    if not isinstance(expression, ast.Scalar):
        return format_expression(expression, "line")

    def text(part: ast.ScalarPart) -> str:
        assert isinstance(part, ast.Text)
        return part.written if keep_escapes else part.value

    parts = expression.parts
    out = []
    for position, part in enumerate(parts):
        if isinstance(part, ast.Text):
            out.append(text(part))
        elif isinstance(part, ast.VariableRef):
            following = parts[position + 1] if position + 1 < len(parts) else None
            out.append(
                variable_written(part, text(following) if isinstance(following, ast.Text) else "")
            )
        else:
            out.append(format_expression(ast.Scalar(parts=(part,)), "line"))
    return "".join(out)


def literal_value(text: str) -> Value:
    """An OtterScript literal's value (a configuration variable's); expansions in it are kept
    as written."""

    def convert(expression: ast.Expression) -> Value:
        if isinstance(expression, ast.Vector):
            return [convert(item) for item in expression.items]
        if isinstance(expression, ast.Map):
            return {entry.key: convert(entry.value) for entry in expression.entries}
        return as_written(expression)

    return convert(parse_expression(text, "line"))


def literal_text(value: Value) -> str:
    """A run-time value (text, list or map) as the OtterScript literal that reads back as it
    (`literal_value`), written by the formatter: ``@(a, "b, c")``, ``%(port: 80)``, a swim
    string for several lines."""

    def expression(item: Value) -> ast.Expression:
        if isinstance(item, list):
            return ast.Vector(items=tuple(expression(i) for i in item))
        if isinstance(item, dict):
            return ast.Map(
                entries=tuple(ast.MapEntry(key=k, value=expression(v)) for k, v in item.items())
            )
        return ast.Scalar(parts=(ast.Text(value=item),) if item else ())

    return format_expression(expression(value), "line")
