"""Text -> AST: the lark parser with the builder embedded, and the functions that run it."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark
from lark.exceptions import UnexpectedEOF, UnexpectedInput

from engine import ast
from engine.errors import OtterSyntaxError
from engine.limits import nesting_problem
from engine.parser.builder import Builder
from engine.parser.comments import collect_comment
from engine.parser.context import parsing
from engine.parser.recovery import recover, report_unexpected
from engine.spans import span_at

GRAMMAR_PATH = Path(__file__).parent.parent / "grammar" / "otterscript.lark"
# Where a lone value can be parsed from, by the formatter's names for places.
VALUE_RULES = {
    "argument": "expression",
    "line": "line_value",
    "positional": "positional_value",
    "context": "context_value",
    "default": "default_value",
}
START_RULES = ["start", "text_body", "condition", *VALUE_RULES.values()]


def _lark(**options: Any) -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        start=START_RULES,
        **options,
    )


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return _lark(
        transformer=Builder(),
        maybe_placeholders=False,
        lexer_callbacks={"COMMENT": collect_comment},
        cache=False,
    )


def _build(text: str, start: str, **options: Any) -> Any:
    """What the builder makes of ``text`` from the rule ``start`` (lark types every parse as
    giving a tree; with a builder embedded it gives AST nodes)."""
    return _parser().parse(text, start=start, **options)


def tree_parser() -> Lark:
    """The same grammar building only lark's parse tree (for the benchmark's baseline)."""
    return _lark()


def _parse_body(body: str) -> list[ast.ScalarPart]:
    """The parts of a string's body that holds more than text, variables and escapes."""
    try:
        return _build(body, "text_body")
    except UnexpectedInput as error:
        report_unexpected(error, body)
        return [ast.Text(value=body)]


def _run(text: str, start: str, name: str) -> Any:
    if not isinstance(text, str):
        raise TypeError("OtterScript text must be a str")
    result = None
    with parsing(text, _parse_body) as ctx:
        try:
            result = _build(text, start, on_error=recover)
            problem = nesting_problem(result) if result is not None else None
            if problem is not None:
                ctx.diagnostics.append(problem)
        except UnexpectedInput as error:
            if not any(d.is_error for d in ctx.diagnostics):
                report_unexpected(error, text)
        except RecursionError:
            ctx.report(span_at(text, 0, 1), "the script is nested too deeply to parse")
        except (UnexpectedEOF, Exception) as error:
            ctx.report(
                span_at(text, 0, 1),
                f"internal parser error ({type(error).__name__}: {error}); please report this script",
            )
    errors = [d for d in ctx.diagnostics if d.is_error]
    if errors:
        # warnings after the first error are mostly echoes of it
        first = min((d.line, d.column) for d in errors)
        ctx.diagnostics = [d for d in ctx.diagnostics if d.is_error or (d.line, d.column) < first]
    if errors or result is None:
        if not errors:
            ctx.report(span_at(text, 0, 1), "the script could not be parsed")
        raise OtterSyntaxError(ctx.diagnostics, name=name, text=text)
    return result, ctx


def parse(text: str, name: str = "<script>") -> ast.Script:
    """Parse OtterScript text. Raises OtterSyntaxError with every diagnostic found; warnings of a
    script that parses are on ``script.warnings``."""
    script, ctx = _run(text, "start", name)
    return replace(script, name=name, warnings=tuple(ctx.diagnostics))


def parse_expression(text: str, place: str = "argument") -> ast.Expression:
    """Parse one value as it would stand in ``place`` (an argument value by default), e.g.
    ``@(a, b)`` or ``$F(x) text``. The places are those of ``engine.formatter``."""
    if place not in VALUE_RULES:
        raise ValueError(f"unknown place {place!r}; expected one of {', '.join(VALUE_RULES)}")
    return _run(text, VALUE_RULES[place], "<expression>")[0]


def parse_text(text: str) -> ast.Scalar:
    """Parse free text with expansions, as the body of a swim string (templates, $Eval)."""
    return ast.Scalar(parts=tuple(_run(text, "text_body", "<text>")[0]), style="swim")


def parse_condition(text: str) -> ast.Predicate:
    """Parse an ``if`` condition: ``$a == b && !$c``."""
    return _run(text, "condition", "<condition>")[0]
