"""Text -> AST.

lark's LALR parser runs with the transformer below embedded, so the AST is built while parsing
and no parse tree is ever made. Comments are collected by a lexer callback and attached to
statements when their enclosing block is reduced. On a syntax error the parser records a
diagnostic, unwinds to the nearest statement list and carries on, so one run reports every
error it can.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from engine import ast
from engine.errors import Diagnostic, OtterSyntaxError
from engine.keywords import NOT_STATEMENTS, STATEMENT_KEYWORDS
from engine.limits import nesting_problem
from engine.spans import Span, span_at

GRAMMAR_PATH = Path(__file__).parent / "grammar" / "otterscript.lark"
# Where a lone value can be parsed from, by the formatter's names for places.
VALUE_RULES = {
    "argument": "expression",
    "line": "line_value",
    "positional": "positional_value",
    "context": "context_value",
    "default": "default_value",
}
START_RULES = ["start", "text_body", "condition", *VALUE_RULES.values()]
MAX_ERRORS = 100
# Recovering from an error costs a few hundred microseconds: past this many, the parse stops
# (garbage of a megabyte would otherwise take a minute, most of its errors on one line).
MAX_RECOVERIES = 1000

# Text terminals of implicit strings, by the place they stand in (see the grammar).
IMPLICIT_TEXT = {"A0", "A", "L0", "L", "P0", "P", "Q0", "Q", "C0", "C", "M0", "M", "I0", "I"}
ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
ASYNC_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]{0,49}")
DIRECTIVE_NAMES = {name.lower(): name for name in ast.DIRECTIVES}
SIMPLE_STATEMENTS: dict[tuple[str, ...], type[ast.Statement]] = {
    ("fail",): ast.Fail,
    ("error",): ast.Error,
    ("warn",): ast.Warn,
    ("force", "normal"): ast.ForceNormal,
    ("break",): ast.Break,
    ("continue",): ast.Continue,
    ("return",): ast.Return,
}


# ---- per-parse state ------------------------------------------------------------------------


@dataclass(slots=True)
class _Comment:
    start: int
    end: int
    line: int
    end_line: int
    text: str
    claimed: bool = False


@dataclass(slots=True)
class _Context:
    text: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    comments: list[_Comment] = field(default_factory=list)
    comment_starts: list[int] = field(default_factory=list)
    # Where a nested parse (a quoted or swim string's body) starts in the script.
    base: tuple[int, int, int] | None = None
    last_error_line: int = -1
    error_count: int = 0
    recoveries: int = 0
    inserted: set[int] = field(default_factory=set)
    rewound: set[int] = field(default_factory=set)

    def report(
        self,
        span: Span,
        message: str,
        *,
        severity: str = "error",
        code: str = "syntax",
        hint: str = "",
    ) -> None:
        self.diagnostics.append(
            Diagnostic.at(span, message, severity=severity, code=code, hint=hint)  # type: ignore[arg-type]
        )


_local = threading.local()


def _ctx() -> _Context:
    return _local.context


_make_span = Span._make


def _span(token: Token) -> Span:
    base = _local.context.base
    if base is None:
        return _make_span(
            (
                token.start_pos,
                token.end_pos,
                token.line,
                token.column,
                token.end_line,
                token.end_column,
            )
        )
    offset, line, column = base
    return Span(
        offset + token.start_pos,
        offset + token.end_pos,
        line + token.line - 1,
        token.column + column - 1 if token.line == 1 else token.column,
        line + token.end_line - 1,
        token.end_column + column - 1 if token.end_line == 1 else token.end_column,
    )


def _span_of(item: Any) -> Span | None:
    if type(item) is Token:
        return _span(item)
    return getattr(item, "span", None)


def _cover(first: Any, last: Any) -> Span | None:
    """The span from the start of ``first`` to the end of ``last`` (tokens or nodes, in order)."""
    if type(first) is Token and type(last) is Token and _local.context.base is None:
        return _make_span(
            (
                first.start_pos,
                last.end_pos,
                first.line,
                first.column,
                last.end_line,
                last.end_column,
            )
        )
    start = _span(first) if type(first) is Token else first.span
    end = _span(last) if type(last) is Token else last.span
    if start is None or end is None:
        return start or end
    return Span(start[0], end[1], start[2], start[3], end[4], end[5])


def _variable(token: Token) -> ast.VariableRef:
    name = token.value[1:]
    if name.startswith("{"):
        name = name[1:-1]
    return ast.VariableRef(sigil=token.value[0], name=name, span=_span(token))  # type: ignore[arg-type]


@dataclass(slots=True)
class _IndexKey:
    key: ast.Expression
    dotted: bool
    span: Span | None


@dataclass(slots=True)
class _ArgList:
    arguments: list[ast.CallArgument]
    open: Token
    close: Token


@dataclass(slots=True)
class _Name:
    namespace: str | None
    name: str
    span: Span | None


# ---- scalars ---------------------------------------------------------------------------------


def _decode_escape(token: Token) -> str:
    return _escaped(token.value[1], _span(token))


def _escaped(char: str, span: Span) -> str:
    """The character an escape stands for, warning on a letter that is no escape."""
    if char in ESCAPES:
        return ESCAPES[char]
    if char.isalnum():
        _ctx().report(
            span,
            f"unknown escape '`{char}'; the escapes are `$ `@ `% `n `t `r and ``, so this is the letter '{char}'",
            severity="warning",
            code="escape",
        )
    return char


def _string_body(token: Token, body: str, skip: int) -> tuple[ast.ScalarPart, ...]:
    """Parts of a quoted or swim string's body, which starts ``skip`` characters into the token."""
    if "$" not in body and "`" not in body:
        return (ast.Text(value=body, span=_span(token)),) if body else ()
    ctx = _ctx()
    start = _span(token)
    prefix = token.value[:skip]
    line = start.line + prefix.count("\n")
    column = start.column + skip if "\n" not in prefix else skip - prefix.rfind("\n")
    saved = ctx.base
    ctx.base = (start.start + skip, line, column)
    try:
        parts = _simple_body(body)
        if parts is None:
            parts = _parser().parse(body, start="text_body")
    except UnexpectedInput as error:
        _report_unexpected(error, body)
        parts = [ast.Text(value=body)]
    finally:
        ctx.base = saved
    return tuple(parts)


# The expansions of a string body that need no function call: what most strings hold.
_BODY_SPECIAL = re.compile(r"[$`]")
_BODY_EXPANSION = re.compile(
    r"\$(?P<var>[A-Za-z][A-Za-z0-9_]*)(?![A-Za-z0-9_(])|\$\{(?P<braced>[^}\n]*)\}|(?P<lone>\$)(?![A-Za-z{(])|`(?P<escape>[^\n])"
)


def _simple_body(body: str) -> list[ast.ScalarPart] | None:
    """The parts of a body made of text, variables and escapes, as the grammar's ``text_body``
    reads them; None when the body holds anything else (a call, ``$(...)``, a bad escape), which
    the grammar then reads and reports on."""
    parts: list[ast.ScalarPart] = []
    position = 0
    while True:
        special = _BODY_SPECIAL.search(body, position)
        end = special.start() if special else len(body)
        if end > position:
            parts.append(ast.Text(value=body[position:end], span=_body_span(body, position, end)))
        if special is None:
            return list(_merge_text(parts))
        match = _BODY_EXPANSION.match(body, end)
        if match is None:
            return None
        span = _body_span(body, end, match.end())
        kind = match.lastgroup
        if kind == "var" or kind == "braced":
            parts.append(ast.VariableRef(sigil="$", name=match.group(kind), span=span))
        elif kind == "lone":
            parts.append(ast.Text(value="$", span=span))
        else:
            parts.append(ast.Text(value=_escaped(match.group("escape"), span), span=span))
        position = match.end()


def _body_span(body: str, start: int, end: int) -> Span:
    """The span of body[start:end] in the script (the body's place is ``_ctx().base``)."""
    offset, line, column = _ctx().base  # type: ignore[misc]
    first_line = body.count("\n", 0, start)
    last_line = first_line + body.count("\n", start, end)
    start_column = start - (body.rfind("\n", 0, start) + 1) + 1
    end_column = end - (body.rfind("\n", 0, end) + 1) + 1
    return Span(
        offset + start,
        offset + end,
        line + first_line,
        start_column + column - 1 if first_line == 0 else start_column,
        line + last_line,
        end_column + column - 1 if last_line == 0 else end_column,
    )


SWIM_OPEN = re.compile(r">([^>\s]{0,5})>")
SWIM_LEADING_NEWLINE = re.compile(r"\A[ \t]*\r?\n")
SWIM_TRAILING_NEWLINE = re.compile(r"\r?\n[ \t]*\Z")


def _swim_parts(token: Token) -> tuple[ast.ScalarPart, ...]:
    raw = token.value
    sentinel = SWIM_OPEN.match(raw).group(0)  # type: ignore[union-attr]
    body = raw[len(sentinel) : -len(sentinel)]
    skip = len(sentinel)
    leading = SWIM_LEADING_NEWLINE.match(body)
    if leading:
        body = body[leading.end() :]
        skip += leading.end()
    trailing = SWIM_TRAILING_NEWLINE.search(body)
    if trailing:
        body = body[: trailing.start()]
    return _string_body(token, body, skip)


def _merge_text(parts: list[ast.ScalarPart]) -> tuple[ast.ScalarPart, ...]:
    merged: list[ast.ScalarPart] = []
    for part in parts:
        if isinstance(part, ast.Text):
            if not part.value:
                continue
            if merged and isinstance(merged[-1], ast.Text):
                previous = merged[-1]
                span = previous.span.merge(part.span) if previous.span else part.span
                merged[-1] = ast.Text(value=previous.value + part.value, span=span)
                continue
        merged.append(part)
    return tuple(merged)


def _scalar_parts(
    children: list[Any], parts: list[ast.ScalarPart] | None = None
) -> tuple[list[ast.ScalarPart], str]:
    """Turn the pieces of a scalar into parts; returns the parts and the quoting style."""
    ctx = _ctx()
    parts = parts if parts is not None else []
    style = "implicit"
    previous_kind = None
    trim_end = False
    for index, child in enumerate(children):
        if not isinstance(child, Token):
            parts.append(child)
            previous_kind = None
            trim_end = False
            continue
        kind = child.type
        span = _span(child)
        trim_end = kind in IMPLICIT_TEXT
        if kind in IMPLICIT_TEXT or kind == "BODY_TEXT":
            text = child.value
            if not parts and kind in IMPLICIT_TEXT and text[:1].isspace():
                stripped = text.lstrip()
                cut = len(text) - len(stripped)
                span = Span(
                    span.start + cut,
                    span.end,
                    span.line,
                    span.column + cut,
                    span.end_line,
                    span.end_column,
                )
                text = stripped
            parts.append(ast.Text(value=text, span=span))
            if previous_kind in ("QUOTED", "SWIM") and text.strip():
                ctx.report(
                    span,
                    "text after a closing quote is joined to the quoted text without the quotes; quote the whole value",
                    severity="warning",
                    code="quote",
                )
        elif kind == "QUOTED":
            parts.extend(_string_body(child, child.value[1:-1], 1))
            if index == 0:
                style = "double" if child.value[0] == '"' else "single"
        elif kind == "SWIM":
            parts.extend(_swim_parts(child))
            if index == 0:
                style = "swim"
        elif kind == "VAR":
            parts.append(ast.VariableRef(sigil="$", name=child.value[1:], span=span))
        elif kind == "BRACED_VAR":
            parts.append(ast.VariableRef(sigil="$", name=child.value[2:-1], span=span))
        elif kind == "ESCAPE":
            parts.append(ast.Text(value=_decode_escape(child), span=span))
        elif kind == "LONE_DOLLAR":
            parts.append(ast.Text(value="$", span=span))
        previous_kind = kind
    if trim_end and parts and isinstance(parts[-1], ast.Text):
        last = parts[-1]
        stripped = last.value.rstrip()
        if stripped != last.value:
            span = last.span
            if span is not None:
                cut = len(last.value) - len(stripped)
                span = Span(
                    span.start,
                    span.end - cut,
                    span.line,
                    span.column,
                    span.end_line,
                    span.end_column - cut,
                )
            parts[-1] = ast.Text(value=stripped, span=span)
    if style != "implicit" and any(
        not (isinstance(child, Token) and child.type in IMPLICIT_TEXT and not child.value.strip())
        for child in children[1:]
    ):
        style = "implicit"
    return parts, style


def _scalar(children: list[Any]) -> ast.Scalar:
    if len(children) == 1 and children[0].__class__ is Token and children[0].type in IMPLICIT_TEXT:
        # the common case: one run of plain text
        token = children[0]
        text = token.value
        stripped = text.strip()
        span = _span(token)
        if stripped != text:
            lead = len(text) - len(text.lstrip())
            trail = len(text) - len(text.rstrip())
            span = Span(
                span[0] + lead, span[1] - trail, span[2], span[3] + lead, span[4], span[5] - trail
            )
        return ast.Scalar(parts=(ast.Text(value=stripped, span=span),), span=span)
    parts, style = _scalar_parts(children)
    span = _cover(children[0], children[-1])
    return ast.Scalar(parts=_merge_text(parts), style=style, span=span)  # type: ignore[arg-type]


def _values(children: list[Any], what: str) -> list[Any]:
    """The non-token children of a comma-separated list, warning on a trailing comma."""
    items = [child for child in children if not isinstance(child, Token)]
    tokens = [child for child in children if isinstance(child, Token)]
    commas = [t for t in tokens if t.type == "COMMA"]
    if items and len(commas) >= len(items):
        _ctx().report(
            _span(commas[-1]),
            f"trailing comma after the last {what}",
            severity="warning",
            code="trailing-comma",
        )
    return items


# ---- the transformer --------------------------------------------------------------------------


class _Builder(Transformer):
    """Builds AST nodes as the LALR parser reduces rules (lark calls it inline)."""

    # scripts and blocks

    def start(self, children):
        return children[0]

    def script(self, children):
        headers = tuple(child.value.rstrip() for child in children if isinstance(child, Token))
        body = children[-1]
        ctx = _ctx()
        body = _attach_comments(body, 0, len(ctx.text))
        span = span_at(ctx.text, 0, len(ctx.text)) if ctx.text else None
        return ast.Script(headers=headers, body=body, span=span)

    def body(self, children):
        return tuple(children)

    def block(self, children):
        open_brace, body, close_brace = children
        body = _attach_comments(body, open_brace.end_pos, close_brace.start_pos)
        return ast.Block(body=body, span=_cover(open_brace, close_brace))

    # operation calls

    def qualified_name(self, children):
        if len(children) == 1:
            return _Name(None, children[0].value, _span(children[0]))
        return _Name(children[0].value, children[2].value, _cover(children[0], children[2]))

    def arglist(self, children):
        arguments = _values(children[1:-1], "argument")
        return _ArgList(arguments, children[0], children[-1])

    def named_argument(self, children):
        if len(children) == 2:
            name, colon = children
            _ctx().report(
                _cover(name, colon),
                f"'{name.value}' has no value: accepted as an empty string, but write {name.value}: \"\"",
                severity="warning",
                code="empty-value",
            )
            return ast.Argument(
                name=name.value,
                value=ast.Scalar(parts=(), span=_span(colon)),
                span=_cover(name, colon),
            )
        name, _colon, value = children
        return ast.Argument(name=name.value, value=value, span=_cover(name, value))

    def output_argument(self, children):
        name, _arrow, variable = children
        return ast.OutputArgument(
            name=name.value, variable=_variable(variable), span=_cover(name, variable)
        )

    def op_call(self, children):
        name: _Name = children[0]
        positional = None
        arglist = None
        semicolon = None
        for child in children[1:]:
            if isinstance(child, _ArgList):
                arglist = child
            elif isinstance(child, Token):
                semicolon = child
            else:
                positional = child
        arguments: tuple[ast.CallArgument, ...] = ()
        last = semicolon
        if arglist is not None:
            arguments = _attach_argument_comments(arglist)
            last = semicolon or arglist.close
            if semicolon is None:
                _report_missing_semicolon(arglist.close, name.name)
        return ast.OperationCall(
            namespace=name.namespace,
            name=name.name,
            positional=positional,
            arguments=arguments,
            span=name.span.merge(_span_of(last)) if name.span else None,
        )

    def call_stmt(self, children):
        keyword, name = children[0], children[1]
        arglist = next((c for c in children if isinstance(c, _ArgList)), None)
        semicolon = (
            children[-1]
            if isinstance(children[-1], Token) and children[-1].type == "SEMI"
            else None
        )
        arguments: tuple[ast.CallArgument, ...] = ()
        if arglist is not None:
            arguments = _attach_argument_comments(arglist)
            if semicolon is None:
                _report_missing_semicolon(arglist.close, name.name)
        last = semicolon or (arglist.close if arglist else None)
        return ast.CallModule(
            raft=name.namespace, name=name.name, arguments=arguments, span=_cover(keyword, last)
        )

    # variables

    def set_stmt(self, children):
        keyword = children[0]
        scope = None
        position = 1
        if children[1].type in ("LOCAL", "GLOBAL"):
            scope = children[1].value
            position = 2
        variable = _variable(children[position])
        indexes = tuple(
            child.key for child in children[position + 1 : -3] if isinstance(child, _IndexKey)
        )
        value = children[-2]
        return ast.SetVariable(
            scope=scope,
            variable=variable,
            indexes=indexes,
            value=value,
            span=_cover(keyword, children[-1]),
        )

    def target_index(self, children):
        return self.index(children)

    def global_decl(self, children):
        value = children[3] if len(children) == 5 else None
        return ast.GlobalDeclaration(
            variable=_variable(children[1]), value=value, span=_cover(children[0], children[-1])
        )

    # logging and status

    def log_stmt(self, children):
        keyword, message, semicolon = children
        level = keyword.value.lower().split("-", 1)[1]
        return ast.Log(level=level, message=message, span=_cover(keyword, semicolon))

    def throw_stmt(self, children):
        message = children[1] if len(children) == 3 else None
        return ast.Throw(message=message, span=_cover(children[0], children[-1]))

    def await_stmt(self, children):
        token = children[1] if len(children) == 3 else None
        if token is not None and not ASYNC_TOKEN.fullmatch(token.value):
            _ctx().report(
                _span(token),
                f"an async token is letters and digits, starting with a letter; found '{token.value}'",
            )
        return ast.Await(
            token=token.value if token else None, span=_cover(children[0], children[-1])
        )

    def simple_stmt(self, children):
        words = tuple(child.value for child in children[:-1])
        span = _cover(children[0], children[-1])
        if words == ("force", "warn"):
            return ast.Warn(force=True, span=span)
        return SIMPLE_STATEMENTS[words](span=span)

    # control flow

    def if_stmt(self, children):
        keyword, condition, block = children[0], children[1], children[2]
        else_ifs: tuple[ast.ElseIf, ...] = ()
        else_body = None
        if len(children) == 5:
            alternative = children[4]
            if isinstance(alternative, ast.If):
                clause = ast.ElseIf(
                    condition=alternative.condition, body=alternative.body, span=alternative.span
                )
                else_ifs = (clause, *alternative.else_ifs)
                else_body = alternative.else_body
            else:
                else_body = alternative.body
        return ast.If(
            condition=condition,
            body=block.body,
            else_ifs=else_ifs,
            else_body=else_body,
            span=_cover(keyword, children[-1]),
        )

    def pred_or(self, children):
        operands = tuple(child for child in children if not isinstance(child, Token))
        if len(operands) == 1:
            return operands[0]
        return ast.Or(operands=operands, span=_cover(operands[0], operands[-1]))

    def pred_and(self, children):
        operands = tuple(child for child in children if not isinstance(child, Token))
        return ast.And(operands=operands, span=_cover(operands[0], operands[-1]))

    def pred_negation(self, children):
        return ast.Not(operand=children[1], span=_cover(children[0], children[1]))

    def pred_group(self, children):
        return children[1]

    def pred_test(self, children):
        if len(children) == 1:
            return ast.IsTrue(operand=children[0], span=children[0].span)
        left, operator, right = children
        return ast.Compare(
            left=left, operator=operator.value, right=right, span=_cover(left, right)
        )

    def foreach_stmt(self, children):
        keyword, target, _in, source, block = children
        span = _cover(keyword, block)
        if target.type == "CONTEXT_TYPE":
            return ast.ContextIteration(
                context=target.value, source=source, body=block.body, span=span
            )
        return ast.ForEach(variable=_variable(target), source=source, body=block.body, span=span)

    def for_stmt(self, children):
        keyword, context, value, block = children
        return ast.SetContext(
            context=context.value, value=value, body=block.body, span=_cover(keyword, block)
        )

    def with_stmt(self, children):
        directives = tuple(child for child in children if isinstance(child, ast.Directive))
        block = children[-1]
        return ast.With(directives=directives, body=block.body, span=_cover(children[0], block))

    def directive(self, children):
        name = children[0]
        value = children[2].value if len(children) == 3 else None
        canonical = DIRECTIVE_NAMES.get(name.value.lower())
        span = _cover(children[0], children[-1])
        if canonical is None:
            _ctx().report(
                _span(name),
                f"unknown directive '{name.value}'; expected one of {', '.join(ast.DIRECTIVES)}",
            )
            canonical = name.value
        else:
            _check_directive(canonical, value, span)
        return ast.Directive(name=canonical, value=value, span=span)

    def try_stmt(self, children):
        keyword, body, _catch, handler = children
        return ast.Try(body=body.body, catch_body=handler.body, span=_cover(keyword, handler))

    # modules

    def module_decl(self, children):
        keyword, name = children[0], children[1]
        parameters = tuple(child for child in children if isinstance(child, ast.ModuleParameter))
        block = children[-1]
        return ast.ModuleDeclaration(
            name=name.value, parameters=parameters, body=block.body, span=_cover(keyword, block)
        )

    def module_param(self, children):
        output = children[0].type == "OUT"
        rest = children[1:] if output else children
        default = rest[2] if len(rest) == 3 else None
        return ast.ModuleParameter(
            variable=_variable(rest[0]),
            default=default,
            output=output,
            span=_cover(children[0], children[-1]),
        )

    # values

    def value(self, children):
        return children[0]

    def expression(self, children):
        return children[0]

    line_value = positional_value = context_value = default_value = expression

    def condition(self, children):
        return children[0]

    def scalar(self, children):
        return _scalar(children)

    def element_text(self, children):
        element = children[0]
        parts, _style = _scalar_parts(
            children[1:], [ast.Interpolation(expression=element, span=element.span)]
        )
        parts = list(_merge_text(parts))
        if len(parts) == 1:
            return element
        return ast.Scalar(parts=tuple(parts), span=_cover(element, children[-1]))

    def ref(self, children):
        opener = children[0]
        kind = opener.type
        span = _span(opener)
        position = 1
        node: ast.Expression
        if kind in ("VECTOR_OPEN", "MAP_OPEN"):
            close = next(
                i
                for i, child in enumerate(children)
                if isinstance(child, Token) and child.type == "RPAREN"
            )
            items = _values(children[1:close], "item")
            span = _cover(opener, children[close])
            node = (
                ast.Vector(items=tuple(items), span=span)
                if kind == "VECTOR_OPEN"
                else ast.Map(entries=tuple(items), span=span)
            )
            position = close + 1
        elif kind == "LIST_OR_MAP_VAR":
            node = _variable(opener)
        else:
            args = children[1]
            span = _cover(opener, children[2])
            node = ast.FunctionCall(
                sigil=opener.value[0], name=opener.value[1:-1], args=tuple(args), span=span
            )
            position = 3
        for child in children[position:]:
            if isinstance(child, _IndexKey):
                span = span.merge(child.span) if span else child.span
                node = ast.Index(target=node, key=child.key, dotted=child.dotted, span=span)
        return node

    def index(self, children):
        if len(children) == 1:
            token = children[0]
            span = _span(token)
            key = ast.Scalar(parts=(ast.Text(value=token.value[1:], span=span),), span=span)
            return _IndexKey(key, True, span)
        return _IndexKey(children[1], False, _cover(children[0], children[2]))

    def map_entry(self, children):
        key, _colon, value = children
        return ast.MapEntry(key=key.value.strip(), value=value, span=_cover(key, value))

    def call(self, children):
        opener, args, close = children
        return ast.FunctionCall(
            sigil="$", name=opener.value[1:-1], args=tuple(args), span=_cover(opener, close)
        )

    def call_args(self, children):
        return _values(children, "argument")

    def subexpression(self, children):
        opener, expression, close = children
        return ast.Interpolation(expression=expression, span=_cover(opener, close))

    def text_body(self, children):
        parts, _style = _scalar_parts(children)
        return list(_merge_text(parts))


def _check_directive(name: str, value: str | None, span: Span | None) -> None:
    ctx = _ctx()
    problem = None
    if name in ("retry", "timeout"):
        if value is None or not value.isdigit():
            problem = f"'{name}' takes a whole number of {'attempts' if name == 'retry' else 'seconds'}, like {name}=3"
    elif name == "executionPolicy":
        if value is None or value.lower() not in ("always", "onchange"):
            problem = "'executionPolicy' is 'always' or 'onChange'"
    elif name == "async":
        if value is not None and not ASYNC_TOKEN.fullmatch(value):
            problem = (
                f"an async token is letters and digits, starting with a letter; found '{value}'"
            )
    elif name == "lock":
        if value is not None and not ASYNC_TOKEN.fullmatch(value.removeprefix("!")):
            problem = f"a lock token is letters and digits, starting with a letter, with '!' before it for a global lock; found '{value}'"
    elif name == "isolation":
        if value is not None:
            problem = "'isolation' takes no value"
    elif name == "credentials" and not value:
        problem = "'credentials' needs the name of a credential, like credentials=DeployUser"
    if problem and span is not None:
        ctx.report(span, problem)


def _report_missing_semicolon(close: Token, name: str) -> None:
    _ctx().report(
        _span(close),
        f"missing ';' after ')' of '{name}': accepted, but add the ';'",
        severity="warning",
        code="missing-semicolon",
    )


# ---- comments ---------------------------------------------------------------------------------


def _comments_between(start: int, end: int) -> list[_Comment]:
    ctx = _ctx()
    comments = ctx.comments
    first = bisect_left(ctx.comment_starts, start)
    found = []
    for comment in comments[first:]:
        if comment.start >= end:
            break
        if not comment.claimed:
            found.append(comment)
    return found


def _attach_argument_comments(arglist: _ArgList) -> tuple[ast.CallArgument, ...]:
    """Comments inside an argument list go to the argument they precede or follow on its line."""
    arguments = list(arglist.arguments)
    comments = _comments_between(arglist.open.end_pos, arglist.close.start_pos)
    if not comments or not arguments:
        return tuple(arguments)
    leading: dict[int, list[str]] = {}
    trailing: dict[int, list[str]] = {}
    for comment in comments:
        for index, argument in enumerate(arguments):
            span = argument.span
            if span is None:
                continue
            if span.start <= comment.start < span.end:
                break  # inside a value: left for the statement's description
            if comment.start >= span.end and comment.line == span.end_line:
                trailing.setdefault(index, []).append(comment.text)
                comment.claimed = True
                break
            if comment.end <= span.start:
                leading.setdefault(index, []).append(comment.text)
                comment.claimed = True
                break
    for index, argument in enumerate(arguments):
        if index in leading or index in trailing:
            arguments[index] = replace(
                argument,
                comments=tuple(leading.get(index, ())),
                trailing_comment=" ".join(trailing[index]) if index in trailing else None,
            )
    return tuple(arguments)


def _attach_comments(
    body: tuple[ast.Statement, ...], start: int, end: int
) -> tuple[ast.Statement, ...]:
    """Give the unclaimed comments between ``start`` and ``end`` to the statements of ``body``:
    comments directly above a statement become its description, a comment on the line where a
    statement ends becomes its trailing comment, comments inside a statement join its
    description, and the rest stand alone as Comment nodes. Also marks the statements that
    follow a blank line."""
    ctx = _ctx()
    comments = _comments_between(start, end)
    if not comments:
        return _mark_blank_lines([(s, s.span.start if s.span else 0) for s in body], ctx.text)
    statements = list(body)
    inner: dict[int, list[str]] = {}
    trailing: dict[int, list[str]] = {}
    before: dict[int, list[_Comment]] = {}
    starts = [s.span.start if s.span else 0 for s in statements]
    for comment in comments:
        comment.claimed = True
        position = bisect_left(starts, comment.start)
        if position > 0:
            span = statements[position - 1].span
            if span is not None and comment.start < span.end:
                inner.setdefault(position - 1, []).append(comment.text)
                continue
            if span is not None and comment.line == span.end_line:
                trailing.setdefault(position - 1, []).append(comment.text)
                continue
        before.setdefault(position, []).append(comment)
    items: list[tuple[ast.Statement, int]] = []
    for index in range(len(statements) + 1):
        statement = statements[index] if index < len(statements) else None
        if index not in before and index not in inner and index not in trailing:
            if statement is not None:
                items.append((statement, statement.span.start if statement.span else 0))
            continue
        groups = _comment_groups(before.get(index, []))
        description: tuple[str, ...] = ()
        visual_start = statement.span.start if statement is not None and statement.span else 0
        if groups and statement is not None and statement.span is not None:
            last = groups[-1]
            if statement.span.line <= last[-1].end_line + 1:
                description = tuple(c.text for c in last)
                visual_start = last[0].start
                groups = groups[:-1]
        for group in groups:
            span = Span(group[0].start, group[-1].end, group[0].line, 1, group[-1].end_line, 1)
            items.append(
                (ast.Comment(lines=tuple(c.text for c in group), span=span), group[0].start)
            )
        if statement is None:
            break
        extra = tuple(inner.get(index, ()))
        if description or extra or index in trailing:
            statement = replace(
                statement,
                description=description + statement.description + extra,
                trailing_comment=" ".join(trailing[index])
                if index in trailing
                else statement.trailing_comment,
            )
        items.append((statement, visual_start))
    return _mark_blank_lines(items, ctx.text)


def _comment_groups(comments: list[_Comment]) -> list[list[_Comment]]:
    """Split comments into runs without a blank line between them."""
    groups: list[list[_Comment]] = []
    for comment in comments:
        if groups and comment.line <= groups[-1][-1].end_line + 1:
            groups[-1].append(comment)
        else:
            groups.append([comment])
    return groups


def _mark_blank_lines(
    items: list[tuple[ast.Statement, int]], text: str
) -> tuple[ast.Statement, ...]:
    """Set the blank_line_before hint where the source has an empty line above an item."""
    if _ctx().base is not None:
        return tuple(item for item, _start in items)
    result: list[ast.Statement] = []
    previous_end = None
    for item, visual_start in items:
        if (
            previous_end is not None
            and text.count("\n", previous_end, visual_start) >= 2
            and _blank_between(text, previous_end, visual_start)
        ):
            item = replace(item, blank_line_before=True)
        result.append(item)
        previous_end = item.span.end if item.span else previous_end
        if item.trailing_comment is not None and item.span is not None:
            line_end = text.find("\n", item.span.end)
            previous_end = len(text) if line_end < 0 else line_end
    return tuple(result)


def _blank_between(text: str, start: int, end: int) -> bool:
    """Whether some line between the two offsets holds only white space."""
    lines = text[start:end].split("\n")
    return any(not line.strip() for line in lines[1:-1])


# ---- errors -----------------------------------------------------------------------------------

TERMINAL_NAMES = {
    "SEMI": "';'",
    "COMMA": "','",
    "COLON": "':'",
    "DCOLON": "'::'",
    "ARROW": "'=>'",
    "EQUALS": "'='",
    "LPAREN": "'('",
    "RPAREN": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LBRACK": "'['",
    "RBRACK": "']'",
    "LT": "'<'",
    "GT": "'>'",
    "EQ_OP": "'=='",
    "NE_OP": "'!='",
    "AND_OP": "'&&'",
    "OR_OP": "'||'",
    "NOT_OP": "'!'",
    "NAME": "a name",
    "VARNAME": "a variable like $name",
    "MAP_KEY": "a map key",
    "DIRECTIVE_VALUE": "a directive value",
    "CONTEXT_TYPE": "'server', 'role' or 'directory'",
    "LOG_KEYWORD": "Log-Information",
    "HEADER": "a ##AH: header",
    "DOTKEY": "'.key'",
    "$END": "the end of the script",
}
VALUE_TERMINALS = IMPLICIT_TEXT | {
    "QUOTED",
    "SWIM",
    "VAR",
    "BRACED_VAR",
    "ESCAPE",
    "LONE_DOLLAR",
    "CALL_OPEN",
    "SUBEXPR_OPEN",
    "VECTOR_OPEN",
    "MAP_OPEN",
    "LIST_OR_MAP_CALL",
    "LIST_OR_MAP_VAR",
    "BODY_TEXT",
}
STATEMENT_STARTS = {
    "SET",
    "IF",
    "FOREACH",
    "FOR",
    "WITH",
    "TRY",
    "CALL",
    "MODULE",
    "AWAIT",
    "THROW",
    "LOG_KEYWORD",
}


def _describe_expected(expected: set[str]) -> str:
    words: list[str] = []
    if expected & STATEMENT_STARTS:
        words.append("a statement")
        expected = (
            expected
            - STATEMENT_STARTS
            - {
                "NAME",
                "LBRACE",
                "GLOBAL",
                "FAIL",
                "ERROR",
                "WARN",
                "FORCE",
                "BREAK",
                "CONTINUE",
                "RETURN",
                "HEADER",
            }
        )
    if expected & VALUE_TERMINALS:
        words.append("a value")
        expected = expected - VALUE_TERMINALS
    keywords = sorted(
        name.lower()
        for name in expected
        if name.isalpha() and name.isupper() and name not in TERMINAL_NAMES
    )
    words.extend(f"'{word}'" for word in keywords)
    words.extend(sorted(TERMINAL_NAMES[name] for name in expected if name in TERMINAL_NAMES))
    words = list(dict.fromkeys(words))
    if not words:
        return "something else"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the script"
    value = token.value.split("\n", 1)[0]
    if len(value) > 30:
        value = value[:27] + "..."
    return f"'{value}'"


def _hint(text: str, token: Token) -> str | None:
    """A sentence that names the likely mistake, for the common ones."""
    found = token.value.lower() if token.type != "$END" else ""
    if found in NOT_STATEMENTS:
        return NOT_STATEMENTS[found]
    position = len(text) if token.type == "$END" else token.start_pos
    start = (
        max(
            text.rfind(";", 0, position), text.rfind("{", 0, position), text.rfind("}", 0, position)
        )
        + 1
    )
    statement = _strip_comments(text[start:position]).strip()
    first = re.match(r"[A-Za-z][A-Za-z0-9_\-]*", statement)
    word = first.group(0) if first else ""
    if word.lower() in NOT_STATEMENTS:
        return f"'{word}' is not a statement: {NOT_STATEMENTS[word.lower()]}"
    if word != word.lower() and word.lower() in STATEMENT_KEYWORDS:
        return f"keywords are lower case: write '{word.lower()}'"
    if token.value == "{" and word and word not in STATEMENT_KEYWORDS:
        return "argument lists are written in parentheses: Name ( Arg: value );"
    if token.type != "$END" and not statement and token.value[:1] in "$@%":
        if re.match(r"[$@%][A-Za-z{][^=;\n]*=", text[position:]):
            return "assign with 'set $name = value;'"
        return "a value alone is not a statement: use it in one, like set $x = …; or Log-Information …;"
    if token.value == "(" and not statement and text[:position].rstrip().endswith(";"):
        return "remove the ';' before this '(': an argument list belongs to the operation before it"
    return None


_UNTERMINATED = "unterminated string: the {quote} has no closing {quote} on its line (use a swim string >>…>> for text over several lines)"


def _strip_comments(text: str) -> str:
    return re.sub(r"(?m)^\s*(#|//).*$", "", text)


def _report_unexpected(error: UnexpectedInput, text: str) -> None:
    ctx = _ctx()
    hint = ""
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            offset = len(text)
            span = _shift(span_at(text, max(0, offset - 1), 1))
            opened = _unclosed_brace(error)
            expected = _describe_expected(set(error.expected))
            message = f"unexpected end of the script: expected {expected}"
            if opened is not None:
                message = f"unexpected end of the script: expected '}}' to close the '{{' on line {opened}"
        elif token.value[:1] in "\"'" and token.value.split("\n", 1)[0].count(token.value[0]) < 2:
            span = _span(token)
            message = _UNTERMINATED.format(quote=token.value[0])
        else:
            span = _span(token)
            message = f"expected {_describe_expected(set(error.expected))}, found {_describe_token(token)}"
            hint = _hint(text, token) or ""
    elif isinstance(error, UnexpectedCharacters):
        position = error.pos_in_stream
        span = _shift(span_at(text, position, 1))
        char = text[position] if position < len(text) else ""
        rest_of_line = text[position:].split("\n", 1)[0]
        if char in "\"'" and rest_of_line.count(char) < 2:
            message = _UNTERMINATED.format(quote=char)
        elif text.startswith("/*", position):
            message = "unterminated comment: '/*' has no closing '*/'"
        elif text.startswith("${", position):
            message = "unterminated variable: '${' has no closing '}'"
        else:
            allowed = set(error.allowed or ())
            message = f"unexpected character {char!r}: expected {_describe_expected(allowed)}"
    else:  # pragma: no cover - lark raises only the two above
        span = _shift(span_at(text, 0, 1))
        message = str(error)
    if span.line == ctx.last_error_line:
        return
    ctx.last_error_line = span.line
    ctx.error_count += 1
    ctx.report(span, message, hint=hint)


def _shift(span: Span) -> Span:
    """A span computed on a nested body, moved to its place in the script."""
    base = _ctx().base
    if base is None:
        return span
    offset, line, column = base
    return Span(
        offset + span.start,
        offset + span.end,
        line + span.line - 1,
        span.column + column - 1 if span.line == 1 else span.column,
        line + span.end_line - 1,
        span.end_column + column - 1 if span.end_line == 1 else span.end_column,
    )


def _unclosed_brace(error: UnexpectedToken) -> int | None:
    parser = getattr(error, "interactive_parser", None)
    if parser is None:
        return None
    for value in reversed(parser.parser_state.value_stack):
        if isinstance(value, Token) and value.type == "LBRACE":
            return _span(value).line
    return None


# A name that is not an argument (`Name:`), or the '}' that closes the block. A '{' is left out:
# after an operation it is the common mistake of braces around the arguments.
STATEMENT_START = re.compile(r"\}|[A-Za-z][A-Za-z0-9_\-]*(?!\s*(?::[^:]|=>))")
ARGUMENT_START = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*\s*(?::|=>)")
SEPARATORS = {"SEMI": (";", STATEMENT_START), "COMMA": (",", ARGUMENT_START)}


def _error_position(error: UnexpectedInput) -> int:
    if isinstance(error, UnexpectedToken):
        return len(_ctx().text) if error.token.type == "$END" else error.token.start_pos
    return error.pos_in_stream


def _insert_separator(error: UnexpectedInput) -> bool:
    """A ';' or ',' missing at the end of a line, where the next line plainly starts a new
    statement or argument: insert it, warn, and go on."""
    ctx = _ctx()
    text = ctx.text
    position = _error_position(error)
    before = len(text[:position].rstrip())
    if "\n" not in text[before:position] and position < len(text):
        return False
    if position in ctx.inserted:
        return False
    parser = error.interactive_parser
    state = parser.parser_state
    accepts = state.parse_conf.parse_table.states[state.position]
    for terminal, (char, follows) in SEPARATORS.items():
        if terminal not in accepts:
            continue
        if position < len(text) and not follows.match(text, position):
            continue
        ctx.inserted.add(position)
        line, column = _line_and_column(text, before)
        parser.feed_token(
            Token(
                terminal,
                char,
                start_pos=before,
                line=line,
                column=column,
                end_line=line,
                end_column=column,
                end_pos=before,
            )
        )
        _rewind(parser, position)
        where = span_at(text, max(0, before - 1), 1)
        ctx.report(
            Span(
                before, before, where.end_line, where.end_column, where.end_line, where.end_column
            ),
            f"missing '{char}' at the end of line {where.end_line}: accepted, but add the '{char}'",
            severity="warning",
            code="missing-semicolon" if char == ";" else "missing-comma",
        )
        return True
    return False


def _line_and_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _recover(error: UnexpectedInput) -> bool:
    """lark's on_error hook: insert a separator missing at a line end, or report, unwind to the
    nearest statement list, and go on."""
    ctx = _ctx()
    if ctx.base is None and _insert_separator(error):
        return True
    _report_unexpected(error, ctx.text)
    ctx.recoveries += 1
    if ctx.error_count >= MAX_ERRORS or ctx.recoveries > MAX_RECOVERIES:
        return False
    parser = error.interactive_parser
    state = parser.parser_state
    states = state.parse_conf.parse_table.states
    stack = state.state_stack
    while len(stack) > 1 and "statement" not in states[stack[-1]]:
        stack.pop()
        state.value_stack.pop()
    if "statement" not in states[stack[-1]]:
        return False
    if isinstance(error, UnexpectedCharacters):
        # skip the rest of the line
        lexer_state = parser.lexer_thread.state
        position = lexer_state.line_ctr.char_pos
        newline = ctx.text.find("\n", position)
        end = len(ctx.text) if newline < 0 else newline
        lexer_state.line_ctr.feed(ctx.text[position:end] or ctx.text[position : position + 1])
        return True
    token = error.token
    if token.type == "$END":
        return False
    if token.start_pos not in ctx.rewound:
        # read the token again in the statement list's own lexer state: it may start a statement
        ctx.rewound.add(token.start_pos)
        _rewind(parser, token.start_pos)
    return True


def _rewind(parser: Any, position: int) -> None:
    counter = parser.lexer_thread.state.line_ctr
    line, column = _line_and_column(_ctx().text, position)
    counter.char_pos, counter.line, counter.column = position, line, column
    counter.line_start_pos = position - column + 1


# ---- entry points -----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        start=START_RULES,
        transformer=_Builder(),
        maybe_placeholders=False,
        lexer_callbacks={"COMMENT": _collect_comment},
        cache=False,
    )


def tree_parser() -> Lark:
    """The same grammar building only lark's parse tree (for the benchmark's baseline)."""
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        start=START_RULES,
    )


def _collect_comment(token: Token) -> Token:
    context = getattr(_local, "context", None)
    if context is not None and context.base is None:
        text = token.value if token.value.startswith("/*") else token.value.rstrip()
        context.comments.append(
            _Comment(token.start_pos, token.end_pos, token.line, token.end_line, text)
        )
        context.comment_starts.append(token.start_pos)
    return token


def _run(text: str, start: str, name: str) -> Any:
    if not isinstance(text, str):
        raise TypeError("OtterScript text must be a str")
    previous = getattr(_local, "context", None)
    ctx = _Context(text=text)
    _local.context = ctx
    result = None
    try:
        result = _parser().parse(text, start=start, on_error=_recover)
        problem = nesting_problem(result) if result is not None else None
        if problem is not None:
            ctx.diagnostics.append(problem)
    except UnexpectedInput as error:
        if not any(d.is_error for d in ctx.diagnostics):
            _report_unexpected(error, text)
    except RecursionError:
        ctx.report(span_at(text, 0, 1), "the script is nested too deeply to parse")
    except (UnexpectedEOF, Exception) as error:
        ctx.report(
            span_at(text, 0, 1),
            f"internal parser error ({type(error).__name__}: {error}); please report this script",
        )
    finally:
        _local.context = previous
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
