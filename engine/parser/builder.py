"""Parse tree -> AST: the transformer lark runs inside its LALR parser, so the AST is built as
rules are reduced and no parse tree is ever made."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lark import Token, Transformer, Tree

from engine import ast
from engine.parser.comments import attach_argument_comments, attach_comments
from engine.parser.context import cover, current, token_span
from engine.parser.strings import merge_text, scalar, scalar_parts
from engine.spans import Span, span_at

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


def _variable(token: Token) -> ast.VariableRef:
    name = token.value[1:]
    if name.startswith("{"):
        name = name[1:-1]
    return ast.VariableRef(sigil=token.value[0], name=name, span=token_span(token))


@dataclass(slots=True)
class _IndexKey:
    key: ast.Expression
    dotted: bool
    span: Span | None


@dataclass(slots=True)
class _ArgList:
    arguments: list[ast.CallArgument]
    close: Token
    # Where the inside of the parentheses starts and ends: positions of the script itself, as an
    # argument list never stands in a string's body.
    start: int
    end: int

    def commented(self) -> tuple[ast.CallArgument, ...]:
        """The arguments, given the comments inside the parentheses."""
        return attach_argument_comments(self.arguments, self.start, self.end)


@dataclass(slots=True)
class _Name:
    namespace: str | None
    name: str
    span: Span | None


def _values(children: list[Any], what: str) -> list[Any]:
    """The non-token children of a comma-separated list, warning on a trailing comma."""
    items = [child for child in children if type(child) is not Token]
    if not items or len(children) < 2 * len(items):
        return items  # fewer tokens than items, so fewer commas: none after the last item
    commas = [child for child in children if type(child) is Token and child.type == "COMMA"]
    if len(commas) >= len(items):
        current().report(
            token_span(commas[-1]),
            f"trailing comma after the last {what}",
            severity="warning",
            code="trailing-comma",
        )
    return items


class Builder(Transformer):
    """Builds AST nodes as the LALR parser reduces rules (lark calls it inline)."""

    # The rules without a method here (the helpers lark makes for ``*``, ``+`` and ``_rule``, a
    # third of all reductions) become lark's trees, which their parent rule unpacks: built by
    # Tree itself, without a method call in between.
    __default__ = staticmethod(Tree)

    # scripts and blocks

    def start(self, children):
        return children[0]

    def script(self, children):
        headers = tuple(child.value.rstrip() for child in children if isinstance(child, Token))
        body = children[-1]
        ctx = current()
        body = attach_comments(body, 0, len(ctx.text))
        span = span_at(ctx.text, 0, len(ctx.text)) if ctx.text else None
        return ast.Script(headers=headers, body=body, span=span)

    def body(self, children):
        return tuple(children)

    def block(self, children):
        open_brace, body, close_brace = children
        body = attach_comments(body, open_brace.end_pos, close_brace.start_pos)
        return ast.Block(
            body=body,
            span=cover(open_brace, close_brace),
            braces=(open_brace.start_pos, close_brace.start_pos),
        )

    # operation calls

    def qualified_name(self, children):
        if len(children) == 1:
            return _Name(None, children[0].value, token_span(children[0]))
        return _Name(children[0].value, children[2].value, cover(children[0], children[2]))

    def arglist(self, children):
        arguments = _values(children[1:-1], "argument")
        return _ArgList(arguments, children[-1], children[0].end_pos, children[-1].start_pos)

    def named_argument(self, children):
        if len(children) == 2:
            name, colon = children
            current().report(
                cover(name, colon),
                f"'{name.value}' has no value: accepted as an empty string, but write {name.value}: \"\"",
                severity="warning",
                code="empty-value",
            )
            return ast.Argument(
                name=name.value,
                value=ast.Scalar(parts=(), span=token_span(colon)),
                span=cover(name, colon),
            )
        name, _colon, value = children
        return ast.Argument(name=name.value, value=value, span=cover(name, value))

    def output_argument(self, children):
        name, _arrow, variable = children
        return ast.OutputArgument(
            name=name.value, variable=_variable(variable), span=cover(name, variable)
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
            arguments = arglist.commented()
            last = semicolon or arglist.close
            if semicolon is None:
                _report_missing_semicolon(arglist.close, name.name)
        return ast.OperationCall(
            namespace=name.namespace,
            name=name.name,
            positional=positional,
            arguments=arguments,
            span=cover(name, last) if last is not None else name.span,
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
            arguments = arglist.commented()
            if semicolon is None:
                _report_missing_semicolon(arglist.close, name.name)
        last = semicolon or (arglist.close if arglist else None)
        return ast.CallModule(
            raft=name.namespace, name=name.name, arguments=arguments, span=cover(keyword, last)
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
            span=cover(keyword, children[-1]),
        )

    def target_index(self, children):
        return self.index(children)

    def global_decl(self, children):
        value = children[3] if len(children) == 5 else None
        return ast.GlobalDeclaration(
            variable=_variable(children[1]), value=value, span=cover(children[0], children[-1])
        )

    # logging and status

    def log_stmt(self, children):
        keyword, message, semicolon = children
        level = keyword.value.lower().split("-", 1)[1]
        return ast.Log(level=level, message=message, span=cover(keyword, semicolon))

    def throw_stmt(self, children):
        message = children[1] if len(children) == 3 else None
        return ast.Throw(message=message, span=cover(children[0], children[-1]))

    def await_stmt(self, children):
        token = children[1] if len(children) == 3 else None
        if token is not None and not ASYNC_TOKEN.fullmatch(token.value):
            current().report(
                token_span(token),
                f"an async token is letters and digits, starting with a letter; found '{token.value}'",
            )
        return ast.Await(
            token=token.value if token else None, span=cover(children[0], children[-1])
        )

    def simple_stmt(self, children):
        words = tuple(child.value for child in children[:-1])
        span = cover(children[0], children[-1])
        if words == ("force", "warn"):
            return ast.Warn(force=True, span=span)
        return SIMPLE_STATEMENTS[words](span=span)

    # control flow

    def if_stmt(self, children):
        keyword, condition, block = children[0], children[1], children[2]
        else_ifs: tuple[ast.ElseIf, ...] = ()
        else_body = None
        braces = block.braces
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
            braces += alternative.braces
        return ast.If(
            condition=condition,
            body=block.body,
            else_ifs=else_ifs,
            else_body=else_body,
            span=cover(keyword, children[-1]),
            braces=braces,
        )

    def pred_or(self, children):
        operands = tuple(child for child in children if not isinstance(child, Token))
        if len(operands) == 1:
            return operands[0]
        return ast.Or(operands=operands, span=cover(operands[0], operands[-1]))

    def pred_and(self, children):
        operands = tuple(child for child in children if not isinstance(child, Token))
        return ast.And(operands=operands, span=cover(operands[0], operands[-1]))

    def pred_negation(self, children):
        return ast.Not(operand=children[1], span=cover(children[0], children[1]))

    def pred_group(self, children):
        return children[1]

    def pred_test(self, children):
        if len(children) == 1:
            return ast.IsTrue(operand=children[0], span=children[0].span)
        left, operator, right = children
        return ast.Compare(left=left, operator=operator.value, right=right, span=cover(left, right))

    def foreach_stmt(self, children):
        keyword, target, _in, source, block = children
        span = cover(keyword, block)
        if target.type == "CONTEXT_TYPE":
            return ast.ContextIteration(
                context=target.value,
                source=source,
                body=block.body,
                span=span,
                braces=block.braces,
            )
        return ast.ForEach(
            variable=_variable(target),
            source=source,
            body=block.body,
            span=span,
            braces=block.braces,
        )

    def for_stmt(self, children):
        keyword, context, value, block = children
        return ast.SetContext(
            context=context.value,
            value=value,
            body=block.body,
            span=cover(keyword, block),
            braces=block.braces,
        )

    def with_stmt(self, children):
        directives = tuple(child for child in children if isinstance(child, ast.Directive))
        block = children[-1]
        return ast.With(
            directives=directives,
            body=block.body,
            span=cover(children[0], block),
            braces=block.braces,
        )

    def directive(self, children):
        name = children[0]
        value = children[2].value if len(children) == 3 else None
        canonical = DIRECTIVE_NAMES.get(name.value.lower())
        span = cover(children[0], children[-1])
        if canonical is None:
            current().report(
                token_span(name),
                f"unknown directive '{name.value}'; expected one of {', '.join(ast.DIRECTIVES)}",
            )
            canonical = name.value
        else:
            _check_directive(canonical, value, span)
        return ast.Directive(name=canonical, value=value, span=span)

    def try_stmt(self, children):
        keyword, body, _catch, handler = children
        return ast.Try(
            body=body.body,
            catch_body=handler.body,
            span=cover(keyword, handler),
            braces=body.braces + handler.braces,
        )

    # modules

    def module_decl(self, children):
        keyword, name = children[0], children[1]
        parameters = tuple(child for child in children if isinstance(child, ast.ModuleParameter))
        block = children[-1]
        return ast.ModuleDeclaration(
            name=name.value,
            parameters=parameters,
            body=block.body,
            span=cover(keyword, block),
            braces=block.braces,
        )

    def module_param(self, children):
        output = children[0].type == "OUT"
        rest = children[1:] if output else children
        default = rest[2] if len(rest) == 3 else None
        return ast.ModuleParameter(
            variable=_variable(rest[0]),
            default=default,
            output=output,
            span=cover(children[0], children[-1]),
        )

    # values

    def value(self, children):
        return children[0]

    def expression(self, children):
        return children[0]

    line_value = positional_value = context_value = default_value = index_value = expression

    def condition(self, children):
        return children[0]

    scalar = staticmethod(scalar)

    def element_text(self, children):
        element = children[0]
        parts, _style = scalar_parts(
            children[1:], [ast.Interpolation(expression=element, span=element.span)]
        )
        parts = list(merge_text(parts))
        if len(parts) == 1:
            return element
        return ast.Scalar(parts=tuple(parts), span=cover(element, children[-1]))

    def ref(self, children):
        opener = children[0]
        kind = opener.type
        span: Span | None = token_span(opener)
        position = 1
        node: ast.Expression
        if kind in ("VECTOR_OPEN", "MAP_OPEN"):
            close = next(
                i
                for i, child in enumerate(children)
                if isinstance(child, Token) and child.type == "RPAREN"
            )
            items = _values(children[1:close], "item")
            span = cover(opener, children[close])
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
            span = cover(opener, children[2])
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
            span = token_span(token)
            key = ast.Scalar(parts=(ast.Text(value=token.value[1:], span=span),), span=span)
            return _IndexKey(key, True, span)
        return _IndexKey(children[1], False, cover(children[0], children[2]))

    def map_entry(self, children):
        key, _colon, value = children
        return ast.MapEntry(key=key.value.strip(), value=value, span=cover(key, value))

    def call(self, children):
        opener, args, close = children
        return ast.FunctionCall(
            sigil="$", name=opener.value[1:-1], args=tuple(args), span=cover(opener, close)
        )

    def call_args(self, children):
        return _values(children, "argument")

    def subexpression(self, children):
        opener, expression, close = children
        return ast.Interpolation(expression=expression, span=cover(opener, close))

    def text_body(self, children):
        parts, _style = scalar_parts(children)
        return list(merge_text(parts))


def _check_directive(name: str, value: str | None, span: Span | None) -> None:
    ctx = current()
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
    current().report(
        token_span(close),
        f"missing ';' after ')' of '{name}': accepted, but add the ';'",
        severity="warning",
        code="missing-semicolon",
    )
