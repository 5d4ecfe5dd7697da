"""The canonical text of statements, values and conditions (the formatter's first half; see
engine/formatter/__init__.py).

Canonical form: 4-space indent, one statement per line, braces and argument-list parentheses on
lines of their own as in Inedo's samples, descriptions and comments where they were, at most
one blank line between statements. A string keeps the quoting its author chose where that is
still valid, and otherwise takes the plainest form that reads back the same; its escapes stay as
written.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

from engine import ast
from engine.limits import nesting_guard
from engine.parser.strings import ESCAPES
from engine.visitor import Visitor

INDENT = "    "

# Where a value stands decides which characters end an unquoted (implicit) string.
Place = Literal["argument", "line", "positional", "condition", "context", "default", "index"]

STOPPERS: dict[str, re.Pattern[str]] = {
    "argument": re.compile(r"[,()\n\r]"),
    "line": re.compile(r"[;\n\r]"),
    "positional": re.compile(r"[;(\n\r{}]"),
    "condition": re.compile(r"[(){}\n\r]|==|!=|&&|\|\|"),
    "context": re.compile(r"[{\n\r]"),
    "default": re.compile(r"[,>\n\r]"),
    "index": re.compile(r"[\]\n\r]"),
}
# Text that must not start an implicit string: blanks, quotes, a list or map sigil, a swim
# sentinel, something that reads as a comment.
BAD_START = re.compile(r"""[\s"']|[@%][A-Za-z({]|>[^>\s]{0,5}>|#|//|/\*|::""")
CONDITION_BAD_START = re.compile(r"!")
COMMENT_INSIDE = re.compile(r"[ \t](#|//|/\*)([ \t]|$)")
ENDS_TEXT = re.compile(r"(#|//|/\*)([ \t]|$)")  # a comment that implicit text stops at
SIMPLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
NAME_CHAR = re.compile(r"[A-Za-z0-9_(]")
DOT_KEY = re.compile(r"[A-Za-z0-9_]+\Z")
SWIM = re.compile(r">(?P<fish>[^>\s]{0,5})>[\s\S]*?>(?P=fish)>(?!>)")
SENTINELS = (">>", ">->", ">-->", ">--->", ">---->", ">----->", ">=>", ">==>", ">~~>", ">|>")
# A text as the script writes it: an escape, a run of characters, or a grave that escapes nothing
# (only in a tree made by hand).
WRITTEN_PIECE = re.compile(r"`([^\n])|[^`]+|`")


def format_statement(statement: ast.Statement, indent: int = 0) -> str:
    writer = Writer()
    with nesting_guard(statement):
        writer.statement(statement, indent)
    return writer.text()


def signature(statement: ast.Statement) -> str:
    """A short digest of a statement's canonical text with its bodies left empty (its head: its
    description, its own fields, the clauses of an ``if``, its trailing comment): text kept for
    the statement stands for it only while its signature is the same (``ast.Kept``)."""
    writer = Writer(shallow=True)
    writer.statement(statement, 0)
    text = "\n".join(writer.lines).encode("utf-8", "surrogatepass")
    return base64.urlsafe_b64encode(hashlib.blake2b(text, digest_size=9).digest()).decode()


def format_expression(expression: ast.Expression, place: Place = "argument") -> str:
    """The text of a value as it would stand in ``place`` (an argument value by default)."""
    return _expression(expression, place, "")


def format_condition(predicate: ast.Predicate) -> str:
    return _predicate(predicate, 0)


# ---- values -----------------------------------------------------------------------------------
# ``pad`` is the indentation of the line a value stands on: a swim string over lines closes there.


def _expression(expression: ast.Expression, place: str, pad: str) -> str:
    if isinstance(expression, ast.Scalar):
        return _scalar(expression, place, pad)
    if isinstance(expression, ast.VariableRef):
        return _variable(expression)
    if isinstance(expression, ast.FunctionCall):
        return _call(expression, pad)
    if isinstance(expression, ast.Vector):
        return (
            "@(" + ", ".join(_expression(item, "argument", pad) for item in expression.items) + ")"
        )
    if isinstance(expression, ast.Map):
        entries = (
            f"{entry.key}: {_expression(entry.value, 'argument', pad)}"
            for entry in expression.entries
        )
        return "%(" + ", ".join(entries) + ")"
    if isinstance(expression, ast.Index):
        return _index(expression, pad)
    raise TypeError(f"not an expression: {type(expression).__name__}")


def _variable(variable: ast.VariableRef) -> str:
    if SIMPLE_NAME.match(variable.name):
        return f"{variable.sigil}{variable.name}"
    return f"{variable.sigil}{{{variable.name}}}"


def _call(call: ast.FunctionCall, pad: str) -> str:
    args = ", ".join(_expression(arg, "argument", pad) for arg in call.args)
    return f"{call.sigil}{call.name}({args})"


def _index(index: ast.Index, pad: str) -> str:
    target = _expression(index.target, "argument", pad)
    key = index.key
    if index.dotted and isinstance(key, ast.Scalar):
        literal = key.literal
        if literal is not None and DOT_KEY.match(literal):
            return f"{target}.{literal}"
    return f"{target}[{_expression(key, 'index', pad)}]"


# Set while the expansions of a quoted string are written: a quoted string ends at a line break,
# so what stands in its $(…) or function arguments must not be a swim string over lines.
_IN_QUOTES: ContextVar[bool] = ContextVar("in_quotes", default=False)


@contextmanager
def _in_quotes() -> Iterator[None]:
    token = _IN_QUOTES.set(True)
    try:
        yield
    finally:
        _IN_QUOTES.reset(token)


# ---- text ---------------------------------------------------------------------------------------
# A text the script writes with escapes (ast.Text.escaped) keeps them: an argument that is not
# expanded reaches what takes it as written, so `<`%` in a template's Literal is no tag, and `"`
# inside a tag no quote. Only the escapes the formatter makes anyway are written its way, as in
# any text: `$ and `` always, `n `t `r as escapes or, in a swim string, as the characters. What
# the formatter decides from a text (its quote, whether it may stand unquoted) it decides from
# the characters outside the escapes it keeps, which the reader reads as escapes wherever they
# stand.


def _pieces(text: ast.Text) -> tuple[tuple[str, bool], ...]:
    """The text in pieces: (characters, False), written as the quoting needs, or (an escape,
    True), written as the script wrote it."""
    if text.escaped is None:
        return ((text.value, False),)
    pieces: list[tuple[str, bool]] = []
    bare: list[str] = []
    for match in WRITTEN_PIECE.finditer(text.escaped):
        char = match.group(1)
        if char is None:
            bare.append(match.group())
        elif char in ESCAPES or char in "$`" or not char.isprintable():
            bare.append(ESCAPES.get(char, char))
        else:
            if bare:
                pieces.append(("".join(bare), False))
                bare = []
            pieces.append((match.group(), True))
    if bare:
        pieces.append(("".join(bare), False))
    if "".join(piece[1:] if kept else piece for piece, kept in pieces) != text.value:
        return ((text.value, False),)  # escapes that do not spell the text (a tree made by hand)
    return tuple(pieces)


def _bare(text: ast.Text) -> str:
    """The characters of a text that are written unescaped unless the quoting needs it."""
    if text.escaped is None:
        return text.value
    return "".join(piece for piece, kept in _pieces(text) if not kept)


def _written(text: ast.Text, quote: str) -> str:
    """A text as it is written in ``quote`` ("'", '"', "swim" or "implicit")."""
    if text.escaped is None:
        return _escape(text.value, quote)
    return "".join(piece if kept else _escape(piece, quote) for piece, kept in _pieces(text))


def _scalar(scalar: ast.Scalar, place: str, pad: str) -> str:
    parts = tuple(
        part for part in scalar.parts if not (isinstance(part, ast.Text) and not part.value)
    )
    if not parts:
        return '""'
    has_newline = any(
        isinstance(part, ast.Text) and ("\n" in part.value or "\r" in part.value) for part in parts
    )
    style = scalar.style
    if (
        _IN_QUOTES.get()
        and not has_newline
        and any(
            isinstance(part, ast.Text) and ("'" in _bare(part) or '"' in _bare(part))
            for part in parts
        )
    ):
        return _swim(parts, pad)  # on one line, with no quote to end the string around it
    if style == "implicit" and _implicit_ok(parts, place):
        return _parts(parts, "implicit", pad)
    if (style == "swim" or has_newline) and place != "default":
        # (a module parameter's default is followed by '>', which would read as the sentinel's)
        if has_newline and _IN_QUOTES.get():
            return _escaped(parts, pad)
        return _swim(parts, pad)
    return _quoted(parts, "'" if style == "single" else '"', pad)


def _quoted(parts: tuple[ast.ScalarPart, ...], preferred: str, pad: str) -> str:
    """A quoted string, in the preferred quote unless the text reads better in the other. A
    quote or a line break inside an expansion (``$F("x")``) would end the string: then the
    other quote, or a swim string."""
    quote = _quote_for(parts, preferred, pad)
    if quote is None:
        return _swim(parts, pad)
    return quote + _parts(parts, quote, pad) + quote


def _quote_for(parts: tuple[ast.ScalarPart, ...], preferred: str, pad: str) -> str | None:
    """The quote a quoted string of ``parts`` can use: the preferred one, or the other when the
    text reads better in it; never one that stands in an expansion (``$F("")``), which would end
    the string. None when no quote can (an expansion with a line break, or with both quotes)."""
    other = '"' if preferred == "'" else "'"
    texts = "".join(_bare(part) for part in parts if isinstance(part, ast.Text))
    order = (other, preferred) if preferred in texts and other not in texts else (preferred, other)

    def expansions() -> str:
        return "".join(
            _parts((part,), "implicit", pad) for part in parts if not isinstance(part, ast.Text)
        )

    if "\n" in expansions():
        return None
    with _in_quotes():  # as they are written inside the quotes
        inside = expansions()
    return next((quote for quote in order if quote not in inside), None)


def _implicit_ok(parts: tuple[ast.ScalarPart, ...], place: str) -> bool:
    first, last = parts[0], parts[-1]
    if isinstance(first, ast.Text):
        start = _written(first, "implicit")
        if BAD_START.match(start) or (place == "condition" and CONDITION_BAD_START.match(start)):
            return False
    if isinstance(last, ast.Text) and last.value[-1:].isspace():
        return False
    stopper = STOPPERS[place]
    for part in parts:
        if isinstance(part, ast.Text):
            for piece, kept in _pieces(part):
                if not kept and (
                    stopper.search(piece) or "\t" in piece or COMMENT_INSIDE.search(piece)
                ):
                    return False
    return True


def _parts(parts: tuple[ast.ScalarPart, ...], quote: str, pad: str) -> str:
    if quote in ("'", '"') and not _IN_QUOTES.get():
        with _in_quotes():
            return _parts(parts, quote, pad)
    out: list[str] = []
    for position, part in enumerate(parts):
        if isinstance(part, ast.Text):
            out.append(_written(part, quote))
        elif isinstance(part, ast.VariableRef):
            following = parts[position + 1] if position + 1 < len(parts) else None
            out.append(
                variable_written(
                    part, _written(following, quote) if isinstance(following, ast.Text) else ""
                )
            )
        elif isinstance(part, ast.FunctionCall):
            out.append(_call(part, pad))
        elif isinstance(part, ast.Interpolation):
            out.append(f"$({_expression(part.expression, 'argument', pad)})")
        else:  # pragma: no cover - the AST allows nothing else
            raise TypeError(f"not a scalar part: {type(part).__name__}")
    return "".join(out)


def variable_written(variable: ast.VariableRef, following: str) -> str:
    """``$name``, or ``${name}`` when the name is not a simple one or the text written after it
    (``following``) would read as more of it."""
    if SIMPLE_NAME.match(variable.name) and not NAME_CHAR.match(following):
        return f"${variable.name}"
    return f"${{{variable.name}}}"


def _escape(text: str, quote: str) -> str:
    text = text.replace("`", "``").replace("$", "`$")
    if quote == "swim":
        return text
    text = text.replace("\t", "`t").replace("\r", "`r").replace("\n", "`n")
    if quote in ("'", '"'):
        text = text.replace(quote, "`" + quote)
    return text


def _swim(parts: tuple[ast.ScalarPart, ...], pad: str) -> str:
    body = _parts(parts, "swim", pad)
    multiline = "\n" in body
    if multiline and body.endswith("\r"):
        # the parser drops a line break before the closing sentinel: keep this one escaped
        return _escaped(parts, pad)
    # a sentinel absent from the text reads best; any that reads back the same will do
    for sentinel in sorted(SENTINELS, key=lambda s: s in body):
        if multiline:
            candidate = f"{sentinel}\n{body}\n{pad}{sentinel}"
        else:
            candidate = f"{sentinel}{body}{sentinel}"
        match = SWIM.match(candidate)
        if match is not None and match.end() == len(candidate):
            return candidate
    # every sentinel occurs in the text: fall back to a quoted string with escapes
    return _escaped(parts, pad)


def _escaped(parts: tuple[ast.ScalarPart, ...], pad: str) -> str:
    """A quoted string with its line breaks escaped, in a quote no expansion holds (what the
    expansions hold written on one line too)."""
    nested = _IN_QUOTES.get()
    with _in_quotes():
        # inside another quoted string always '"', so that the outer one can take "'"
        quote = '"' if nested else _quote_for(parts, '"', pad) or '"'
        return quote + _parts(parts, quote, pad) + quote


# ---- conditions -------------------------------------------------------------------------------

_PRECEDENCE = {ast.Or: 1, ast.And: 2, ast.Not: 3, ast.Compare: 4, ast.IsTrue: 4}


def _predicate(predicate: ast.Predicate, parent: int) -> str:
    own = _PRECEDENCE[type(predicate)]
    if isinstance(predicate, ast.Or | ast.And):
        joiner = " || " if isinstance(predicate, ast.Or) else " && "
        text = joiner.join(_predicate(operand, own + 1) for operand in predicate.operands)
    elif isinstance(predicate, ast.Not):
        text = "!" + _predicate(predicate.operand, own)
    elif isinstance(predicate, ast.Compare):
        text = f"{_expression(predicate.left, 'condition', '')} {predicate.operator} {_expression(predicate.right, 'condition', '')}"
    elif isinstance(predicate, ast.IsTrue):
        text = _expression(predicate.operand, "condition", "")
    else:  # pragma: no cover
        raise TypeError(f"not a predicate: {type(predicate).__name__}")
    return f"({text})" if own < parent else text


# ---- statements -------------------------------------------------------------------------------


class Writer(Visitor[None]):
    """Writes statements canonically, as lines: ``prefix`` and ``unit`` times the indent before
    each. A ``shallow`` writer leaves bodies empty (a statement's head, for its signature)."""

    def __init__(self, prefix: str = "", unit: str = INDENT, *, shallow: bool = False) -> None:
        self.lines: list[str] = []
        self.prefix = prefix
        self.unit = unit
        self.shallow = shallow
        # The next line goes on at the end of the last one (its line break and indentation are
        # written already: see _KeptWriter).
        self.glue = False

    def text(self) -> str:
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def pad(self, indent: int) -> str:
        """The indentation of a line ``indent`` levels in."""
        return self.prefix + self.unit * indent

    def line(self, indent: int, text: str) -> None:
        if self.glue:
            self.glue = False
            self.lines[-1] += text
        else:
            self.lines.append(self.prefix + self.unit * indent + text if text else "")

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    def comments(self, indent: int, comments: tuple[str, ...]) -> None:
        for comment in comments:
            self.line(indent, comment)

    def end(self, text: str, trailing: str | None) -> None:
        """Append to the last line, with a trailing comment."""
        self.lines[-1] += text
        if trailing:
            self.lines[-1] += " " + trailing

    def body(self, body: ast.Body, indent: int) -> None:
        previous: ast.Statement | None = None
        for statement in body:
            if previous is not None and (
                statement.blank_line_before or isinstance(previous, ast.Comment)
            ):
                self.blank()
            self.statement(statement, indent)
            previous = statement

    def block(self, body: ast.Body, indent: int) -> None:
        self.line(indent, "{")
        if not self.shallow:
            self.body(body, indent + 1)
        self.line(indent, "}")

    def statement(self, statement: ast.Statement, indent: int) -> None:
        self.comments(indent, statement.description)
        self.visit(statement, indent)

    # one method per statement type

    def visit_comment(self, node: ast.Comment, indent: int) -> None:
        self.comments(indent, node.lines)

    def visit_operation_call(self, node: ast.OperationCall, indent: int) -> None:
        head = node.qualified_name
        if node.positional is not None:
            head += " " + _expression(node.positional, "positional", self.pad(indent))
        self.call(head, node.arguments, node.trailing_comment, indent)

    def visit_call_module(self, node: ast.CallModule, indent: int) -> None:
        head = f"call {node.raft}::{node.name}" if node.raft else f"call {node.name}"
        self.call(head, node.arguments, node.trailing_comment, indent)

    def call(
        self, head: str, arguments: tuple[ast.CallArgument, ...], trailing: str | None, indent: int
    ) -> None:
        self.line(indent, head)
        if not arguments:
            self.end(";", trailing)
            return
        self.line(indent, "(")
        for position, argument in enumerate(arguments):
            self.comments(indent + 1, argument.comments)
            if isinstance(argument, ast.Argument):
                value = _expression(argument.value, "argument", self.pad(indent + 1))
                text = f"{argument.name}: {value}"
            else:
                text = f"{argument.name} => {_variable(argument.variable)}"
            self.line(indent + 1, text)
            last = position == len(arguments) - 1
            comment = argument.trailing_comment
            # a last value followed by `#x` would read it as more text: the comma the source
            # had before the comment (a trailing comma) keeps it a comment
            swallowed = (
                isinstance(argument, ast.Argument) and comment and not ENDS_TEXT.match(comment)
            )
            self.end("," if not last or swallowed else "", comment)
        self.line(indent, ")")
        self.end(";", trailing)

    def visit_block(self, node: ast.Block, indent: int) -> None:
        self.block(node.body, indent)
        self.end("", node.trailing_comment)

    def visit_set_variable(self, node: ast.SetVariable, indent: int) -> None:
        scope = f"{node.scope} " if node.scope else ""
        pad = self.pad(indent)
        indexes = "".join(f"[{_expression(key, 'index', pad)}]" for key in node.indexes)
        value = _expression(node.value, "line", pad)
        self.line(indent, f"set {scope}{_variable(node.variable)}{indexes} = {value}")
        self.end(";", node.trailing_comment)

    def visit_global_declaration(self, node: ast.GlobalDeclaration, indent: int) -> None:
        value = (
            f" = {_expression(node.value, 'line', self.pad(indent))}"
            if node.value is not None
            else ""
        )
        self.line(indent, f"global {_variable(node.variable)}{value}")
        self.end(";", node.trailing_comment)

    def visit_log(self, node: ast.Log, indent: int) -> None:
        self.line(
            indent,
            f"{ast.Log.keyword_by_level[node.level]} "
            + _expression(node.message, "line", self.pad(indent)),
        )
        self.end(";", node.trailing_comment)

    def visit_if(self, node: ast.If, indent: int) -> None:
        self.line(indent, f"if {_predicate(node.condition, 0)}")
        self.block(node.body, indent)
        for clause in node.else_ifs:
            self.line(indent, f"else if {_predicate(clause.condition, 0)}")
            self.block(clause.body, indent)
        if node.else_body is not None:
            self.line(indent, "else")
            self.block(node.else_body, indent)
        self.end("", node.trailing_comment)

    def visit_for_each(self, node: ast.ForEach, indent: int) -> None:
        self.line(
            indent,
            f"foreach {_variable(node.variable)} in "
            + _expression(node.source, "context", self.pad(indent)),
        )
        self.block(node.body, indent)
        self.end("", node.trailing_comment)

    def visit_context_iteration(self, node: ast.ContextIteration, indent: int) -> None:
        self.line(
            indent,
            f"foreach {node.context} in {_expression(node.source, 'context', self.pad(indent))}",
        )
        self.block(node.body, indent)
        self.end("", node.trailing_comment)

    def visit_set_context(self, node: ast.SetContext, indent: int) -> None:
        self.line(
            indent, f"for {node.context} {_expression(node.value, 'context', self.pad(indent))}"
        )
        self.block(node.body, indent)
        self.end("", node.trailing_comment)

    def visit_with(self, node: ast.With, indent: int) -> None:
        directives = ", ".join(
            d.name if d.value is None else f"{d.name}={d.value}" for d in node.directives
        )
        self.line(indent, f"with {directives}")
        self.block(node.body, indent)
        self.end("", node.trailing_comment)

    def visit_try(self, node: ast.Try, indent: int) -> None:
        self.line(indent, "try")
        self.block(node.body, indent)
        self.line(indent, "catch")
        self.block(node.catch_body, indent)
        self.end("", node.trailing_comment)

    def visit_await(self, node: ast.Await, indent: int) -> None:
        self.simple(f"await {node.token}" if node.token else "await", node, indent)

    def visit_throw(self, node: ast.Throw, indent: int) -> None:
        text = (
            "throw"
            if node.message is None
            else f"throw {_expression(node.message, 'line', self.pad(indent))}"
        )
        self.simple(text, node, indent)

    def visit_fail(self, node: ast.Fail, indent: int) -> None:
        self.simple("fail", node, indent)

    def visit_error(self, node: ast.Error, indent: int) -> None:
        self.simple("error", node, indent)

    def visit_warn(self, node: ast.Warn, indent: int) -> None:
        self.simple("force warn" if node.force else "warn", node, indent)

    def visit_force_normal(self, node: ast.ForceNormal, indent: int) -> None:
        self.simple("force normal", node, indent)

    def visit_break(self, node: ast.Break, indent: int) -> None:
        self.simple("break", node, indent)

    def visit_continue(self, node: ast.Continue, indent: int) -> None:
        self.simple("continue", node, indent)

    def visit_return(self, node: ast.Return, indent: int) -> None:
        self.simple("return", node, indent)

    def simple(self, text: str, node: ast.Statement, indent: int) -> None:
        self.line(indent, text)
        self.end(";", node.trailing_comment)

    def visit_module_declaration(self, node: ast.ModuleDeclaration, indent: int) -> None:
        head = f"module {node.name}"
        if node.parameters:
            pad = self.pad(indent)
            head += "<" + ", ".join(_parameter(p, pad) for p in node.parameters) + ">"
        self.line(indent, head)
        self.block(node.body, indent)
        self.end("", node.trailing_comment)


def _parameter(parameter: ast.ModuleParameter, pad: str) -> str:
    text = ("out " if parameter.output else "") + _variable(parameter.variable)
    if parameter.default is not None:
        text += " = " + _expression(parameter.default, "default", pad)
    return text
