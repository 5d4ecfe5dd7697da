"""The OtterScript executer: runs a parsed script against a host.

A ScriptRun puts a run together from parts that each keep one bundle of its state: the
session (host, log, agents), the ledger (modes and drift), the strands (async blocks and locks),
the modules, the evaluator of expressions, and the handlers of the statements.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any

from engine import ast
from engine.interpreter.context import Context, Scope, Strand
from engine.interpreter.errors import ExecutionError, ModuleReturn, unexpected
from engine.interpreter.expressions import Evaluator
from engine.interpreter.handlers import Handlers
from engine.interpreter.host import Host
from engine.interpreter.ledger import Ledger
from engine.interpreter.logs import Level
from engine.interpreter.modules import Modules
from engine.interpreter.results import ExecutionResult, Mode, RunState, Status
from engine.interpreter.session import Session, close_agents
from engine.interpreter.strands import Strands
from engine.interpreter.views import FunctionView
from engine.values import Value, copy_value

CANCELLED = "The execution was cancelled."


class ScriptRun:
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
        target_body: ast.Statement | None = None  # the async block that runs it for one server
        if targets:
            script = for_targets(script, targets)
            loop = script.body[0]
            assert isinstance(loop, ast.ContextIteration)
            target_body = loop.body[0]
        self.script = script
        self.variables = dict(variables or {})  # runtime variables to start with
        self.host = host
        self.run_state = RunState.PENDING
        self.global_scope = Scope()
        self.session = Session(host, simulate=simulate)
        self.ledger = Ledger(Mode(mode), simulate=simulate, body=script.body)
        self.strands = Strands(self.session)
        evaluator = Evaluator(self.session, FunctionView)
        self.handlers = Handlers(
            self.session,
            evaluator,
            Modules(evaluator, self.ledger),
            self.ledger,
            self.strands,
            target_body=target_body,
        )
        self._task: asyncio.Task[Any] | None = None
        self._cancel_reason = CANCELLED
        self._cancel_level = Level.INFORMATION

    def cancel(self, reason: str = CANCELLED, *, level: Level = Level.INFORMATION) -> None:
        """Stop the run: its processes are killed, and it ends with status error and ``reason``
        as its last log line, at ``level``: information when someone asked for it (the run's own
        lines say whether it had failed), an error when a limit or a shutdown stopped it."""
        self._cancel_reason, self._cancel_level = reason, level
        self.handlers.cancelled = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    @property
    def status(self) -> Status:
        return self.strands.main.status

    async def run(self) -> ExecutionResult:
        started = time.monotonic()
        self.run_state = RunState.EXECUTING
        session = self.session
        for secret in self.host.sensitive_values():
            session.masker.add(secret)
        error: str | None = None
        self._task = asyncio.current_task()
        try:
            if self.handlers.cancelled:
                raise asyncio.CancelledError
            if self.ledger.mode == Mode.EXECUTE:
                await self._pass(collecting=False, title=None)
            elif self.ledger.mode == Mode.COLLECT:
                await self._pass(collecting=True, title=None)
            else:
                await self._pass(collecting=True, title="Collecting configuration")
                if self.ledger.drift:
                    self.global_scope = Scope()
                    self.strands.main = Strand(status=self.status)
                    await self._pass(collecting=False, title="Remediating drift")
                else:
                    session.log(
                        Level.INFORMATION, "No drift was found: nothing to execute.", None, None
                    )
        except asyncio.CancelledError:
            self.handlers.cancelled = True
            await self.strands.stop(self.strands.main)
            self.strands.main.status = Status.ERROR
            error = self._cancel_reason
            session.log(self._cancel_level, error, None, None)
        except ExecutionError as failure:  # fatal ones included
            self.strands.main.status = Status.ERROR
            error = failure.message
            session.report(failure, None)
        except Exception as failure:  # a fault of the engine's: the run ends, never hangs
            await self.strands.stop(self.strands.main)
            self.strands.main.status = Status.ERROR
            error = unexpected(failure)
            session.log(Level.ERROR, error, None, None)
        finally:
            self._task = None
            await close_agents(session.agents)
            await self.host.run_ended()
            self.run_state = RunState.COMPLETED
        current = asyncio.current_task()
        if self.handlers.cancelled and current is not None and current.cancelling():
            current.uncancel()  # the cancellation was ours, and is handled: the caller goes on
        return ExecutionResult(
            status=self.status,
            drifted=list(self.ledger.drift.values()),
            duration=time.monotonic() - started,
            error=session.masker(error) if error else None,
            cancelled=self.handlers.cancelled,
        )

    async def _pass(self, *, collecting: bool, title: str | None) -> None:
        self.ledger.collecting = collecting
        for name, value in self.variables.items():
            self.global_scope.variables[name.casefold()] = (name, copy_value(value))
        scope = self.session.logger.open(title, None, None) if title else None
        context = Context(
            strand=self.strands.main,
            server=self.host.default_server,
            directory=self.host.working_directory_of(self.host.default_server),
            log=scope,
            globals=self.global_scope,
        )
        try:
            with contextlib.suppress(ModuleReturn):
                await self.handlers.body(
                    self.script.body, self.global_scope, context, top_level=True
                )
            await self.strands.await_children(self.strands.main, None, context, implicit=True)
        finally:
            if scope is not None:
                self.session.logger.close(scope)


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
