"""Publishing stored log batches and status changes to an execution's watchers: one channel
message per batch, never one per line.

Events are published by the process whose channel layer reaches the watchers. A worker process
of `manage.py serve` has none of its own (the embedded layer lives in the serving process's
memory): it forwards each event to the serving process (``forward_to``), which publishes it
(``publish_here``) exactly as if the run were its own."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Sequence

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from otterweb.execution_logs.events import (
    BatchEvent,
    CompleteEvent,
    StatusEvent,
    batch_event,
    complete_event,
    group_name,
    status_event,
)
from otterweb.execution_logs.frame_cache import frame_cache
from otterweb.execution_logs.hooks import ExecutionState
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.execution_logs.sink import StoredEntry

logger = logging.getLogger(__name__)

Event = BatchEvent | StatusEvent | CompleteEvent

# The event loop the websocket consumers run on. Runs have loops of their own (on worker
# threads, or the serving process's relay threads); the in-memory channel layer belongs to the
# server's loop, so events are handed to it.
_server_loop: asyncio.AbstractEventLoop | None = None

# Where this process's events go instead of its own channel layer (a worker process: the pipe to
# the serving process). Called with the execution's id and the event.
_forward: Callable[[int, Event], None] | None = None


def use_server_loop(loop: asyncio.AbstractEventLoop | None) -> None:
    global _server_loop
    _server_loop = loop


def forward_to(send: Callable[[int, Event], None] | None) -> None:
    """Hand every event to ``send`` from now on instead of publishing it here."""
    global _forward
    _forward = send


DELIVERY_SECONDS = 2.0


async def _deliver(send: Coroutine) -> None:
    """Send on the server's loop. A stopped or stuck loop costs live delivery, never the run."""
    loop = _server_loop
    if loop is None or loop is asyncio.get_running_loop():
        await send
        return
    if not loop.is_running():
        send.close()
        return
    await asyncio.wait_for(
        asyncio.wrap_future(asyncio.run_coroutine_threadsafe(send, loop)), DELIVERY_SECONDS
    )


async def publish_batch(
    execution_id: int, entries: Sequence[LogEntry | StoredEntry], scopes: Sequence[LogScope]
) -> None:
    event = batch_event(entries, scopes)
    if _forward is not None:
        _forward(execution_id, event)
    else:
        await publish_here(execution_id, event)


def publish_status(execution: ExecutionState) -> None:
    _publish(execution.pk, status_event(execution))


def publish_complete(execution: ExecutionState) -> None:
    """Sent after the execution finished, so every line is stored by then."""
    _publish(execution.pk, complete_event(execution))


async def publish_here(execution_id: int, event: Event) -> None:
    """Publish ``event`` to the watchers through this process's channel layer."""
    layer = get_channel_layer()
    if layer is None:
        return
    if event["type"] == "execution.complete":
        frame_cache.completed(execution_id)
    elif event["type"] == "execution.batch" and isinstance(layer, InMemoryChannelLayer):
        # The watchers' consumers run in this process (embedded mode): late ones get the frames
        # from memory. (In the distributed mode, daphne's consumers cache what they receive.)
        frame_cache.add_live(execution_id, event["frames"])
    try:
        # a TypedDict is a dict, but not the stubs' dict[str, Any]
        await _deliver(layer.group_send(group_name(execution_id), event))  # type: ignore[arg-type]
    except Exception:  # a full or unreachable layer costs live delivery, never a line: clients refill from the database
        logger.warning(
            "execution=%s event=%s message='could not publish; watchers will refill from the database'",
            execution_id,
            event["type"],
        )


def _publish(execution_id: int, event: Event) -> None:
    if _forward is not None:
        _forward(execution_id, event)
    else:
        relay(execution_id, event)


def relay(execution_id: int, event: Event) -> None:
    """Publish ``event`` here from synchronous code (a run's, or a worker process's relay): on
    the server's loop when this process serves, else on a loop of its own.

    On the server's loop, events wait in one queue that a task of the loop publishes in order
    (``_Outbox``), so the caller never waits for the loop: a loop busy with many viewers costs
    the relay nothing until the queue is full."""
    loop = _server_loop
    if loop is not None and loop.is_running():
        _outbox(loop).put(execution_id, event)
    else:
        async_to_sync(publish_here)(execution_id, event)


# events waiting for the server's loop at most; past that, the relay waits for room
OUTBOX_EVENTS = 1000


class _Outbox:
    """The events handed to the server's loop from other threads, published in the order given."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.room = threading.BoundedSemaphore(OUTBOX_EVENTS)
        self.queue: asyncio.Queue[tuple[int, Event]] = asyncio.Queue()
        self.task = loop.create_task(self._publish_in_order())

    def put(self, execution_id: int, event: Event) -> None:
        if not self.room.acquire(timeout=DELIVERY_SECONDS * 2):
            logger.warning(
                "execution=%s event=%s message='the server loop is far behind: event not published; watchers will refill from the database'",
                execution_id,
                event["type"],
            )
            return
        self.loop.call_soon_threadsafe(self.queue.put_nowait, (execution_id, event))

    async def _publish_in_order(self) -> None:
        while True:
            execution_id, event = await self.queue.get()
            try:
                await publish_here(execution_id, event)
            finally:
                self.room.release()


_outboxes: dict[asyncio.AbstractEventLoop, _Outbox] = {}
_outboxes_lock = threading.Lock()


def _outbox(loop: asyncio.AbstractEventLoop) -> _Outbox:
    with _outboxes_lock:
        outbox = _outboxes.get(loop)
    if outbox is None:

        async def make() -> _Outbox:
            return _Outbox(loop)

        try:
            on_the_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_the_loop = False
        if on_the_loop:
            made = _Outbox(loop)
        else:
            made = asyncio.run_coroutine_threadsafe(make(), loop).result(timeout=DELIVERY_SECONDS)
        with _outboxes_lock:
            outbox = _outboxes.setdefault(loop, made)
        if outbox is not made:
            made.task.cancel()
    return outbox
