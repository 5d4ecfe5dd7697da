"""The OtterScript executer: runs a parsed script against a host.

It follows the formal specification statement by statement; where the specification predates
the 2023 changes (`set` scoping, `break`/`continue`/`return`, `else if`), the 2023 behaviour
wins. docs/otterscript-semantics.md lists every decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from typing import Any

from engine import ast
from engine.agents import Agent, AgentError
from engine.formatter import format_expression
from engine.interpreter.errors import (
    Cancelled,
    ExecutionError,
    FatalError,
    LoopControl,
    ModuleReturn,
)
from engine.interpreter.host import Credential, CredentialRefused, Host
from engine.interpreter.logs import Level, Logger, LogScope, Masker
from engine.limits import MAX_RUN_NESTING
from engine.parser import parse
from engine.registry import REGISTRY, Kind, Operation, OperationSpec
from engine.values import KIND_NAMES, Value, copy_value, describe, is_true, kind, to_text


class Mode(StrEnum):
    COLLECT = "collect"
    COLLECT_EXECUTE = "collect-execute"
    EXECUTE = "execute"


class Status(IntEnum):
    NORMAL = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


class RunState(StrEnum):
    PENDING = "pending"
    EXECUTING = "executing"
    COMPLETED = "completed"


@dataclass(frozen=True)
class Difference:
    property: str
    expected: Any
    actual: Any


@dataclass(frozen=True)
class Drift:
    server: str
    operation: str
    line: int | None
    differences: tuple[Difference, ...]


@dataclass
class ExecutionResult:
    status: Status
    drifted: list[Drift]
    duration: float
    error: str | None = None
    cancelled: bool = False


# ---- scopes and context ---------------------------------------------------------------------


class Scope:
    """A block's runtime variables (by case-insensitive name) and the modules it declares."""

    __slots__ = ("depth", "item", "modules", "parent", "variables")

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
        self.modules: dict[str, ast.ModuleDeclaration] = {}

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
    credential: Credential | None = None
    agents: dict[tuple[str, str], Agent] | None = None  # an isolation block's own agents
    always_execute: bool = False
    locked: bool = False
    in_loop: bool = False
    log: LogScope | None = None
    # the global scope: the execution's, or in a job with targets, the server's own
    globals: Scope = field(default_factory=Scope)


LOCK_WAIT_NOTICE_SECONDS = 2.0  # a block waiting this long for its lock logs that it waits


# ---- the execution ------------------------------------------------------------------------------


class Execution:
    """One run of one script. ``await execution.run()``; ``execution.cancel()`` from anywhere on
    the same event loop stops it."""

    def __init__(
        self,
        script: ast.Script,
        *,
        host: Host,
        mode: Mode | str = Mode.EXECUTE,
        simulate: bool = False,
        variables: dict[str, Value] | None = None,
        targets: Sequence[str] = (),
    ) -> None:
        """With ``targets`` (server names), the script runs as a job's plan does: on every
        server at once, each run with a global scope of its own (see ``for_targets``)."""
        if targets:
            script = for_targets(script, targets)
        # the async block that runs the script for one server, when there are targets
        self.target_body: ast.Statement | None = script.body[0].body[0] if targets else None
        self.script = script
        self.variables = dict(variables or {})  # runtime variables to start with
        self.host = host
        self.mode = Mode(mode)
        self.simulate = simulate
        self.masker = Masker()
        self.logger = Logger(host.sink, self.masker)
        self.run_state = RunState.PENDING
        self.locks: dict[str, asyncio.Lock] = {}
        self.agents: dict[tuple[str, str], Agent] = {}
        self.drift: dict[tuple, Drift] = {}
        self.drifted_blocks: set[tuple] = set()
        self.phase = "execute"  # in collect-execute mode: "collect", then "execute"
        self.main: Strand = Strand()
        self.global_scope = Scope()
        self.raft_modules: dict[tuple[str | None, str], ast.ModuleDeclaration] = {}
        self.enclosing_block: dict[int, int] = _enclosing_blocks(script.body)
        self._modules: dict[int, tuple[ast.ModuleDeclaration, ...]] = {}
        self._steps = 0
        self._task: asyncio.Task[Any] | None = None
        self._cancelled = False
        self._cancel_reason = "The execution was cancelled."
        self._started = 0.0

    # ---- public

    def cancel(self, reason: str = "The execution was cancelled.") -> None:
        """Stop the run: its processes are killed, and it ends with status error and ``reason``
        as its last log line."""
        self._cancel_reason = reason
        self._cancelled = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    @property
    def status(self) -> Status:
        return self.main.status

    async def run(self) -> ExecutionResult:
        self._started = time.monotonic()
        self.run_state = RunState.EXECUTING
        for secret in self.host.sensitive_values():
            self.masker.add(secret)
        error: str | None = None
        self._task = asyncio.current_task()
        try:
            if self._cancelled:
                raise asyncio.CancelledError
            if self.mode == Mode.EXECUTE:
                await self._pass("execute", None)
            elif self.mode == Mode.COLLECT:
                await self._pass("collect", None)
            else:
                await self._pass("collect", "Collecting configuration")
                if self.drift:
                    self.global_scope = Scope()
                    self.main = Strand(status=self.main.status)
                    await self._pass("execute", "Remediating drift")
                else:
                    self.log(
                        Level.INFORMATION, "No drift was found: nothing to execute.", None, None
                    )
        except asyncio.CancelledError:
            self._cancelled = True
            await self._stop_children(self.main)
            self.main.status = Status.ERROR
            error = self._cancel_reason
            self.log(Level.ERROR, error, None, None)
        except ExecutionError as failure:  # fatal ones included
            self.main.status = Status.ERROR
            error = failure.message
            self.report(failure, None)
        except Exception as failure:  # a fault of the engine's: the run ends, never hangs
            await self._stop_children(self.main)
            self.main.status = Status.ERROR
            error = _unexpected(failure)
            self.log(Level.ERROR, error, None, None)
        finally:
            self._task = None
            await self._close_agents(self.agents)
            self.run_state = RunState.COMPLETED
        current = asyncio.current_task()
        if self._cancelled and current is not None and current.cancelling():
            current.uncancel()  # the cancellation was ours, and is handled: the caller goes on
        return ExecutionResult(
            status=self.main.status,
            drifted=list(self.drift.values()),
            duration=time.monotonic() - self._started,
            error=self.masker(error) if error else None,
            cancelled=self._cancelled,
        )

    # ---- passes

    async def _pass(self, phase: str, title: str | None) -> None:
        self.phase = phase
        for name, value in self.variables.items():
            self.global_scope.variables[name.casefold()] = (name, copy_value(value))
        scope = self.logger.open(title, None, None) if title else None
        context = Context(
            strand=self.main,
            server=self.host.default_server,
            directory=self.host.working_directory,
            log=scope,
            globals=self.global_scope,
        )
        try:
            with contextlib.suppress(ModuleReturn):
                await self.body(self.script.body, self.global_scope, context, top_level=True)
            await self.await_children(self.main, None, context, implicit=True)
        finally:
            if scope is not None:
                self.logger.close(scope)

    # ---- logging and status

    def log(self, level: Level, message: str, context: Context | None, line: int | None) -> None:
        self.logger.write(level, message, context.log if context else None, line)
        strand = context.strand if context else self.main
        if level >= Level.ERROR:
            strand.status = Status.ERROR
        elif level >= Level.WARNING and strand.status < Status.WARNING:
            strand.status = Status.WARNING

    def report(
        self, error: ExecutionError, context: Context | None, line: int | None = None
    ) -> None:
        """Log an error with its position, unless that was done where it happened."""
        if not error.logged:
            where = error.span.line if error.span else line
            self.log(Level.ERROR, error.message + error.where(), context, where)
            error.logged = True

    def fail_status(self, context: Context) -> None:
        context.strand.status = Status.ERROR

    # ---- bodies

    async def body(
        self,
        statements: ast.Body,
        parent: Scope,
        context: Context,
        *,
        top_level: bool = False,
        own_scope: bool = False,
    ) -> None:
        """Run a block. It gets a scope of its own unless ``own_scope`` says ``parent`` is one."""
        scope = parent if top_level or own_scope else Scope(parent)
        modules = self._modules.get(id(statements))
        if modules is None:
            modules = tuple(s for s in statements if isinstance(s, ast.ModuleDeclaration))
            self._modules[id(statements)] = modules
        for module in modules:
            scope.modules[module.name.casefold()] = module
        if top_level:
            _check_globals_first(statements)
        handlers = STATEMENTS
        for statement in statements:
            if self._cancelled:
                raise Cancelled("The execution was cancelled.")
            self._steps += 1
            if self._steps % YIELD_EVERY == 0:
                # statements that never wait would starve the loop: log storage, heartbeats,
                # other executions' work and cancellation all run on it
                await self.host.pace()
            await handlers[type(statement)](self, statement, scope, context)

    @contextlib.asynccontextmanager
    async def described(self, statement: ast.Statement, context: Context, name: str | None = None):
        """A log scope named by the statement's description, when it has one."""
        title = name or statement.short_description
        if title is None:
            yield context
            return
        scope = self.logger.open(title, context.log, _line(statement))
        try:
            yield replace(context, log=scope)
        finally:
            self.logger.close(scope)

    # ---- statements

    async def exec_Comment(self, statement: ast.Comment, scope: Scope, context: Context) -> None:
        pass

    async def exec_ModuleDeclaration(
        self, statement: ast.ModuleDeclaration, scope: Scope, context: Context
    ) -> None:
        pass  # declared when its block starts

    async def exec_Block(self, statement: ast.Block, scope: Scope, context: Context) -> None:
        async with self.described(statement, context) as inner:
            await self.body(statement.body, scope, inner)

    async def exec_SetVariable(
        self, statement: ast.SetVariable, scope: Scope, context: Context
    ) -> None:
        variable = statement.variable
        value = await self.evaluate(statement.value, scope, context)
        if statement.indexes:
            await self.set_element(statement, value, scope, context)
            return
        self.check_kind(variable, value, statement.value.span or statement.span)
        self.assign(variable, value, scope, context, statement.scope)

    def assign(
        self,
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

    def check_kind(self, variable: ast.VariableRef, value: Value, span: Any) -> None:
        if kind(value) != variable.sigil:
            raise ExecutionError(
                f"{variable.sigil}{variable.name} holds {_a(KIND_NAMES[variable.sigil])}, but the value is {_a(KIND_NAMES[kind(value)])}",
                span,
            )

    async def set_element(
        self, statement: ast.SetVariable, value: Value, scope: Scope, context: Context
    ) -> None:
        variable = statement.variable
        container = await self.lookup(variable, scope, context, statement.span)
        keys = [to_text(await self.evaluate(key, scope, context)) for key in statement.indexes]
        target: Value = container
        for position, key in enumerate(keys):
            last = position == len(keys) - 1
            if isinstance(target, list):
                index = _list_index(key, target, statement.span, allow_end=last)
                if last:
                    if index == len(target):
                        target.append(value)
                    else:
                        target[index] = value
                else:
                    target = target[index]
            elif isinstance(target, dict):
                if last:
                    target[key] = value
                else:
                    if key not in target:
                        raise ExecutionError(f"the map has no key '{key}'", statement.span)
                    target = target[key]
            else:
                raise ExecutionError(
                    f"{variable.sigil}{variable.name} is text: only lists and maps can be indexed",
                    statement.span,
                )

    async def exec_GlobalDeclaration(
        self, statement: ast.GlobalDeclaration, scope: Scope, context: Context
    ) -> None:
        variable = statement.variable
        if statement.value is None:
            value: Value = {"$": "", "@": [], "%": {}}[variable.sigil]
        else:
            value = await self.evaluate(statement.value, scope, context)
            self.check_kind(variable, value, statement.value.span)
        context.globals.variables[variable.name.casefold()] = (variable.name, value)

    async def exec_Log(self, statement: ast.Log, scope: Scope, context: Context) -> None:
        message = to_text(await self.evaluate(statement.message, scope, context))
        self.log(LOG_LEVELS[statement.level], message, context, _line(statement))

    async def exec_If(self, statement: ast.If, scope: Scope, context: Context) -> None:
        if statement.description:
            async with self.described(statement, context) as inner:
                await self.branch(statement, scope, inner)
        else:
            await self.branch(statement, scope, context)

    async def branch(self, statement: ast.If, scope: Scope, context: Context) -> None:
        if await self.test(statement.condition, scope, context):
            await self.body(statement.body, scope, context)
            return
        for clause in statement.else_ifs:
            if await self.test(clause.condition, scope, context):
                await self.body(clause.body, scope, context)
                return
        if statement.else_body is not None:
            await self.body(statement.else_body, scope, context)

    async def exec_ForEach(self, statement: ast.ForEach, scope: Scope, context: Context) -> None:
        async with self.described(statement, context) as outer:
            items = await self.source_list(statement.source, scope, outer, statement)
            variable = statement.variable
            key = variable.name.casefold()
            inner = replace(outer, in_loop=True)
            for index, item in enumerate(items):
                if kind(item) != variable.sigil:
                    self.check_kind(variable, item, statement.source.span)
                body_scope = Scope(scope, {key: (variable.name, item)}, index)
                try:
                    if statement.description:
                        async with self.described(statement, inner, to_text(item)) as item_context:
                            await self.body(
                                statement.body, body_scope, item_context, own_scope=True
                            )
                    else:
                        await self.body(statement.body, body_scope, inner, own_scope=True)
                except LoopControl as control:
                    if control.kind == "break":
                        break

    async def exec_ContextIteration(
        self, statement: ast.ContextIteration, scope: Scope, context: Context
    ) -> None:
        async with self.described(statement, context) as outer:
            items = await self.source_list(statement.source, scope, outer, statement)
            inner = replace(outer, in_loop=True)
            for index, item in enumerate(items):
                value = to_text(item)
                changed = self.change_context(statement.context, value, inner, statement)
                if changed is None:
                    continue
                name = value if statement.description else None
                async with self.described(statement, changed, name) as item_context:
                    try:
                        body_scope = Scope(scope, item=index)
                        await self.body(statement.body, body_scope, item_context, own_scope=True)
                    except LoopControl as control:
                        if control.kind == "break":
                            break

    async def source_list(
        self, source: ast.Expression, scope: Scope, context: Context, statement: ast.Statement
    ) -> list[Value]:
        items = await self.evaluate(source, scope, context)
        if not isinstance(items, list):
            raise ExecutionError(
                f"foreach needs a list, but the source is {_a(KIND_NAMES[kind(items)])}",
                source.span or statement.span,
            )
        return list(items)

    async def exec_SetContext(
        self, statement: ast.SetContext, scope: Scope, context: Context
    ) -> None:
        async with self.described(statement, context) as outer:
            value = to_text(await self.evaluate(statement.value, scope, outer))
            changed = self.change_context(statement.context, value, outer, statement)
            if changed is not None:
                await self.body(statement.body, scope, changed)

    def change_context(
        self, context_type: str, value: str, context: Context, statement: ast.Statement
    ) -> Context | None:
        """The context for one `for`/`foreach` item; None to skip the block (a role the server
        does not have)."""
        if context_type == "server":
            if not self.host.server_exists(value):
                raise ExecutionError(
                    f"server '{value}' is not one this execution may use", statement.span
                )
            return replace(context, server=value, targeted=True, role=None)
        if context_type == "role":
            roles = [r.casefold() for r in self.host.roles_of(context.server)]
            if value.casefold() not in roles:
                self.log(
                    Level.DEBUG,
                    f"Skipped: server {context.server} does not have the role {value}.",
                    context,
                    _line(statement),
                )
                return None
            return replace(context, role=value)
        if context_type == "directory":
            return replace(context, directory=_join_directory(context.directory, value))
        raise ExecutionError(
            f"the '{context_type}' context is BuildMaster's and has no meaning here", statement.span
        )

    async def exec_With(self, statement: ast.With, scope: Scope, context: Context) -> None:
        directives = {d.name: d.value for d in statement.directives}
        inner = context
        if "lock" in directives and context.locked:
            raise FatalError("a lock inside a locked block would wait for itself", statement.span)
        if (directives.get("executionPolicy") or "").lower() == "always":
            inner = replace(inner, always_execute=True)
        if "credentials" in directives:
            credential = self.credential(directives["credentials"] or "", context, statement.span)
            inner = replace(inner, credential=credential)
        if "isolation" in directives:
            inner = replace(inner, agents={})
        if "lock" in directives:
            inner = replace(inner, locked=True)

        if "async" in directives:
            # the child runs on a copy of the variables in scope; only globals are shared, except
            # between the servers of a job: each server's run has a global scope of its own
            child = Strand()
            globals_ = context.globals
            if statement is self.target_body:
                globals_ = Scope(None, _copied(context.globals.variables))
            child_scope = Scope(globals_, scope.flattened())
            child_context = replace(inner, strand=child, in_loop=False, globals=globals_)
            body = self.run_with(statement, directives, child_scope, child_context)
            # the enclosing log scopes last until the block ends: their duration and status
            # include it (a job's servers, which all run async)
            self.logger.hold(context.log)
            task = asyncio.create_task(self.run_child(body, child_context, child))
            task.add_done_callback(lambda _: self.logger.release(context.log))
            context.strand.children.append(
                AsyncChild(directives["async"], task, child, statement.span)
            )
            return
        await self.run_with(statement, directives, scope, inner)

    async def run_with(
        self, statement: ast.With, directives: dict[str, str | None], scope: Scope, context: Context
    ) -> None:
        async with self.described(statement, context) as inner:
            try:
                await self.with_retry(statement, directives, scope, inner)
            finally:
                if inner.agents:
                    await self._close_agents(inner.agents)

    async def with_retry(
        self, statement: ast.With, directives: dict[str, str | None], scope: Scope, context: Context
    ) -> None:
        retries = int(directives.get("retry") or 0)
        entry_status = context.strand.status
        attempt = 0
        while True:
            try:
                await self.with_timeout(statement, directives, scope, context)
                return
            except FatalError:
                raise
            except ExecutionError as error:
                if attempt >= retries:
                    raise
                attempt += 1
                self.report(error, context, _line(statement))
                self.log(
                    Level.INFORMATION,
                    f"Retrying the block (attempt {attempt + 1} of {retries + 1}).",
                    context,
                    _line(statement),
                )
                context.strand.status = entry_status

    async def with_timeout(
        self, statement: ast.With, directives: dict[str, str | None], scope: Scope, context: Context
    ) -> None:
        seconds = directives.get("timeout")
        if not seconds:
            await self.with_lock(statement, directives, scope, context)
            return
        try:
            async with asyncio.timeout(int(seconds)):
                await self.with_lock(statement, directives, scope, context)
        except TimeoutError:
            raise ExecutionError(
                f"the block did not finish within its timeout of {seconds} seconds", statement.span
            ) from None

    async def with_lock(
        self, statement: ast.With, directives: dict[str, str | None], scope: Scope, context: Context
    ) -> None:
        if "lock" not in directives:
            await self.body(statement.body, scope, context)
            return
        token = directives["lock"] or ""
        if token.startswith("!"):
            lock = self.host.locks.hold(token[1:])  # held across every execution
        else:
            lock = self.locks.setdefault(token.casefold(), asyncio.Lock())
        # a block that waits long for its lock says so, or the run looks stuck
        notice = asyncio.get_running_loop().call_later(
            LOCK_WAIT_NOTICE_SECONDS, self.log, Level.INFORMATION,
            f"Waiting for the lock {token}: another block holds it.", context, _line(statement),
        )  # fmt: skip
        try:
            async with lock:
                notice.cancel()
                await self.body(statement.body, scope, context)
        finally:
            notice.cancel()

    async def run_child(self, body: Awaitable[None], context: Context, strand: Strand) -> None:
        try:
            await body
        except LoopControl as control:
            self.log(
                Level.WARNING,
                f"'{control.kind}' inside an async block has no loop to leave: ignored.",
                context,
                None,
            )
        except ModuleReturn:
            pass
        except ExecutionError as error:
            strand.status = Status.ERROR
            self.report(error, context)
            await self.await_children(strand, None, context, implicit=True, suppress=True)
            raise
        await self.await_children(strand, None, context, implicit=True)

    async def exec_Await(self, statement: ast.Await, scope: Scope, context: Context) -> None:
        await self.await_children(context.strand, statement.token, context, statement=statement)

    async def await_children(
        self,
        strand: Strand,
        token: str | None,
        context: Context,
        *,
        implicit: bool = False,
        suppress: bool = False,
        statement: ast.Statement | None = None,
    ) -> None:
        """Wait for the async blocks started from ``strand`` (with ``token``, when given); take
        on their status; raise the first failure here, where it can be caught."""
        matching = [
            c
            for c in strand.children
            if token is None or (c.token or "").casefold() == token.casefold()
        ]
        if not matching:
            if not implicit:
                what = f"with the token {token}" if token else "running"
                self.log(
                    Level.WARNING,
                    f"There are no async blocks {what} to await.",
                    context,
                    _line(statement),
                )
            return
        for child in matching:
            strand.children.remove(child)
        await asyncio.gather(*(c.task for c in matching), return_exceptions=True)
        failure: ExecutionError | None = None
        for child in matching:
            if child.strand.status > strand.status:
                strand.status = child.strand.status
            if child.task.cancelled():
                continue
            error = child.task.exception()
            if isinstance(error, ExecutionError) and failure is None:
                failure = error
            elif error is not None and failure is None:
                failure = ExecutionError(
                    f"an async block failed unexpectedly: {type(error).__name__}: {error}",
                    child.span,
                )
        if failure is not None and not suppress:
            kind_of_error = FatalError if isinstance(failure, FatalError) else ExecutionError
            raise kind_of_error(
                f"an async block failed: {failure.message}", failure.span, logged=True
            )

    async def _stop_children(self, strand: Strand) -> None:
        for child in strand.children:
            await self._stop_children(child.strand)
            child.task.cancel()
        if strand.children:
            await asyncio.gather(*(c.task for c in strand.children), return_exceptions=True)
        strand.children.clear()

    async def exec_Try(self, statement: ast.Try, scope: Scope, context: Context) -> None:
        async with self.described(statement, context) as inner:
            try:
                await self.body(statement.body, scope, inner)
            except FatalError:
                raise
            except ExecutionError as error:
                self.report(error, inner, _line(statement))
                self.fail_status(inner)
                await self.body(statement.catch_body, scope, inner)

    async def exec_Throw(self, statement: ast.Throw, scope: Scope, context: Context) -> None:
        message = (
            "an error was thrown"
            if statement.message is None
            else to_text(await self.evaluate(statement.message, scope, context))
        )
        self.fail_status(context)
        if statement.message is not None:
            self.log(Level.ERROR, message, context, _line(statement))
        raise ExecutionError(message, statement.span, logged=statement.message is not None)

    async def exec_Fail(self, statement: ast.Fail, scope: Scope, context: Context) -> None:
        self.fail_status(context)
        self.log(Level.ERROR, "The script failed with 'fail': stopping.", context, _line(statement))
        raise FatalError("the script failed with 'fail'", statement.span, logged=True)

    async def exec_Error(self, statement: ast.Error, scope: Scope, context: Context) -> None:
        self.fail_status(context)

    async def exec_Warn(self, statement: ast.Warn, scope: Scope, context: Context) -> None:
        if statement.force or context.strand.status < Status.ERROR:
            context.strand.status = Status.WARNING

    async def exec_ForceNormal(
        self, statement: ast.ForceNormal, scope: Scope, context: Context
    ) -> None:
        context.strand.status = Status.NORMAL

    async def exec_Break(self, statement: ast.Break, scope: Scope, context: Context) -> None:
        await self.loop_control(statement, context, "break")

    async def exec_Continue(self, statement: ast.Continue, scope: Scope, context: Context) -> None:
        await self.loop_control(statement, context, "continue")

    async def loop_control(self, statement: ast.Statement, context: Context, word: str) -> None:
        if not context.in_loop:
            self.log(Level.WARNING, f"'{word}' outside a loop: ignored.", context, _line(statement))
            return
        raise LoopControl(word)

    async def exec_Return(self, statement: ast.Return, scope: Scope, context: Context) -> None:
        raise ModuleReturn()

    # ---- modules

    async def exec_CallModule(
        self, statement: ast.CallModule, scope: Scope, context: Context
    ) -> None:
        module = await self.find_module(statement, scope)
        module_scope = Scope(scope)
        if module_scope.depth > MAX_RUN_NESTING:
            raise FatalError(
                f"blocks and module calls nest more than {MAX_RUN_NESTING} levels deep here: "
                f"does the module '{module.name}' call itself without end?",
                statement.span,
            )
        parameters = {p.variable.name.casefold(): p for p in module.parameters}
        given: set[str] = set()
        for argument in statement.arguments:
            key = argument.name.casefold()
            parameter = parameters.get(key)
            if parameter is None:
                raise ExecutionError(
                    f"module '{module.name}' has no parameter '{argument.name}'",
                    argument.span or statement.span,
                )
            given.add(key)
            if isinstance(argument, ast.Argument):
                value = await self.evaluate(argument.value, scope, context)
                self.check_kind(parameter.variable, value, argument.value.span)
                module_scope.variables[key] = (parameter.variable.name, value)
        for key, parameter in parameters.items():
            if key in given and not parameter.output:
                continue
            if key in given and parameter.output and key in module_scope.variables:
                continue
            if parameter.default is not None:
                value = await self.evaluate(parameter.default, scope, context)
            elif parameter.output:
                value = {"$": "", "@": [], "%": {}}[parameter.variable.sigil]
            else:
                raise ExecutionError(
                    f"module '{module.name}' needs the argument '{parameter.variable.name}', which has no default",
                    statement.span,
                )
            module_scope.variables[key] = (parameter.variable.name, value)
        async with self.described(statement, context) as inner:
            inner = replace(inner, in_loop=False)
            with contextlib.suppress(ModuleReturn):
                await self.body(module.body, module_scope, inner)
        for argument in statement.arguments:
            if isinstance(argument, ast.OutputArgument):
                _name, value = module_scope.variables[argument.name.casefold()]
                self.check_kind(argument.variable, value, argument.span)
                self.assign(argument.variable, value, scope, context)

    async def find_module(self, statement: ast.CallModule, scope: Scope) -> ast.ModuleDeclaration:
        key = statement.name.casefold()
        if statement.raft is None:
            current: Scope | None = scope
            while current is not None:
                if key in current.modules:
                    return current.modules[key]
                current = current.parent
        raft = statement.raft or self.host.raft
        cache_key = ((raft or "").casefold(), key)
        if cache_key in self.raft_modules:
            return self.raft_modules[cache_key]
        text = await self.host.raft_item(raft, statement.name, "module")
        if text is None:
            where = f"the raft '{raft}'" if raft else "this script or its raft"
            raise ExecutionError(
                f"module '{statement.name}' was not found in {where}", statement.span
            )
        try:
            module_script = parse(text, name=f"{raft or ''}::{statement.name}")
        except Exception as error:  # OtterSyntaxError: the raft module does not parse
            raise ExecutionError(
                f"module '{statement.name}' in its raft does not parse: {error}", statement.span
            ) from None
        declared = next(
            (
                s
                for s in module_script.body
                if isinstance(s, ast.ModuleDeclaration) and s.name.casefold() == key
            ),
            None,
        )
        module = declared or ast.ModuleDeclaration(name=statement.name, body=module_script.body)
        self.raft_modules[cache_key] = module
        self.enclosing_block.update(_enclosing_blocks(module_script.body))
        return module

    # ---- operations

    def credential(self, name: str, context: Context, span: Any) -> Credential:
        """The credential ``name`` for use on the server in context (its secret masked from
        now on); an ExecutionError when it does not exist or the host refuses it there."""
        try:
            credential = self.host.credential(
                name, server=context.server if context.targeted else None
            )
        except CredentialRefused as refused:
            raise ExecutionError(str(refused), span) from None
        if credential is None:
            raise ExecutionError(
                f"credential '{name}' does not exist, or this execution may not use it", span
            )
        self.masker.add(credential.secret)
        return credential

    async def exec_OperationCall(
        self, statement: ast.OperationCall, scope: Scope, context: Context
    ) -> None:
        try:
            spec = REGISTRY.find_operation(statement.namespace, statement.name)
        except LookupError as error:
            raise ExecutionError(str(error), statement.span) from None
        values, outputs = await self.bind(spec, statement, scope, context)
        operation = spec.cls(values)
        title = statement.short_description or self.masker(operation.summary())
        log_scope = self.logger.open(title, context.log, _line(statement))
        inner = replace(context, log=log_scope)
        run = OperationRun(self, inner, statement, scope)
        try:
            await self.perform(spec, operation, run, statement, inner)
        except Exception as error:  # whatever an operation raises fails it, and only it
            if isinstance(error, ExecutionError):
                message = error.message
            elif isinstance(error, AgentError | OSError | ValueError):
                message = str(error)
            else:
                message = f"{spec.name} failed: {_unexpected(error)}"
            if not (isinstance(error, ExecutionError) and error.logged):
                self.log(Level.ERROR, message, inner, _line(statement))
            self.fail_status(inner)
            if isinstance(error, FatalError):
                raise
            raise ExecutionError(message, statement.span, logged=True) from None
        finally:
            self.logger.close(log_scope)
        if run.failed:
            raise ExecutionError(f"{spec.name} failed", statement.span, logged=True)
        for argument in outputs:
            value = getattr(operation, spec.find_param(argument.name).attribute)  # type: ignore[union-attr]
            if value is None:
                value = {"$": "", "@": [], "%": {}}[argument.variable.sigil]
            value = _output_value(value)
            self.check_kind(argument.variable, value, argument.span)
            self.assign(argument.variable, value, scope, context)

    async def perform(
        self,
        spec: OperationSpec,
        operation: Operation,
        run: OperationRun,
        statement: ast.OperationCall,
        context: Context,
    ) -> None:
        """Run the operation as its kind and the execution mode say."""
        if self.simulate:
            verb = {Kind.EXECUTE: "execute", Kind.ENSURE: "ensure", Kind.COLLECT: "collect"}[
                spec.kind
            ]
            self.log(
                Level.INFORMATION,
                f"Simulation: would {verb} {operation.summary()} on {context.server}.",
                context,
                _line(statement),
            )
            return
        if spec.kind == Kind.COLLECT:
            await operation.collect(run)
            return
        # an ensure operation is known by its statement, server and loop items; "the same
        # scope" for an execute operation is the block it stands in
        iteration = run.scope.iteration()
        block = (id(statement), context.server, iteration)
        scope_key = (self.enclosing_block.get(id(statement)), context.server, iteration)
        if spec.kind == Kind.ENSURE:
            if self.phase == "collect":
                actual = await operation.collect(run)
                differences = _compare(operation.desired(), actual)
                if differences:
                    self.drift[block] = Drift(
                        context.server, operation.summary(), _line(statement), tuple(differences)
                    )
                    self.drifted_blocks.add(scope_key)
                    for d in differences:
                        self.log(
                            Level.INFORMATION,
                            f"Drift: {d.property} should be {describe(d.expected)}, is {describe(d.actual)}.",
                            context,
                            _line(statement),
                        )
                else:
                    self.log(
                        Level.DEBUG, "No drift: already as configured.", context, _line(statement)
                    )
                return
            if (
                self.mode == Mode.COLLECT_EXECUTE
                and block not in self.drift
                and not context.always_execute
            ):
                self.log(
                    Level.DEBUG,
                    "No drift was found here: nothing to change.",
                    context,
                    _line(statement),
                )
                return
            await operation.execute(run)
            return
        # an execute operation
        if self.phase == "collect":
            self.log(
                Level.DEBUG,
                f"Not run while collecting: {operation.summary()}.",
                context,
                _line(statement),
            )
            return
        if (
            self.mode == Mode.COLLECT_EXECUTE
            and scope_key not in self.drifted_blocks
            and not context.always_execute
        ):
            self.log(
                Level.DEBUG, "Not run: nothing in its block drifted.", context, _line(statement)
            )
            return
        await operation.execute(run)

    async def bind(
        self, spec: OperationSpec, statement: ast.OperationCall, scope: Scope, context: Context
    ) -> tuple[dict[str, Any], list[ast.OutputArgument]]:
        values: dict[str, Any] = {}
        outputs: list[ast.OutputArgument] = []

        async def value_of(parameter, expression: ast.Expression) -> Any:
            value = (
                await self.evaluate(expression, scope, context)
                if parameter.expand
                else _unexpanded(expression)
            )
            try:
                return parameter.convert(value, spec.name)
            except ValueError as error:
                raise ExecutionError(str(error), expression.span or statement.span) from None

        if statement.positional is not None:
            positional = spec.positional
            if positional is None:
                raise ExecutionError(spec.no_positional(), statement.positional.span)
            values[positional.attribute] = await value_of(positional, statement.positional)
        for argument in statement.arguments:
            parameter = spec.find_param(argument.name)
            if parameter is None:
                raise ExecutionError(spec.unknown_argument(argument.name), argument.span)
            if isinstance(argument, ast.OutputArgument):
                if not parameter.output:
                    raise ExecutionError(spec.not_an_output(argument.name), argument.span)
                outputs.append(argument)
                continue
            values[parameter.attribute] = await value_of(parameter, argument.value)
        for parameter in spec.params:
            if parameter.required and parameter.attribute not in values:
                raise ExecutionError(spec.missing(parameter), statement.span)
        return values, outputs

    async def agent(self, context: Context) -> Agent:
        """The agent for the server in context (one per server and credential, or per
        isolation block)."""
        cache = context.agents if context.agents is not None else self.agents
        key = (context.server.casefold(), context.credential.name if context.credential else "")
        agent = cache.get(key)
        if agent is None:
            agent = await self.host.agent(context.server, credential=context.credential)
            cache[key] = agent
        return agent

    async def _close_agents(self, agents: dict[tuple[str, str], Agent]) -> None:
        for agent in agents.values():
            with contextlib.suppress(Exception):
                await agent.close()
        agents.clear()

    # ---- conditions and values

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
                part_type = type(part)
                if part_type is ast.Text:
                    pieces.append(part.value)
                elif part_type is ast.VariableRef:
                    pieces.append(await self.scalar_variable(part, scope, context))
                elif part_type is ast.FunctionCall:
                    pieces.append(to_text(await self.call(part, scope, context)))
                else:  # Interpolation
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
        return await self.index(expression, scope, context)  # type: ignore[arg-type]

    async def index(self, expression: ast.Index, scope: Scope, context: Context) -> Value:
        target = await self.evaluate(expression.target, scope, context)
        key = to_text(await self.evaluate(expression.key, scope, context))
        if isinstance(target, list):
            return target[_list_index(key, target, expression.span)]
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
                f"${variable.name} is {_a(KIND_NAMES[kind(value)])}: write {kind(value)}{variable.name} (or $({kind(value)}{variable.name}) in text)",
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
                f"{variable.sigil}{variable.name} is {_a(KIND_NAMES[kind(value)])}: write {kind(value)}{variable.name}",
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
        self, spec: Any, sigil: str, args: list[Value], span: Any, scope: Scope, context: Context
    ) -> Value:
        problem = spec.check_count(len(args))
        if problem:
            raise ExecutionError(problem, span)
        call = FunctionRun(self, scope, context, sigil, span)
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
                f"{sigil}{spec.name} returns {_a(KIND_NAMES[kind(result)])}: call it as {kind(result)}{spec.name}",
                span,
            )
        return result


# ---- what operations and functions see -------------------------------------------------------


class RunView:
    """What operations and functions see of the run: the server and directory in context, its
    agent, the host, and the variables in scope."""

    def __init__(self, execution: Execution, scope: Scope, context: Context) -> None:
        self.execution = execution
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
        return self.execution.host

    def resolve(self, path: str) -> str:
        return _join_directory(self.context.directory, path)

    async def agent(self) -> Agent:
        return await self.execution.agent(self.context)

    def credential(self, name: str) -> Credential:
        """The credential ``name`` for the server in context, its secret masked in the log;
        an ExecutionError when it does not exist or may not be used here."""
        return self.execution.credential(name, self.context, None)

    def variable(self, name: str) -> Value | None:
        """A runtime or configuration variable by name (sigil optional), or None."""
        key = name.lstrip("$@%").casefold()
        found = self.scope.find(key)
        if found is not None:
            return found.variables[key][1]
        return self.host.variable(name.lstrip("$@%"), self.context.server, self.context.role)

    async def evaluate(self, expression: ast.Expression, variables: dict | None = None) -> Value:
        """Evaluate in this scope, with ``variables`` (casefolded name -> (name, value)) on top."""
        scope = Scope(self.scope, dict(variables)) if variables else self.scope
        return await self.execution.evaluate(expression, scope, self.context)

    async def test(self, predicate: ast.Predicate, variables: dict | None = None) -> bool:
        scope = Scope(self.scope, dict(variables)) if variables else self.scope
        return await self.execution.test(predicate, scope, self.context)


class OperationRun(RunView):
    """An operation's view of the run; its log lines go to the operation's scope."""

    def __init__(
        self, execution: Execution, context: Context, statement: ast.OperationCall, scope: Scope
    ) -> None:
        super().__init__(execution, scope, context)
        self.statement = statement
        self.failed = False

    def log(self, level: Level, message: str) -> None:
        self.execution.log(level, message, self.context, _line(self.statement))
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
        """Every text runtime variable visible here, inner scopes winning (ImportVariables)."""
        found: dict[str, str] = {}
        scope: Scope | None = self.scope
        while scope is not None:
            for name, value in scope.variables.values():
                if isinstance(value, str) and name not in found:
                    found[name] = value
            scope = scope.parent
        return found

    def add_secret(self, secret: str) -> None:
        self.execution.masker.add(secret)

    def set_variable(self, name: str, value: Value) -> None:
        """Create or assign a runtime variable as a plain `set` would."""
        self.execution.assign(
            ast.VariableRef(sigil=kind(value), name=name), value, self.scope, self.context
        )


class FunctionRun(RunView):
    """A variable function's view of the run: ``sigil`` is how it was called."""

    def __init__(
        self, execution: Execution, scope: Scope, context: Context, sigil: str, span: Any
    ) -> None:
        super().__init__(execution, scope, context)
        self.sigil = sigil
        self.span = span

    async def evaluate_text(self, text: str) -> Value:
        """``$Eval``: expand the variables and functions in ``text``."""
        from engine.parser import parse_expression

        try:
            expression = parse_expression(text, "line")
        except Exception as error:
            raise ExecutionError(f"cannot evaluate '{text}': {error}", self.span) from None
        return await self.execution.evaluate(expression, self.scope, self.context)


# ---- helpers ----------------------------------------------------------------------------------


def _unexpected(error: Exception) -> str:
    """The message of an exception no part of the engine expected."""
    if isinstance(error, RecursionError):
        return "the script nests too deeply to run (Python's recursion limit)"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


YIELD_EVERY = 100  # statements between two turns given back to the event loop

LOG_LEVELS = {
    "debug": Level.DEBUG,
    "information": Level.INFORMATION,
    "warning": Level.WARNING,
    "error": Level.ERROR,
}

STATEMENTS: dict[type, Callable[..., Awaitable[None]]] = {
    cls: getattr(Execution, f"exec_{cls.__name__}")
    for cls in ast.node_types()
    if issubclass(cls, ast.Statement)
}


def _line(statement: ast.Statement | None) -> int | None:
    return statement.span.line if statement is not None and statement.span is not None else None


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _list_index(key: str, items: list, span: Any, *, allow_end: bool = False) -> int:
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


def _join_directory(current: str, path: str) -> str:
    import posixpath

    if not path:
        return current
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return path
    return posixpath.normpath(posixpath.join(current or "/", path))


def _unexpanded(expression: ast.Expression) -> str:
    """A value as written, its variables not expanded (DisableVariableExpansion)."""
    if not isinstance(expression, ast.Scalar):
        return format_expression(expression, "line")
    return "".join(
        part.value
        if isinstance(part, ast.Text)
        else format_expression(ast.Scalar(parts=(part,)), "line")
        for part in expression.parts
    )


def _enclosing_blocks(body: ast.Body) -> dict[int, int]:
    """Statement id -> the id of the body it stands in, for every statement below ``body``."""
    found: dict[int, int] = {}
    pending = [body]
    while pending:
        statements = pending.pop()
        for statement in statements:
            found[id(statement)] = id(statements)
            for name in ast.BODY_FIELDS.get(type(statement), ()):
                inner = getattr(statement, name)
                if inner:
                    pending.append(inner)
            if isinstance(statement, ast.If):
                pending.extend(clause.body for clause in statement.else_ifs if clause.body)
    return found


def _check_globals_first(statements: ast.Body) -> None:
    """A global declaration after any other statement is fatal (the specification)."""
    seen_statement = False
    for statement in statements:
        if isinstance(statement, ast.GlobalDeclaration):
            if seen_statement:
                raise FatalError(
                    "a global declaration must come before every other statement", statement.span
                )
        elif not isinstance(statement, ast.Comment | ast.ModuleDeclaration):
            seen_statement = True


def _compare(desired: dict[str, Any], actual: dict[str, Any]) -> list[Difference]:
    differences = []
    for name, expected in desired.items():
        if expected is None:
            continue
        current = actual.get(name)
        if _normalized(expected) != _normalized(current):
            differences.append(Difference(name, expected, current))
    return differences


def _normalized(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.replace("\r\n", "\n")
    return value


def _output_value(value: Any) -> Value:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


def _copied(variables: dict[str, tuple[str, Value]]) -> dict[str, tuple[str, Value]]:
    return {key: (name, copy_value(value)) for key, (name, value) in variables.items()}


def for_targets(script: ast.Script, servers: Sequence[str]) -> ast.Script:
    """The script as the specification runs a job with target servers: one context iteration over
    them whose body runs the script asynchronously for each. The loop has a description, so each
    server's log is a scope of its own."""
    source = ast.Vector(items=tuple(ast.Scalar(parts=(ast.Text(value=name),)) for name in servers))
    body = ast.With(directives=(ast.Directive(name="async"),), body=script.body)
    loop = ast.ContextIteration(
        context="server", source=source, body=(body,), description=("# Servers",)
    )
    return ast.Script(headers=script.headers, body=(loop,), name=script.name)
