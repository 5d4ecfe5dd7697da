"""The messages an execution's websocket carries, shared by the sender and the consumer."""

from __future__ import annotations

import json

from engine import Level
from otterweb.executions.models import Execution, LogEntry, LogScope
from otterweb.executions.sink import StoredEntry

LEVEL_NAMES = {level.value: level.label for level in Level}
# A websocket frame stays well under daphne's 1 MB limit: entries are sent in chunks, and a
# single line longer than this is cut on the wire (it is stored whole; the API returns it).
WIRE_MESSAGE_CHARACTERS = 64_000
CHUNK_CHARACTERS = 400_000


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


def log_message(entries: list[LogEntry | StoredEntry]) -> dict:
    return {
        "type": "log",
        "entries": [
            {"seq": e.seq, "scope_id": e.scope_id, "level": LEVEL_NAMES.get(e.level, str(e.level)), "message": _wire_text(e.message),
             "line": e.line, "time": e.time.isoformat()}
            for e in entries
        ],
    }  # fmt: skip


def chunked(entries: list[dict]) -> list[list[dict]]:
    """Wire entries in runs that keep each message well under a websocket frame's limit."""
    chunks: list[list[dict]] = [[]]
    size = 0
    for entry in entries:
        cost = len(entry["message"]) + 200
        if chunks[-1] and size + cost > CHUNK_CHARACTERS:
            chunks.append([])
            size = 0
        chunks[-1].append(entry)
        size += cost
    return [chunk for chunk in chunks if chunk]


def log_frames(entries: list[LogEntry | StoredEntry]) -> list[dict]:
    """A stored batch as the websocket text frames that carry it, each with its first and last
    seq. Encoded once where the batch is stored, so each watcher only forwards them."""
    return [
        {"first": chunk[0]["seq"], "last": chunk[-1]["seq"],
         "text": json.dumps({"type": "log", "entries": chunk}, separators=(",", ":"))}
        for chunk in chunked(log_message(entries)["entries"])
    ]  # fmt: skip


def scope_message(scopes: list[LogScope]) -> dict:
    return {
        "type": "scope",
        "scopes": [
            {"scope_id": s.scope_id, "parent_id": s.parent_id, "name": s.name, "line": s.line, "status": s.status,
             "started": s.started.isoformat(), "ended": s.ended.isoformat() if s.ended else None}
            for s in scopes
        ],
    }  # fmt: skip


def status_message(execution: Execution) -> dict:
    return {
        "type": "status",
        "run_state": execution.run_state,
        "status": execution.status,
        "outcome": execution.outcome,
        "outcome_label": execution.outcome_label,
    }


def complete_message(last_seq: int) -> dict:
    return {"type": "complete", "last_seq": last_seq}
