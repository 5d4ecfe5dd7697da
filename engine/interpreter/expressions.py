"""Expression evaluation: text with variables and function calls in it, lists, maps, indexes,
and the conditions of `if`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from engine import ast
from engine.agents import AgentError
from engine.interpreter.context import Context, Scope
from engine.interpreter.errors import ExecutionError
from engine.interpreter.session import Session
from engine.registry import REGISTRY, FunctionRun, FunctionSpec
from engine.spans import Span
from engine.values import KIND_NAMES, Value, is_true, kind, to_text

# what a function's ``call`` is made by: (evaluator, scope, context, sigil, span) -> the view
FunctionViews: TypeAlias = Callable[["Evaluator", Scope, Context, str, "Span | None"], FunctionRun]


class Evaluator:
    """Evaluates expressions and conditions in a scope and a context."""

    __slots__ = ("function_view", "host", "session")

    def __init__(self, session: Session, function_view: FunctionViews) -> None:
        self.session = session
        self.host = session.host
        self.function_view = function_view

    async def test(self, predicate: ast.Predicate, scope: Scope, context: Context) -> bool:
        if isinstance(predicate, ast.IsTrue):
            return is_true(await self.evaluate(predicate.operand, scope, context))
        if isinstance(predicate, ast.Compare):
            left = to_text(await self.evaluate(predicate.left, scope, context))
            right = to_text(await self.evaluate(predicate.right, scope, context))
            return (left == right) == (predicate.operator == "==")
        if isinstance(predicate, ast.Not):
            return not await self.test(predicate.operand, scope, context)
        if isinstance(predicate, ast.And):
            for operand in predicate.operands:
                if not await self.test(operand, scope, context):
                    return False
            return True
        for operand in predicate.operands:  # Or
            if await self.test(operand, scope, context):
                return True
        return False

    async def evaluate(self, expression: ast.Expression, scope: Scope, context: Context) -> Value:
        if type(expression) is ast.Scalar:
            parts = expression.parts
            if len(parts) == 1:
                only = parts[0]
                if type(only) is ast.Text:
                    return only.value
                if type(only) is ast.VariableRef:
                    return await self.scalar_variable(only, scope, context)
            pieces = []
            for part in parts:
                if type(part) is ast.Text:
                    pieces.append(part.value)
                elif type(part) is ast.VariableRef:
                    pieces.append(await self.scalar_variable(part, scope, context))
                elif type(part) is ast.FunctionCall:
                    pieces.append(to_text(await self.call(part, scope, context)))
                elif type(part) is ast.Interpolation:
                    pieces.append(to_text(await self.evaluate(part.expression, scope, context)))
            return "".join(pieces)
        if type(expression) is ast.VariableRef:
            return await self.lookup(expression, scope, context, expression.span)
        if type(expression) is ast.FunctionCall:
            return await self.call(expression, scope, context)
        if type(expression) is ast.Vector:
            return [await self.evaluate(item, scope, context) for item in expression.items]
        if type(expression) is ast.Map:
            return {
                entry.key: await self.evaluate(entry.value, scope, context)
                for entry in expression.entries
            }
        assert type(expression) is ast.Index  # the one kind of expression left
        return await self.index(expression, scope, context)

    async def index(self, expression: ast.Index, scope: Scope, context: Context) -> Value:
        target = await self.evaluate(expression.target, scope, context)
        key = to_text(await self.evaluate(expression.key, scope, context))
        if isinstance(target, list):
            return target[list_index(key, target, expression.span)]
        if isinstance(target, dict):
            if key in target:
                return target[key]
            for name, value in target.items():
                if name.casefold() == key.casefold():
                    return value
            raise ExecutionError(
                f"the map has no key '{key}' (its keys: {', '.join(target) or 'none'})",
                expression.span,
            )
        raise ExecutionError("only lists and maps can be indexed, not text", expression.span)

    async def scalar_variable(
        self, variable: ast.VariableRef, scope: Scope, context: Context
    ) -> str:
        """``$name`` in text: a runtime variable, a configuration variable, or a function called
        without arguments, in that order."""
        key = variable.name.casefold()
        found = scope.find(key)
        value: Value | None
        if found is not None:
            value = found.variables[key][1]
        else:
            value = self.host.variable(variable.name, context.server, context.role)
            if value is None:
                spec = REGISTRY.find_function(variable.name)
                if spec is None:
                    raise ExecutionError(
                        f"${variable.name} is not defined: no variable or function has that name",
                        variable.span,
                    )
                value = await self.invoke(spec, "$", [], variable.span, scope, context)
        if not isinstance(value, str):
            raise ExecutionError(
                f"${variable.name} is {with_article(KIND_NAMES[kind(value)])}: write {kind(value)}{variable.name} (or $({kind(value)}{variable.name}) in text)",
                variable.span,
            )
        return value

    async def lookup(
        self, variable: ast.VariableRef, scope: Scope, context: Context, span: Any
    ) -> Value:
        """``@name`` or ``%name``: a runtime variable, a configuration variable, or a function
        called without arguments (``@AllServers``), in that order."""
        key = variable.name.casefold()
        found = scope.find(key)
        value = (
            found.variables[key][1]
            if found is not None
            else self.host.variable(variable.name, context.server, context.role)
        )
        if value is None:
            spec = REGISTRY.find_function(variable.name)
            if spec is None:
                raise ExecutionError(
                    f"{variable.sigil}{variable.name} is not defined: no variable or function has that name",
                    span,
                )
            value = await self.invoke(spec, variable.sigil, [], span, scope, context)
        if kind(value) != variable.sigil:
            raise ExecutionError(
                f"{variable.sigil}{variable.name} is {with_article(KIND_NAMES[kind(value)])}: write {kind(value)}{variable.name}",
                span,
            )
        return value

    async def call(self, call: ast.FunctionCall, scope: Scope, context: Context) -> Value:
        spec = REGISTRY.find_function(call.name)
        if spec is None:
            raise ExecutionError(f"unknown function {call.sigil}{call.name}", call.span)
        args = [await self.evaluate(arg, scope, context) for arg in call.args]
        return await self.invoke(spec, call.sigil, args, call.span, scope, context)

    async def invoke(
        self,
        spec: FunctionSpec,
        sigil: str,
        args: list[Value],
        span: Span | None,
        scope: Scope,
        context: Context,
    ) -> Value:
        problem = spec.check_count(len(args))
        if problem:
            raise ExecutionError(problem, span)
        call = self.function_view(self, scope, context, sigil, span)
        try:
            result = spec.implementation(call, *args)
            if spec.is_async:
                result = await result
        except ExecutionError:
            raise
        except (ValueError, TypeError, KeyError, IndexError, AgentError, OSError) as error:
            raise ExecutionError(f"{sigil}{spec.name}: {error}", span) from None
        if kind(result) != sigil:
            if sigil == "$":
                return to_text(result)
            raise ExecutionError(
                f"{sigil}{spec.name} returns {with_article(KIND_NAMES[kind(result)])}: call it as {kind(result)}{spec.name}",
                span,
            )
        return result


def check_kind(variable: ast.VariableRef, value: Value, span: Any) -> None:
    """An ExecutionError unless ``value`` is of the variable's kind (its sigil)."""
    if kind(value) != variable.sigil:
        raise ExecutionError(
            f"{variable.sigil}{variable.name} holds {with_article(KIND_NAMES[variable.sigil])}, but the value is {with_article(KIND_NAMES[kind(value)])}",
            span,
        )


def empty_value(sigil: str) -> Value:
    """A variable's value before anything is assigned to it: empty text, list or map."""
    if sigil == "@":
        return []
    if sigil == "%":
        return {}
    return ""


def list_index(key: str, items: list, span: Any, *, allow_end: bool = False) -> int:
    """``key`` as an index of ``items`` (or, with ``allow_end``, the index just past them)."""
    try:
        index = int(key)
    except ValueError:
        raise ExecutionError(f"a list index is a whole number, not '{key}'", span) from None
    limit = len(items) + (1 if allow_end else 0)
    if not 0 <= index < limit:
        raise ExecutionError(
            f"index {index} is outside the list (it has {len(items)} item{'s' if len(items) != 1 else ''})",
            span,
        )
    return index


def with_article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"
