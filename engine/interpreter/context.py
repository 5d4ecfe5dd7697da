"""Where a statement runs: the variables in scope (``Scope``), the strand whose status it sets
(``Strand``), and the context the enclosing blocks chose (``Context``: immutable, a block that
changes it runs its body with a new one)."""

from __future__ import annotations

import asyncio
import posixpath
from dataclasses import dataclass, field
from typing import Any

from engine import ast
from engine.agents import Agent
from engine.interpreter.host import RunCredential
from engine.interpreter.logs import RunScope
from engine.interpreter.results import Status
from engine.values import Value, copy_value


class Scope:
    """A block's runtime variables (by case-insensitive name), and the block: the modules it
    declares are the scope's."""

    __slots__ = ("body", "depth", "item", "parent", "variables")

    def __init__(
        self,
        parent: Scope | None = None,
        variables: dict[str, tuple[str, Value]] | None = None,
        item: int | None = None,
    ) -> None:
        self.parent = parent
        self.depth: int = parent.depth + 1 if parent is not None else 0
        self.item = item  # the loop item this scope runs, to tell runs of a statement apart
        # casefolded name -> (name as first written, value)
        self.variables: dict[str, tuple[str, Value]] = variables if variables is not None else {}
        self.body: ast.Body = ()

    def find(self, key: str) -> Scope | None:
        scope: Scope | None = self
        while scope is not None:
            if key in scope.variables:
                return scope
            scope = scope.parent
        return None

    def iteration(self) -> tuple[int, ...]:
        """The loop item indexes of the enclosing loops, outermost first."""
        items = []
        scope: Scope | None = self
        while scope is not None:
            if scope.item is not None:
                items.append(scope.item)
            scope = scope.parent
        return tuple(reversed(items))

    def flattened(self) -> dict[str, tuple[str, Value]]:
        """Every variable visible here except the global scope's, inner ones winning (copies)."""
        chain = []
        scope: Scope | None = self
        while scope is not None and scope.parent is not None:
            chain.append(scope)
            scope = scope.parent
        merged: dict[str, tuple[str, Value]] = {}
        for scope in reversed(chain):
            for key, (name, value) in scope.variables.items():
                merged[key] = (name, copy_value(value))
        return merged

    def copy(self) -> Scope:
        """A global scope of its own with copies of this scope's variables."""
        variables = self.variables.items()
        return Scope(None, {key: (name, copy_value(value)) for key, (name, value) in variables})


@dataclass
class Strand:
    """The main run, or one `with async` block: its own status and its own async children."""

    status: Status = Status.NORMAL
    children: list[AsyncChild] = field(default_factory=list)


@dataclass
class AsyncChild:
    token: str | None
    task: asyncio.Task[None]
    strand: Strand
    span: Any


@dataclass(frozen=True)
class Context:
    """Where a statement runs: the server, role and directory in context, and the directives
    of the enclosing `with` blocks."""

    strand: Strand
    server: str
    # whether `for server` (or the job's targets) chose the server: a run with no target is in
    # no environment, whatever the default server's are
    targeted: bool = False
    role: str | None = None
    directory: str = ""
    credential: RunCredential | None = None
    agents: dict[tuple[str, str], Agent] | None = None  # an isolation block's own agents
    always_execute: bool = False
    locked: bool = False
    in_loop: bool = False
    log: RunScope | None = None
    # the global scope: the execution's, or in a job with targets, the server's own
    globals: Scope = field(default_factory=Scope)

    def logging_to(self, log: RunScope) -> Context:
        """This context with its lines logged under ``log``: what every operation and described
        block makes, so made without `dataclasses.replace`'s walk of the fields (0.5 µs against
        3)."""
        context = object.__new__(Context)
        context.__dict__.update(self.__dict__, log=log)
        return context


def assign(
    variable: ast.VariableRef,
    value: Value,
    scope: Scope,
    context: Context,
    where: str | None = None,
) -> None:
    """`set` (2023): assign the variable where it exists, else create it globally;
    `set local` always in the current scope; `set global` always in the global scope."""
    key = variable.name.casefold()
    if where == "local":
        target = scope
    elif where == "global":
        target = context.globals
    else:
        target = scope.find(key) or context.globals
    target.variables[key] = (variable.name, value)


def join_directory(current: str, path: str) -> str:
    """``path`` from the directory ``current``."""
    if not path:
        return current
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return path
    if not current:  # the login folder of an SSH server: paths stay relative to it
        return posixpath.normpath(path)
    return posixpath.normpath(posixpath.join(current, path))


def line_of(statement: ast.Statement | None) -> int | None:
    """The line a statement starts on, for the log."""
    return statement.span.line if statement is not None and statement.span is not None else None
