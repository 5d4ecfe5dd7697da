"""Text templates: `$variables` and functions are expanded, and `<% %>` tags hold `if` and
`foreach` around the text, as in Inedo's full template syntax. Tags are found first, even inside
a function's arguments; an opening tag is escaped as `<`%`, and a closing tag needs no escape
(`%`>` is also `%>`)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from engine import ast
from engine.errors import OtterSyntaxError
from engine.parser import parse_condition, parse_expression, parse_text
from engine.values import Value, to_text

TAG = re.compile(r"<%(.*?)%>", re.DOTALL)
IF = re.compile(r"\s*if\s+(.+?)\s*\{\s*\Z", re.DOTALL)
ELSE_IF = re.compile(r"\s*\}\s*else\s+if\s+(.+?)\s*\{\s*\Z", re.DOTALL)
ELSE = re.compile(r"\s*\}\s*else\s*\{\s*\Z")
FOREACH = re.compile(
    r"\s*foreach\s+([$@%](?:[A-Za-z][A-Za-z0-9_\-]*|\{[^}]+\}))\s+in\s+(.+?)\s*\{\s*\Z", re.DOTALL
)
END = re.compile(r"\s*\}\s*\Z")


class TemplateError(ValueError):
    pass


@dataclass
class Branch:
    condition: ast.Predicate | None  # None: else
    body: list = field(default_factory=list)


@dataclass
class Conditional:
    branches: list[Branch]


@dataclass
class Loop:
    variable: ast.VariableRef
    source: ast.Expression
    body: list = field(default_factory=list)


def compile_template(text: str) -> list:
    """The template's parts: Scalars (text with expansions), Conditionals and Loops."""
    root: list = []
    stack: list[tuple[object, list]] = [(None, root)]
    position = 0
    for match in TAG.finditer(text):
        start = match.start()
        _text(text, position, start, stack[-1][1])
        line = text.count("\n", 0, start) + 1
        try:
            _tag(match.group(1), stack, line)
        except OtterSyntaxError as error:
            raise TemplateError(f"line {line}: {error.diagnostics[0].explained}") from None
        position = match.end()
    _text(text, position, len(text), stack[-1][1])
    if len(stack) > 1:
        raise TemplateError("a <% if %> or <% foreach %> tag is never closed with <% } %>")
    return root


def _text(text: str, start: int, end: int, into: list) -> None:
    """The text between two tags; its escapes are the language's (`<`%` is `<%`, `%`>` is
    `%>`). A tag inside a function's arguments ends them, as tags are found first."""
    if start == end:
        return
    try:
        into.append(parse_text(text[start:end]))
    except OtterSyntaxError as error:
        problem = error.diagnostics[0]
        line = text.count("\n", 0, start) + problem.line
        raise TemplateError(f"line {line}: {problem.explained}") from None


def _condition(code: str) -> ast.Predicate:
    """An if tag's condition. Inedo's own template sample compares with a single `=`
    (`<% if $ListCount(@ServersInEnvironment) = 0 { %>`): outside quotes and parentheses,
    a lone `=` is read as `==`."""
    out, quote, depth, position = [], "", 0, 0
    while position < len(code):
        char = code[position]
        if char == "`":
            out.append(code[position : position + 2])
            position += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif (
            char == "="
            and depth == 0
            and code[position - 1 : position] not in ("=", "!", "<", ">")
            and code[position + 1 : position + 2] not in ("=", ">")
        ):
            char = "=="
        out.append(char)
        position += 1
    return parse_condition("".join(out))


def _tag(code: str, stack: list[tuple[object, list]], line: int) -> None:
    if match := FOREACH.match(code):
        written = parse_expression(match.group(1))
        # FOREACH matched a variable: $name is read as text holding it, @name and %name as it
        variable = written.parts[0] if isinstance(written, ast.Scalar) else written
        assert isinstance(variable, ast.VariableRef)
        loop = Loop(variable, parse_expression(match.group(2), "context"))
        stack[-1][1].append(loop)
        stack.append((loop, loop.body))
    elif match := IF.match(code):
        conditional = Conditional([Branch(_condition(match.group(1)))])
        stack[-1][1].append(conditional)
        stack.append((conditional, conditional.branches[0].body))
    elif match := ELSE_IF.match(code) or ELSE.match(code):
        owner = stack[-1][0]
        if not isinstance(owner, Conditional):
            raise TemplateError(f"line {line}: '<%{code}%>' has no <% if %> to belong to")
        branch = Branch(_condition(match.group(1)) if match.re is ELSE_IF else None)
        owner.branches.append(branch)
        stack[-1] = (owner, branch.body)
    elif END.match(code):
        if len(stack) == 1:
            raise TemplateError(f"line {line}: '<% }} %>' closes nothing")
        stack.pop()
    else:
        raise TemplateError(
            f"line {line}: templates allow only if, else and foreach tags, not '<%{code}%>'"
        )


async def render(
    parts: list,
    *,
    evaluate: Callable[[ast.Expression, dict], Awaitable[Value]],
    test: Callable[[ast.Predicate, dict], Awaitable[bool]],
    variables: dict | None = None,
) -> str:
    """The template's text. ``evaluate`` and ``test`` run in the execution, with ``variables``
    (loop variables) added on top of its scope."""
    variables = dict(variables or {})
    out: list[str] = []
    for part in parts:
        if isinstance(part, ast.Scalar):
            out.append(to_text(await evaluate(part, variables)))
        elif isinstance(part, Conditional):
            for branch in part.branches:
                if branch.condition is None or await test(branch.condition, variables):
                    out.append(
                        await render(branch.body, evaluate=evaluate, test=test, variables=variables)
                    )
                    break
        else:
            items = await evaluate(part.source, variables)
            if not isinstance(items, list):
                raise TemplateError(f"foreach in a template needs a list, not '{to_text(items)}'")
            for item in items:
                inner = {**variables, part.variable.name.casefold(): (part.variable.name, item)}
                out.append(await render(part.body, evaluate=evaluate, test=test, variables=inner))
    return "".join(out)
