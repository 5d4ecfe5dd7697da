"""The statements: one ``visit_`` method for each type of statement, and ``body`` that runs a
block of them.

They follow the formal specification statement by statement; where the specification predates
the 2023 changes (`set` scoping, `break`/`continue`/`return`, `else if`), the 2023 behaviour
wins. docs/otterscript-semantics.md lists every decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import replace

from engine import ast
from engine.agents import AgentError
from engine.interpreter.context import Context, Scope, Strand, assign, join_directory, line_of
from engine.interpreter.errors import (
    Cancelled,
    ExecutionError,
    FatalError,
    LoopControl,
    ModuleReturn,
    unexpected,
)
from engine.interpreter.expressions import (
    Evaluator,
    check_kind,
    empty_value,
    list_index,
    with_article,
)
from engine.interpreter.facts import reading
from engine.interpreter.ledger import Action, Ledger, Place
from engine.interpreter.logs import Level
from engine.interpreter.modules import Modules
from engine.interpreter.results import Status
from engine.interpreter.session import Session, close_agents
from engine.interpreter.strands import Strands
from engine.interpreter.views import OperationView
from engine.registry import REGISTRY, Operation
from engine.values import KIND_NAMES, Value, describe, kind, to_text
from engine.visitor import Visitor

# Statements between two turns given back to the event loop, and the longest the run keeps it
# (statements that call slow functions, such as a regular expression that runs to its limit).
YIELD_EVERY = 100
YIELD_SECONDS = 0.05

LOG_LEVELS = {
    "debug": Level.DEBUG,
    "information": Level.INFORMATION,
    "warning": Level.WARNING,
    "error": Level.ERROR,
}

Directives = dict[str, str | None]


class Handlers(Visitor[Awaitable[None]]):
    """Runs the statements of a run: ``body`` a block, a ``visit_`` method each statement."""

    def __init__(
        self,
        session: Session,
        evaluator: Evaluator,
        modules: Modules,
        ledger: Ledger,
        strands: Strands,
        *,
        target_body: ast.Statement | None,
    ) -> None:
        self.session = session
        self.host = session.host
        self.logger = session.logger
        self.evaluator = evaluator
        self.modules = modules
        self.ledger = ledger
        self.strands = strands
        # the async block that runs the script for one server, when a job has targets
        self.target_body = target_body
        self.cancelled = False  # the next statement raises Cancelled
        self._steps = 0
        self._yielded = time.monotonic()  # when the run last gave the loop a turn

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
        scope.body = statements
        if top_level:
            misplaced = next(ast.misplaced_globals(statements), None)
            if misplaced is not None:
                raise FatalError(ast.MISPLACED_GLOBAL, misplaced.span)
        methods = self._methods  # the visitor's, by statement type: visit() inline, a call less
        for statement in statements:
            if self.cancelled:
                raise Cancelled("The execution was cancelled.")
            self._steps += 1
            now = time.monotonic()
            if self._steps % YIELD_EVERY == 0 or now - self._yielded > YIELD_SECONDS:
                # statements that never wait would starve the loop: log storage, heartbeats,
                # other executions' work and cancellation all run on it
                self._yielded = now
                await self.host.pace()
            try:
                method = methods[type(statement)]
            except KeyError:
                method = self._method_for(type(statement))
            await method(self, statement, scope, context)

    @contextlib.asynccontextmanager
    async def described(
        self, statement: ast.Statement, context: Context, name: str | None = None
    ) -> AsyncIterator[Context]:
        """A log scope named by the statement's description, when it has one."""
        title = name or statement.short_description
        if title is None:
            yield context
            return
        scope = self.logger.open(title, context.log, line_of(statement))
        try:
            yield context.logging_to(scope)
        finally:
            self.logger.close(scope)

    def fail_status(self, context: Context) -> None:
        context.strand.status = Status.ERROR

    # ---- blocks and variables

    async def visit_comment(self, statement: ast.Comment, scope: Scope, context: Context) -> None:
        pass

    async def visit_module_declaration(
        self, statement: ast.ModuleDeclaration, scope: Scope, context: Context
    ) -> None:
        pass  # declared when its block starts

    async def visit_block(self, statement: ast.Block, scope: Scope, context: Context) -> None:
        async with self.described(statement, context) as inner:
            await self.body(statement.body, scope, inner)

    async def visit_set_variable(
        self, statement: ast.SetVariable, scope: Scope, context: Context
    ) -> None:
        variable = statement.variable
        value = await self.evaluator.evaluate(statement.value, scope, context)
        if statement.indexes:
            await self.set_element(statement, value, scope, context)
            return
        check_kind(variable, value, statement.value.span or statement.span)
        assign(variable, value, scope, context, statement.scope)

    async def set_element(
        self, statement: ast.SetVariable, value: Value, scope: Scope, context: Context
    ) -> None:
        variable = statement.variable
        container = await self.evaluator.lookup(variable, scope, context, statement.span)
        keys = [
            to_text(await self.evaluator.evaluate(key, scope, context)) for key in statement.indexes
        ]
        target: Value = container
        for position, key in enumerate(keys):
            last = position == len(keys) - 1
            if isinstance(target, list):
                index = list_index(key, target, statement.span, allow_end=last)
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

    async def visit_global_declaration(
        self, statement: ast.GlobalDeclaration, scope: Scope, context: Context
    ) -> None:
        variable = statement.variable
        if statement.value is None:
            value = empty_value(variable.sigil)
        else:
            value = await self.evaluator.evaluate(statement.value, scope, context)
            check_kind(variable, value, statement.value.span)
        context.globals.variables[variable.name.casefold()] = (variable.name, value)

    async def visit_log(self, statement: ast.Log, scope: Scope, context: Context) -> None:
        message = to_text(await self.evaluator.evaluate(statement.message, scope, context))
        self.session.log(LOG_LEVELS[statement.level], message, context, line_of(statement))

    # ---- conditions and loops

    async def visit_if(self, statement: ast.If, scope: Scope, context: Context) -> None:
        if statement.description:
            async with self.described(statement, context) as inner:
                await self.branch(statement, scope, inner)
        else:
            await self.branch(statement, scope, context)

    async def branch(self, statement: ast.If, scope: Scope, context: Context) -> None:
        if await self.evaluator.test(statement.condition, scope, context):
            await self.body(statement.body, scope, context)
            return
        for clause in statement.else_ifs:
            if await self.evaluator.test(clause.condition, scope, context):
                await self.body(clause.body, scope, context)
                return
        if statement.else_body is not None:
            await self.body(statement.else_body, scope, context)

    async def visit_for_each(self, statement: ast.ForEach, scope: Scope, context: Context) -> None:
        async with self.described(statement, context) as outer:
            items = await self.source_list(statement.source, scope, outer, statement)
            variable = statement.variable
            key = variable.name.casefold()
            inner = replace(outer, in_loop=True)
            for index, item in enumerate(items):
                if kind(item) != variable.sigil:
                    check_kind(variable, item, statement.source.span)
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

    async def visit_context_iteration(
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
        items = await self.evaluator.evaluate(source, scope, context)
        if not isinstance(items, list):
            raise ExecutionError(
                f"foreach needs a list, but the source is {with_article(KIND_NAMES[kind(items)])}",
                source.span or statement.span,
            )
        return list(items)

    async def visit_set_context(
        self, statement: ast.SetContext, scope: Scope, context: Context
    ) -> None:
        async with self.described(statement, context) as outer:
            value = to_text(await self.evaluator.evaluate(statement.value, scope, outer))
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
            directory = context.directory
            if directory == self.host.working_directory_of(context.server):
                # the folder runs start in on that server, unless the script chose one
                directory = self.host.working_directory_of(value)
            return replace(context, server=value, targeted=True, role=None, directory=directory)
        if context_type == "role":
            roles = [r.casefold() for r in self.host.roles_of(context.server)]
            if value.casefold() not in roles:
                self.session.log(
                    Level.DEBUG,
                    f"Skipped: server {context.server} does not have the role {value}.",
                    context,
                    line_of(statement),
                )
                return None
            return replace(context, role=value)
        if context_type == "directory":
            return replace(context, directory=join_directory(context.directory, value))
        raise ExecutionError(
            f"the '{context_type}' context is BuildMaster's and has no meaning here", statement.span
        )

    # ---- with

    async def visit_with(self, statement: ast.With, scope: Scope, context: Context) -> None:
        directives = {d.name: d.value for d in statement.directives}
        inner = context
        if "lock" in directives and context.locked:
            raise FatalError("a lock inside a locked block would wait for itself", statement.span)
        if (directives.get("executionPolicy") or "").lower() == "always":
            inner = replace(inner, always_execute=True)
        if "credentials" in directives:
            name = directives["credentials"] or ""
            credential = self.session.credential(name, context, statement.span)
            inner = replace(inner, credential=credential)
        if "isolation" in directives:
            inner = replace(inner, agents={})
        if "lock" in directives:
            inner = replace(inner, locked=True)

        if "async" in directives:
            # the child runs on a copy of the variables in scope; only globals are shared, except
            # between the servers of a job: each server's run has a global scope of its own
            globals_ = context.globals.copy() if statement is self.target_body else context.globals
            child_scope = Scope(globals_, scope.flattened())
            child = replace(inner, strand=Strand(), in_loop=False, globals=globals_)
            body = self.run_with(statement, directives, child_scope, child)
            self.strands.start(body, context, child, directives["async"], statement.span)
            return
        await self.run_with(statement, directives, scope, inner)

    async def run_with(
        self, statement: ast.With, directives: Directives, scope: Scope, context: Context
    ) -> None:
        async with self.described(statement, context) as inner:
            try:
                await self.with_retry(statement, directives, scope, inner)
            finally:
                if inner.agents:
                    await close_agents(inner.agents)

    async def with_retry(
        self, statement: ast.With, directives: Directives, scope: Scope, context: Context
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
                self.session.report(error, context, line_of(statement))
                self.session.log(
                    Level.INFORMATION,
                    f"Retrying the block (attempt {attempt + 1} of {retries + 1}).",
                    context,
                    line_of(statement),
                )
                context.strand.status = entry_status

    async def with_timeout(
        self, statement: ast.With, directives: Directives, scope: Scope, context: Context
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
        self, statement: ast.With, directives: Directives, scope: Scope, context: Context
    ) -> None:
        if "lock" not in directives:
            await self.body(statement.body, scope, context)
            return
        async with self.strands.lock(directives["lock"] or "", context, line_of(statement)):
            await self.body(statement.body, scope, context)

    async def visit_await(self, statement: ast.Await, scope: Scope, context: Context) -> None:
        await self.strands.await_children(
            context.strand, statement.token, context, line=line_of(statement)
        )

    # ---- errors and status

    async def visit_try(self, statement: ast.Try, scope: Scope, context: Context) -> None:
        async with self.described(statement, context) as inner:
            try:
                await self.body(statement.body, scope, inner)
            except FatalError:
                raise
            except ExecutionError as error:
                self.session.report(error, inner, line_of(statement))
                self.fail_status(inner)
                await self.body(statement.catch_body, scope, inner)

    async def visit_throw(self, statement: ast.Throw, scope: Scope, context: Context) -> None:
        message = (
            "an error was thrown"
            if statement.message is None
            else to_text(await self.evaluator.evaluate(statement.message, scope, context))
        )
        self.fail_status(context)
        if statement.message is not None:
            self.session.log(Level.ERROR, message, context, line_of(statement))
        raise ExecutionError(message, statement.span, logged=statement.message is not None)

    async def visit_fail(self, statement: ast.Fail, scope: Scope, context: Context) -> None:
        self.fail_status(context)
        self.session.log(
            Level.ERROR, "The script failed with 'fail': stopping.", context, line_of(statement)
        )
        raise FatalError("the script failed with 'fail'", statement.span, logged=True)

    async def visit_error(self, statement: ast.Error, scope: Scope, context: Context) -> None:
        self.fail_status(context)

    async def visit_warn(self, statement: ast.Warn, scope: Scope, context: Context) -> None:
        if statement.force or context.strand.status < Status.ERROR:
            context.strand.status = Status.WARNING

    async def visit_force_normal(
        self, statement: ast.ForceNormal, scope: Scope, context: Context
    ) -> None:
        context.strand.status = Status.NORMAL

    async def visit_break(self, statement: ast.Break, scope: Scope, context: Context) -> None:
        await self.loop_control(statement, context, "break")

    async def visit_continue(self, statement: ast.Continue, scope: Scope, context: Context) -> None:
        await self.loop_control(statement, context, "continue")

    async def loop_control(self, statement: ast.Statement, context: Context, word: str) -> None:
        if not context.in_loop:
            self.session.log(
                Level.WARNING, f"'{word}' outside a loop: ignored.", context, line_of(statement)
            )
            return
        raise LoopControl(word)

    async def visit_return(self, statement: ast.Return, scope: Scope, context: Context) -> None:
        raise ModuleReturn()

    # ---- modules and operations

    async def visit_call_module(
        self, statement: ast.CallModule, scope: Scope, context: Context
    ) -> None:
        module = await self.modules.find(statement, scope)
        module_scope = await self.modules.bind_module(module, statement, scope, context)
        async with self.described(statement, context) as inner:
            with contextlib.suppress(ModuleReturn):
                await self.body(module.body, module_scope, replace(inner, in_loop=False))
        self.modules.assign_module_outputs(statement, module_scope, scope, context)

    async def visit_operation_call(
        self, statement: ast.OperationCall, scope: Scope, context: Context
    ) -> None:
        try:
            spec = REGISTRY.find_operation(statement.namespace, statement.name)
        except LookupError as error:
            raise ExecutionError(str(error), statement.span) from None
        values, outputs = await self.modules.bind_operation(spec, statement, scope, context)
        operation = spec.cls(values)
        title = statement.short_description or self.session.masker(operation.summary())
        log_scope = self.logger.open(title, context.log, line_of(statement))
        inner = context.logging_to(log_scope)
        run = OperationView(self.evaluator, scope, inner, statement)
        try:
            await self.perform(operation, run, statement, inner)
        except Exception as error:  # whatever an operation raises fails it, and only it
            if isinstance(error, ExecutionError):
                message = error.message
            elif isinstance(error, AgentError | OSError | ValueError):
                message = str(error)
            else:
                message = f"{spec.name} failed: {unexpected(error)}"
            if not (isinstance(error, ExecutionError) and error.logged):
                self.session.log(Level.ERROR, message, inner, line_of(statement))
            self.fail_status(inner)
            if isinstance(error, FatalError):
                raise
            raise ExecutionError(message, statement.span, logged=True) from None
        finally:
            self.logger.close(log_scope)
        if run.failed:
            raise ExecutionError(f"{spec.name} failed", statement.span, logged=True)
        self.modules.assign_operation_outputs(operation, outputs, scope, context)

    async def perform(
        self,
        operation: Operation,
        run: OperationView,
        statement: ast.OperationCall,
        context: Context,
    ) -> None:
        """Run the operation as its kind and the execution mode say: the ledger's step."""
        kind_of_operation = operation.spec.kind
        place = Place(statement, context.server, run.scope.iteration())
        step = self.ledger.step(kind_of_operation, place, always_execute=context.always_execute)
        line = line_of(statement)
        if step.action is Action.EXECUTE:
            await operation.execute(run)
        elif step.action is Action.COLLECT:
            with reading():
                await operation.collect(run)
        elif step.action is Action.COMPARE:
            with reading():
                actual = await operation.collect(run)
            summary = operation.summary()
            differences = self.ledger.compare(place, summary, operation.desired(), actual)
            for d in differences:
                self.session.log(
                    Level.INFORMATION,
                    f"Drift: {d.property} should be {describe(d.expected)}, is {describe(d.actual)}.",
                    context,
                    line,
                )
            if not differences:
                self.session.log(Level.DEBUG, "No drift: already as configured.", context, line)
        elif step.action is Action.SIMULATE:
            self.session.log(
                Level.INFORMATION,
                f"Simulation: would {kind_of_operation} {operation.summary()} on {context.server}.",
                context,
                line,
            )
        else:
            self.session.log(
                Level.DEBUG, step.reason.format(summary=operation.summary()), context, line
            )
