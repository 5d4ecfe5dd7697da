"""Publishing stored log batches and status changes to an execution's watchers: one channel
message per batch, never one per line."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from otterweb.executions.events import (
    CompleteEvent,
    StatusEvent,
    batch_event,
    complete_event,
    group_name,
    status_event,
)
from otterweb.executions.frame_cache import frame_cache
from otterweb.executions.models import Execution, LogEntry, LogScope
from otterweb.executions.sink import StoredEntry

logger = logging.getLogger(__name__)

# The event loop the websocket consumers run on. Workers run executions on threads with loops of
# their own; the in-memory channel layer belongs to the server's loop, so events are handed to it.
_server_loop: asyncio.AbstractEventLoop | None = None


def use_server_loop(loop: asyncio.AbstractEventLoop | None) -> None:
    global _server_loop
    _server_loop = loop


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
    execution_id: int, entries: list[LogEntry | StoredEntry], scopes: list[LogScope]
) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    event = batch_event(entries, scopes)
    if isinstance(layer, InMemoryChannelLayer):
        # The watchers' consumers run in this process (embedded mode): late ones get the frames
        # from memory. (In the distributed mode, daphne's consumers cache what they receive.)
        frame_cache.add_live(execution_id, event["frames"])
    try:
        await _deliver(layer.group_send(group_name(execution_id), event))
    except Exception:  # a full or unreachable layer costs live delivery, never a line: clients refill from the database
        logger.warning(
            "execution=%s message='could not publish a log batch; watchers will refill from the database'",
            execution_id,
        )


def publish_status(execution: Execution) -> None:
    _send(execution.pk, status_event(execution))


def publish_complete(execution: Execution) -> None:
    """Sent after the execution finished, so every line is stored by then."""
    frame_cache.completed(execution.pk)
    _send(execution.pk, complete_event(execution))


def _send(execution_id: int, event: StatusEvent | CompleteEvent) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        loop = _server_loop
        if loop is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(
                layer.group_send(group_name(execution_id), event), loop
            ).result(timeout=5)
        else:
            async_to_sync(layer.group_send)(group_name(execution_id), event)
    except Exception:
        logger.warning("execution=%s message='could not publish %s'", execution_id, event["type"])
