"""/ws/executions/<id>/?after=<seq>: the stored log after ``seq``, then the live tail."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from otterweb.executions.events import (
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
    wire_entries,
)
from otterweb.executions.models import Execution, LogEntry, LogScope
from otterweb.executions.selectors import log_entries_after

FORBIDDEN = 4403
NOT_FOUND = 4404


class ExecutionLogConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if (
            user is None
            or not user.is_authenticated
            or not await database_sync_to_async(user.has_perm)("executions.view_execution")
        ):
            await self.close(code=FORBIDDEN)
            return
        self.execution_id = int(self.scope["url_route"]["kwargs"]["execution_id"])
        if not await database_sync_to_async(
            Execution.objects.filter(pk=self.execution_id).exists
        )():
            await self.close(code=NOT_FOUND)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            self.sent = max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            self.sent = 0
        self.scopes_sent = 0  # the highest scope id sent
        # join first, so nothing published while the backlog is read is missed
        self.group = group_name(self.execution_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_backlog()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def send_backlog(self) -> None:
        execution, scopes = await database_sync_to_async(self._state)()
        await self.send_json(status_message(execution))
        await self.send_scopes(scopes)
        while True:
            entries = await self.entries_after(self.sent)
            if not entries:
                break
            await self.send_entries(entries)
        if execution.run_state == Execution.RunState.COMPLETED:
            await self.send_json(complete_message(execution.last_seq))

    def _state(self) -> tuple[Execution, list[LogScope]]:
        execution = Execution.objects.get(pk=self.execution_id)
        return execution, list(LogScope.objects.filter(execution_id=self.execution_id))

    async def entries_after(self, seq: int) -> list[LogEntry]:
        return await database_sync_to_async(log_entries_after)(
            execution_id=self.execution_id, seq=seq
        )

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

    async def send_entries(self, entries: list[LogEntry]) -> None:
        """Stored entries, after any scope of theirs this client has not had (scopes opened
        after the backlog's scopes were read). Scope ids grow as scopes open, so a scope's
        parents come first."""
        fresh = [e for e in entries if e.seq > self.sent]
        if not fresh:
            return
        newest = max(e.scope_id or 0 for e in fresh)
        if newest > self.scopes_sent:
            await self.send_scopes(
                await database_sync_to_async(self._scopes_between)(self.scopes_sent, newest)
            )
        await self.send_wire_entries(wire_entries(fresh))

    async def send_wire_entries(self, entries: list[WireEntry]) -> None:
        for chunk in chunked(entries):
            self.sent = chunk[-1]["seq"]
            await self.send_json(log_message(chunk))

    # ---- channel-layer events

    async def catch_up(self, until: int) -> None:
        """Send stored entries up to ``until`` that this client has not had (messages the layer
        dropped), a page at a time."""
        while self.sent < until:
            entries = await self.entries_after(self.sent)
            entries = [e for e in entries if e.seq <= until]
            if not entries:
                return
            await self.send_entries(entries)

    async def execution_batch(self, event: BatchEvent) -> None:
        """A stored batch, as frames encoded once by the worker: forwarded as they are. A gap (a
        message the layer dropped) is filled from the database first; seqs already sent are
        dropped."""
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
                await database_sync_to_async(self._scopes_between)(
                    self.scopes_sent, min(opened) - 1
                )
            )
        self.scopes_sent = max([self.scopes_sent, *opened])
        await self.send_json(message)

    async def execution_status(self, event: StatusEvent) -> None:
        await self.send_json(event["message"])

    async def execution_complete(self, event: CompleteEvent) -> None:
        await self.catch_up(event["message"]["last_seq"])
        await self.send_json(event["message"])
