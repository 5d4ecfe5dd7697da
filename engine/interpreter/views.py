"""What operations and functions see of the run: the objects passed as an operation's ``run``
(an OperationRun) and a function's ``call`` (a FunctionRun); engine.registry describes both."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

from engine import ast
from engine.agents import Agent
from engine.interpreter.context import Context, Scope, assign, join_directory, line_of
from engine.interpreter.errors import ExecutionError
from engine.interpreter.expressions import Evaluator
from engine.interpreter.host import Host, RunCredential
from engine.interpreter.logs import Level
from engine.parser import parse_expression
from engine.registry import FunctionRun, OperationRun, Run
from engine.values import Value, kind

T = TypeVar("T")


class RunView(Run):
    """The run as seen from a scope and a context."""

    def __init__(self, evaluator: Evaluator, scope: Scope, context: Context) -> None:
        self.evaluator = evaluator
        self.session = evaluator.session
        self.scope = scope
        self.context = context

    @property
    def server(self) -> str:
        return self.context.server

    @property
    def working_directory(self) -> str:
        return self.context.directory

    @property
    def host(self) -> Host:
        return self.session.host

    @property
    def simulate(self) -> bool:
        return self.session.simulate

    def resolve(self, path: str) -> str:
        return join_directory(self.context.directory, path)

    async def agent(self) -> Agent:
        return await self.session.agent(self.context)

    async def fact(self, name: str, load: Callable[[], Awaitable[T]]) -> T:
        return await self.session.facts.get(await self.agent(), name, load)

    def elsewhere(self, server: str) -> RunView:
        """The run as seen from ``server`` instead (its agent, its working directory, its own
        login): for an operation that reaches two servers (Transfer-Files)."""
        if not self.host.server_exists(server):
            raise ValueError(f"server '{server}' is not one this execution may use")
        if server.casefold() == self.context.server.casefold():
            return self
        context = replace(
            self.context,
            server=server,
            credential=None,
            directory=self.host.working_directory_of(server),
        )
        return RunView(self.evaluator, self.scope, context)

    def credential(self, name: str, *, kinds=None, use: str = "") -> RunCredential:
        return self.session.credential(name, self.context, None, kinds=kinds, use=use)

    def variable(self, name: str) -> Value | None:
        key = name.lstrip("$@%").casefold()
        found = self.scope.find(key)
        if found is not None:
            return found.variables[key][1]
        return self.host.variable(name.lstrip("$@%"), self.context.server, self.context.role)

    async def evaluate(self, expression: ast.Expression, variables: dict | None = None) -> Value:
        scope = Scope(self.scope, dict(variables)) if variables else self.scope
        return await self.evaluator.evaluate(expression, scope, self.context)

    async def test(self, predicate: ast.Predicate, variables: dict | None = None) -> bool:
        scope = Scope(self.scope, dict(variables)) if variables else self.scope
        return await self.evaluator.test(predicate, scope, self.context)


class OperationView(RunView, OperationRun):
    """An operation's view of the run; its log lines go to the operation's scope, and an error
    among them fails the operation."""

    def __init__(
        self, evaluator: Evaluator, scope: Scope, context: Context, statement: ast.OperationCall
    ) -> None:
        super().__init__(evaluator, scope, context)
        self.statement = statement
        self.failed = False

    def log(self, level: Level, message: str) -> None:
        self.session.log(level, message, self.context, line_of(self.statement))
        if level >= Level.ERROR:
            self.failed = True

    def debug(self, message: str) -> None:
        self.log(Level.DEBUG, message)

    def info(self, message: str) -> None:
        self.log(Level.INFORMATION, message)

    def warn(self, message: str) -> None:
        self.log(Level.WARNING, message)

    def error(self, message: str) -> None:
        self.log(Level.ERROR, message)

    def scalar_variables(self) -> dict[str, str]:
        found: dict[str, str] = {}
        scope: Scope | None = self.scope
        while scope is not None:
            for name, value in scope.variables.values():
                if isinstance(value, str) and name not in found:
                    found[name] = value
            scope = scope.parent
        return found

    def add_secret(self, secret: str) -> None:
        self.session.masker.add(secret)

    def set_variable(self, name: str, value: Value) -> None:
        assign(ast.VariableRef(sigil=kind(value), name=name), value, self.scope, self.context)


class FunctionView(RunView, FunctionRun):
    """A variable function's view of the run: ``sigil`` is how it was called."""

    def __init__(
        self, evaluator: Evaluator, scope: Scope, context: Context, sigil: str, span: Any
    ) -> None:
        super().__init__(evaluator, scope, context)
        self.sigil = sigil
        self.span = span

    async def evaluate_text(self, text: str) -> Value:
        try:
            expression = parse_expression(text, "line")
        except Exception as error:
            raise ExecutionError(f"cannot evaluate '{text}': {error}", self.span) from None
        return await self.evaluator.evaluate(expression, self.scope, self.context)
