"""Text -> AST: the lark parser with the builder embedded, and the functions that run it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.exceptions import UnexpectedEOF, UnexpectedInput

from engine import ast
from engine.errors import Diagnostic, OtterSyntaxError
from engine.limits import MAX_NESTING, nesting_problem
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
    "index": "index_value",
}
START_RULES = ["start", "text_body", "condition", *VALUE_RULES.values()]

# The characters that open a level of nesting in the text: a block's {; the ( of a call, a list,
# a map or $( ); an index's [ or .key; a condition's !, &&, ||, == and !=.
LEVEL_OPENERS = re.compile(r"[{(\[.!&|=]")
# A statement with this many of them or fewer cannot nest past MAX_NESTING (see below).
_FEW_OPENERS = (MAX_NESTING - 2) // 2


def _lark(**options: Any) -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        start=START_RULES,
        **options,
    )


# The options of the parser that its tables depend on (the others are given when it is loaded).
TABLE_OPTIONS: dict[str, Any] = {"maybe_placeholders": False}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    callbacks: dict[str, Any] = {
        "transformer": Builder(),
        "lexer_callbacks": {"COMMENT": collect_comment},
    }
    tables = _tables_file()
    unusable = (OSError, EOFError, pickle.UnpicklingError, KeyError, ValueError)
    with contextlib.suppress(*unusable), tables.open("rb") as file:
        # as lark loads its own cache: the saved tables, with the callbacks of this process
        return Lark.__new__(Lark)._load(file, **callbacks)
    parser = _lark(**TABLE_OPTIONS, **callbacks)
    # written under a name of this process's, then renamed into place: a process starting
    # meanwhile finds no file or a whole one
    made = tables.with_name(f"{tables.name}.{os.getpid()}")
    try:
        tables.parent.mkdir(exist_ok=True)
        with made.open("wb") as file:
            parser.save(file, exclude_options=tuple(callbacks))
        os.replace(made, tables)
    except OSError:  # an installation it may not write to: built at each start
        made.unlink(missing_ok=True)
    return parser


def _tables_file() -> Path:
    """Where the parser's tables are kept between processes (building them is 0.3 s of every
    start): in the grammar's ``__pycache__``, as Python keeps compiled modules there; whoever
    may write there may already change the code. Its name follows the grammar, the options,
    lark's version and Python's."""
    digest = hashlib.sha256(
        GRAMMAR_PATH.read_bytes()
        + repr((sorted(TABLE_OPTIONS.items()), START_RULES, lark.__version__)).encode()
        + str(sys.version_info[:2]).encode()
    ).hexdigest()[:16]
    return GRAMMAR_PATH.parent / "__pycache__" / f"otterscript.{digest}.lark-tables"


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


def _openers(text: str, start: int, end: int) -> int:
    return len(LEVEL_OPENERS.findall(text, start, end))


def _surely_shallow(result: Any, text: str, diagnostics: list[Diagnostic]) -> bool:
    """Whether ``result``, parsed from ``text`` without errors, nests MAX_NESTING levels or fewer,
    told from the text without walking the tree (the walk cost a tenth of a parse).

    Below a statement, every level of nesting opens with a character of its own in the
    statement's text (LEVEL_OPENERS: a statement inside a block with the block's ``{``, a call
    with its ``(``...), but for the interpolation around an element followed by text
    (``%item[Id] and more``): it shares the opener of the element inside it or, around a bare
    ``@list``, is the last level of its branch. So a statement whose text holds n openers nests
    at most 1 + 2n + 1 levels, and a lone value likewise; a statement shorter than n characters
    holds fewer than n. A parse with errors is walked: its recovered nodes may stand where their
    text does not."""
    if any(diagnostic.is_error for diagnostic in diagnostics):
        return False
    if not isinstance(result, ast.Script):
        return _openers(text, 0, len(text)) <= _FEW_OPENERS
    for statement in result.body:
        span = statement.span
        if span is None:
            return False
        start, end = span.start, span.end
        if end - start > _FEW_OPENERS and _openers(text, start, end) > _FEW_OPENERS:
            return False
    return True


def _run(text: str, start: str, name: str) -> Any:
    if not isinstance(text, str):
        raise TypeError("OtterScript text must be a str")
    result = None
    with parsing(text, _parse_body) as ctx:
        try:
            result = _build(text, start, on_error=recover)
            problem = None
            if result is not None and not _surely_shallow(result, text, ctx.diagnostics):
                problem = nesting_problem(result)
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
