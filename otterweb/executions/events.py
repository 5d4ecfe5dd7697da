"""The messages an execution's websocket carries, shared by the sender and the consumer."""

from __future__ import annotations

from otterweb.executions.models import Execution, LogEntry, LogScope

LEVEL_NAMES = {0: "debug", 10: "information", 20: "warning", 30: "error"}


def group_name(execution_id: int) -> str:
    """The channel-layer group of one execution's watchers."""
    return f"execution-{execution_id}"


def log_message(entries: list[LogEntry]) -> dict:
    return {
        "type": "log",
        "entries": [
            {"seq": e.seq, "scope_id": e.scope_id, "level": LEVEL_NAMES.get(e.level, str(e.level)), "message": e.message,
             "line": e.line, "time": e.time.isoformat()}
            for e in entries
        ],
    }  # fmt: skip


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
    return {"type": "status", "run_state": execution.run_state, "status": execution.status}


def complete_message(last_seq: int) -> dict:
    return {"type": "complete", "last_seq": last_seq}
