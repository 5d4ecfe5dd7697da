"""/ws/executions/<id>/?after=<seq>: the stored log after ``seq``, then the live tail."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from engine import RunState
from otterweb import metrics
from otterweb.execution_logs import hooks
from otterweb.execution_logs.events import (
    BatchEvent,
    CompleteEvent,
    LogMessage,
    ScopeMessage,
    StatusEvent,
    WireEntry,
    chunked,
    complete_message,
    group_name,
    log_message,
    scope_message,
    status_message,
)
from otterweb.execution_logs.frame_cache import CachedFrame, frame_cache
from otterweb.execution_logs.hooks import ExecutionState
from otterweb.execution_logs.models import LogScope

FORBIDDEN = 4403
NOT_FOUND = 4404


def off_the_loop(function):
    """``function`` on any of the loop's worker threads rather than the one thread Django's
    sync code shares: viewers who arrive together (a job just started) check their permission
    and read their state side by side, not one after another behind every request's queries."""
    return database_sync_to_async(function, thread_sensitive=False)


async def may_view(user) -> bool:
    """Whether ``user`` may watch executions (some: which one is checked with the execution),
    as the executions app says (hooks.may_view): an active superuser is answered without the
    database (here, on the loop); anyone else's permissions are read off the loop."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_active and user.is_superuser:
        return hooks.may_view(user)
    return await off_the_loop(hooks.may_view)(user)


class ExecutionLogConsumer(AsyncJsonWebsocketConsumer):
    """A viewer costs two trips to the database (its permission, then the execution and its
    scopes): many arrive at once when a job starts, on the server's one loop. Their backlogs
    come from this process's frame cache, else from pages read once for all of them."""

    counted = False  # among the metrics' websocket clients

    async def connect(self) -> None:
        if not await may_view(self.scope.get("user")):
            await self.close(code=FORBIDDEN)
            return
        self.execution_id = int(self.scope["url_route"]["kwargs"]["execution_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            self.sent = max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            self.sent = 0
        self.scopes_sent = 0  # the highest scope id sent
        # Join first: whatever is stored after the state below is read is published after
        # this, so it comes live; the backlog is what was stored before.
        self.group = group_name(self.execution_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        execution, scopes = await off_the_loop(self._state)()
        if execution is None:
            await self.close(code=NOT_FOUND)
            return
        await self.accept()
        metrics.WEBSOCKET_CLIENTS.inc()
        self.counted = True
        await self.send_backlog(execution, scopes)

    async def dispatch(self, message) -> None:
        """Channels closes stale database connections before each message it hands a consumer: a
        trip to the one database thread for every batch and every viewer (a thousand a second
        for 20 viewers of a busy run), which new viewers' queries then queue behind. This
        consumer reaches the database only through database_sync_to_async, which closes them
        itself, so its messages go straight to their handlers."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            await super().dispatch(message)  # says there is no handler
            return
        await handler(message)

    async def disconnect(self, code: int) -> None:
        if self.counted:
            metrics.WEBSOCKET_CLIENTS.dec()
            self.counted = False
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    def _state(self) -> tuple[ExecutionState | None, list[LogScope]]:
        """The execution and its scopes; None when there is none the user may see."""
        execution = hooks.find(self.execution_id, self.scope["user"])
        if execution is None:
            return None, []
        return execution, list(LogScope.objects.filter(execution_id=self.execution_id))

    async def send_backlog(self, execution: ExecutionState, scopes: list[LogScope]) -> None:
        """Everything stored when ``execution`` was read: up to its ``last_seq``."""
        await self.send_json(status_message(execution))
        await self.send_scopes(scopes)
        running = execution.run_state != RunState.COMPLETED
        # A finished execution's pages are shared by concurrent viewers, not kept.
        await self.send_stored(until=execution.last_seq, keep=running)
        if not running:
            await self.send_json(complete_message(execution.last_seq))

    async def send_stored(self, *, until: int, keep: bool = True) -> None:
        """Send the stored entries after ``sent``, up to ``until`` at least: from this process's
        cache of encoded frames where it has them, else from the database, a page at a time,
        each page read once for every viewer that waits for it."""
        while self.sent < until:
            frame = frame_cache.frame_after(self.execution_id, self.sent)
            frames = (
                [frame]
                if frame is not None
                else await frame_cache.read(self.execution_id, self.sent, keep=keep)
            )
            if not frames:
                return
            for frame in frames:
                await self.send_frame(frame)

    async def send_frame(self, frame: CachedFrame) -> None:
        """A frame's entries that this client has not had, after any scope of theirs it has not
        had (scopes opened after the backlog's scopes were read). Scope ids grow as scopes open,
        so a scope's parents come first."""
        if frame.through <= self.sent:
            return
        if frame.scope > self.scopes_sent:
            await self.send_scopes(
                await off_the_loop(self._scopes_between)(self.scopes_sent, frame.scope)
            )
        if frame.after == self.sent:
            if frame.text is not None:
                await self.send(text_data=frame.text)
        else:  # the client has the start of it
            await self.send_wire_entries(frame.entries_after(self.sent))
        self.sent = frame.through

    async def send_scopes(self, scopes: list[LogScope]) -> None:
        if scopes:
            self.scopes_sent = max(self.scopes_sent, max(s.scope_id for s in scopes))
            await self.send_json(scope_message(scopes))

    def _scopes_between(self, after: int, until: int) -> list[LogScope]:
        return list(
            LogScope.objects.filter(
                execution_id=self.execution_id, scope_id__gt=after, scope_id__lte=until
            )
        )

    async def send_wire_entries(self, entries: list[WireEntry]) -> None:
        for chunk in chunked(entries):
            self.sent = chunk[-1]["seq"]
            await self.send_json(log_message(chunk))

    # ---- channel-layer events

    async def catch_up(self, until: int) -> None:
        """Send stored entries up to ``until`` that this client has not had (messages the layer
        dropped)."""
        await self.send_stored(until=until)

    async def execution_batch(self, event: BatchEvent) -> None:
        """A stored batch, as frames encoded once by the worker: forwarded as they are, and kept
        for viewers who arrive later. A gap (a message the layer dropped) is filled first; seqs
        already sent are dropped."""
        frame_cache.add_live(self.execution_id, event["frames"])
        if event["scope"] is not None:
            await self.send_batch_scopes(event["scope"])
        for frame in event["frames"]:
            if frame["first"] > self.sent + 1:
                await self.catch_up(frame["first"] - 1)
            if frame["last"] <= self.sent:
                continue
            if frame["first"] == self.sent + 1:
                await self.send(text_data=frame["text"])
                self.sent = frame["last"]
            else:  # overlaps what a catch-up already sent
                message: LogMessage = json.loads(frame["text"])
                await self.send_wire_entries(
                    [e for e in message["entries"] if e["seq"] > self.sent]
                )

    async def send_batch_scopes(self, message: ScopeMessage) -> None:
        """The scopes a batch opened or closed. Scope ids are given out in order and each batch
        has every scope opened since the one before, so new ids that do not follow the last one
        sent mean a dropped message: the scopes between come from the database first. Every
        scope up to ``scopes_sent`` has then been sent."""
        opened = [s["scope_id"] for s in message["scopes"] if s["scope_id"] > self.scopes_sent]
        if opened and min(opened) > self.scopes_sent + 1:
            await self.send_scopes(
                await off_the_loop(self._scopes_between)(self.scopes_sent, min(opened) - 1)
            )
        self.scopes_sent = max([self.scopes_sent, *opened])
        await self.send_json(message)

    async def execution_status(self, event: StatusEvent) -> None:
        await self.send_json(event["message"])

    async def execution_complete(self, event: CompleteEvent) -> None:
        frame_cache.completed(self.execution_id)
        await self.catch_up(event["message"]["last_seq"])
        await self.send_json(event["message"])
