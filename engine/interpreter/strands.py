"""Async strands and locks. A `with async` block runs as a task with a strand of its own (its
status, and the async blocks it starts); `await` waits for them and takes on their status and
their first failure. `with lock` lets one block at a time hold a token: within the run, or with
a token that starts with ! across every execution of the host."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from engine.interpreter.context import AsyncChild, Context, Strand
from engine.interpreter.errors import ExecutionError, FatalError, LoopControl, ModuleReturn
from engine.interpreter.logs import Level
from engine.interpreter.results import Status
from engine.interpreter.session import Session

LOCK_WAIT_NOTICE_SECONDS = 2.0  # a block waiting this long for its lock logs that it waits


class Strands:
    """The main strand, and the locks the run's blocks take (its own; the host's are shared)."""

    __slots__ = ("_locks", "main", "session")

    def __init__(self, session: Session) -> None:
        self.session = session
        self.main = Strand()
        self._locks: dict[str, asyncio.Lock] = {}  # the run's own, by casefolded token

    def start(
        self, body: Awaitable[None], context: Context, child: Context, token: str | None, span: Any
    ) -> None:
        """Run ``body`` (in ``child``, with a strand of its own) as an async block started from
        the strand of ``context``."""
        logger = self.session.logger
        # the enclosing log scopes last until the block ends: their duration and status include
        # it (a job's servers, which all run async)
        logger.hold(context.log)
        task = asyncio.create_task(self._run(body, child))
        task.add_done_callback(lambda _: logger.release(context.log))
        context.strand.children.append(AsyncChild(token, task, child.strand, span))

    async def _run(self, body: Awaitable[None], context: Context) -> None:
        try:
            await body
        except LoopControl as control:
            self.session.log(
                Level.WARNING,
                f"'{control.kind}' inside an async block has no loop to leave: ignored.",
                context,
                None,
            )
        except ModuleReturn:
            pass
        except ExecutionError as error:
            context.strand.status = Status.ERROR
            self.session.report(error, context)
            await self.await_children(context.strand, None, context, implicit=True, suppress=True)
            raise
        await self.await_children(context.strand, None, context, implicit=True)

    async def await_children(
        self,
        strand: Strand,
        token: str | None,
        context: Context,
        *,
        implicit: bool = False,
        suppress: bool = False,
        line: int | None = None,
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
                self.session.log(
                    Level.WARNING, f"There are no async blocks {what} to await.", context, line
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

    async def stop(self, strand: Strand) -> None:
        """Cancel the async blocks started from ``strand``, and theirs, and wait for them."""
        for child in strand.children:
            await self.stop(child.strand)
            child.task.cancel()
        if strand.children:
            await asyncio.gather(*(c.task for c in strand.children), return_exceptions=True)
        strand.children.clear()

    @contextlib.asynccontextmanager
    async def lock(self, token: str, context: Context, line: int | None) -> AsyncIterator[None]:
        """Hold the lock ``token`` (one of the host's when it starts with !)."""
        lock: contextlib.AbstractAsyncContextManager[None]
        if token.startswith("!"):
            lock = self.session.host.locks.hold(token[1:])  # held across every execution
        else:
            lock = self._locks.setdefault(token.casefold(), asyncio.Lock())
        # a block that waits long for its lock says so, or the run looks stuck
        notice = asyncio.get_running_loop().call_later(
            LOCK_WAIT_NOTICE_SECONDS,
            self.session.log,
            Level.INFORMATION,
            f"Waiting for the lock {token}: another block holds it.",
            context,
            line,
        )
        try:
            async with lock:
                notice.cancel()
                yield
        finally:
            notice.cancel()
