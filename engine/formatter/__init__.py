"""AST -> OtterScript text. The only producer of OtterScript text in the project: canonical text
(``canonical``), or, for a script from the block editor that carries the text it came from, that
text with only the statements added or changed formatted (``kept``)."""

from __future__ import annotations

from engine import ast
from engine.formatter.canonical import (
    INDENT,
    Writer,
    format_condition,
    format_expression,
    format_statement,
    signature,
    variable_written,
)
from engine.formatter.kept import KeptWriter
from engine.limits import nesting_guard

__all__ = [
    "INDENT",
    "format_condition",
    "format_expression",
    "format_script",
    "format_script_changes",
    "format_statement",
    "signature",
    "variable_written",
]


def format_script(script: ast.Script) -> str:
    """The text of a script: canonical, or, for a script from blocks that carries the layout of
    its text (``script.kept``), that text with only its added and changed statements formatted
    (see KeptWriter). OtterSyntaxError for a tree nested deeper than the parser allows (see
    engine.limits)."""
    if script.kept is not None:
        with nesting_guard(script, script.name):
            return KeptWriter(script.kept).script(script)
    writer = Writer()
    for header in script.headers:
        writer.line(0, header)
    if script.headers and script.body:
        writer.blank()
    with nesting_guard(script, script.name):
        writer.body(script.body, 0)
    return writer.text()


def format_script_changes(script: ast.Script) -> tuple[str, list[tuple[str, ast.Statement]]]:
    """The text of a script from blocks that carries the layout of its text (``format_script``),
    and each statement in it written anew (added or changed) with its text, placed after as many
    line breaks and spaces as stand before it in the text (so that positions in it are the
    text's): the parts of the text that do not come from the text kept."""
    if script.kept is None:
        raise ValueError("the script keeps no text: all of it is written anew")
    with nesting_guard(script, script.name):
        writer = KeptWriter(script.kept)
        return writer.script(script), writer.anew()
