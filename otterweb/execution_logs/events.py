"""The messages an execution's websocket carries, shared by the sender and the consumer: the
frames a browser receives (``log``, ``scope``, ``status``, ``complete``) and the channel-layer
events that bring them to each watcher's consumer (``execution.batch``, ``execution.status``,
``execution.complete``, each naming the consumer's method that handles it)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal, TypedDict

from engine import Level
from otterweb.execution_logs.hooks import ExecutionState
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.execution_logs.sink import StoredEntry

LEVEL_NAMES = {level.value: level.label for level in Level}
# A websocket frame stays well under daphne's 1 MB limit: entries are sent in chunks, and a
# single line longer than this is cut on the wire (it is stored whole; the API returns it).
WIRE_MESSAGE_CHARACTERS = 64_000
CHUNK_CHARACTERS = 400_000

# ---- the frames a browser receives


class WireEntry(TypedDict):
    """A log entry as the browser gets it."""

    seq: int
    scope_id: int | None
    level: str  # a level's name: debug, information, warning or error
    message: str  # cut at WIRE_MESSAGE_CHARACTERS
    line: int | None
    time: str  # ISO 8601


class LogMessage(TypedDict):
    type: Literal["log"]
    entries: list[WireEntry]


class WireScope(TypedDict):
    """A log scope (a block or an operation's nested log) as the browser gets it."""

    scope_id: int
    parent_id: int | None
    name: str
    line: int | None
    status: str
    started: str  # ISO 8601
    ended: str | None
    # the seq logged last before the scope opened (0: none): the scope comes after its parent's
    # own lines up to that seq, and before the later ones
    after_seq: int


class ScopeMessage(TypedDict):
    type: Literal["scope"]
    scopes: list[WireScope]


class StatusMessage(TypedDict):
    type: Literal["status"]
    run_state: str
    status: str
    outcome: str
    outcome_label: str


class CompleteMessage(TypedDict):
    """Sent after the last entry is stored: ``last_seq`` is the seq of that entry."""

    type: Literal["complete"]
    last_seq: int


# ---- the channel-layer events


class LogFrame(TypedDict):
    """A LogMessage encoded once where its batch is stored, with its first and last seq, so
    that each watcher forwards it as it is."""

    first: int
    last: int
    scope: int  # the highest scope id of its entries (0: none), for a backlog sent from a cache
    text: str


class BatchEvent(TypedDict):
    type: Literal["execution.batch"]
    frames: list[LogFrame]
    scope: ScopeMessage | None  # the scopes the batch opened or closed


class StatusEvent(TypedDict):
    type: Literal["execution.status"]
    message: StatusMessage


class CompleteEvent(TypedDict):
    type: Literal["execution.complete"]
    message: CompleteMessage


def group_name(execution_id: int) -> str:
    """The channel-layer group of one execution's watchers."""
    return f"execution-{execution_id}"


def _wire_text(message: str) -> str:
    if len(message) <= WIRE_MESSAGE_CHARACTERS:
        return message
    return (
        message[:WIRE_MESSAGE_CHARACTERS]
        + f"… ({len(message) - WIRE_MESSAGE_CHARACTERS:,} more characters: see the API)"
    )


def wire_entries(entries: Sequence[LogEntry | StoredEntry]) -> list[WireEntry]:
    return [
        {
            "seq": e.seq,
            "scope_id": e.scope_id,
            "level": LEVEL_NAMES.get(e.level, str(e.level)),
            "message": _wire_text(e.message),
            "line": e.line,
            "time": e.time.isoformat(),
        }
        for e in entries
    ]


def log_message(entries: list[WireEntry]) -> LogMessage:
    return {"type": "log", "entries": entries}


def chunked(entries: list[WireEntry]) -> list[list[WireEntry]]:
    """Wire entries in runs that keep each message well under a websocket frame's limit."""
    chunks: list[list[WireEntry]] = [[]]
    size = 0
    for entry in entries:
        cost = len(entry["message"]) + 200
        if chunks[-1] and size + cost > CHUNK_CHARACTERS:
            chunks.append([])
            size = 0
        chunks[-1].append(entry)
        size += cost
    return [chunk for chunk in chunks if chunk]


def log_frames(entries: Sequence[LogEntry | StoredEntry]) -> list[LogFrame]:
    """A stored batch as the websocket text frames that carry it."""
    return [
        {
            "first": chunk[0]["seq"],
            "last": chunk[-1]["seq"],
            "scope": max(e["scope_id"] or 0 for e in chunk),
            "text": json.dumps(log_message(chunk), separators=(",", ":")),
        }
        for chunk in chunked(wire_entries(entries))
    ]


def wire_scope(scope: LogScope) -> WireScope:
    return {
        "scope_id": scope.scope_id,
        "parent_id": scope.parent_id,
        "name": scope.name,
        "line": scope.line,
        "status": scope.status,
        "started": scope.started.isoformat(),
        "ended": scope.ended.isoformat() if scope.ended else None,
        "after_seq": scope.after_seq,
    }


def scope_message(scopes: Sequence[LogScope]) -> ScopeMessage:
    return {"type": "scope", "scopes": [wire_scope(s) for s in scopes]}


def status_message(execution: ExecutionState) -> StatusMessage:
    return {
        "type": "status",
        "run_state": execution.run_state,
        "status": execution.status,
        "outcome": execution.outcome,
        "outcome_label": execution.outcome_label,
    }


def complete_message(last_seq: int) -> CompleteMessage:
    return {"type": "complete", "last_seq": last_seq}


def batch_event(
    entries: Sequence[LogEntry | StoredEntry], scopes: Sequence[LogScope]
) -> BatchEvent:
    return {
        "type": "execution.batch",
        "frames": log_frames(entries),
        "scope": scope_message(scopes) if scopes else None,
    }


def status_event(execution: ExecutionState) -> StatusEvent:
    return {"type": "execution.status", "message": status_message(execution)}


def complete_event(execution: ExecutionState) -> CompleteEvent:
    """Sent after the execution finished, so every line is stored by then."""
    return {"type": "execution.complete", "message": complete_message(execution.last_seq)}
