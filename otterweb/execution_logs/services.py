"""Changing stored logs (the log sink stores them: otterweb.execution_logs.sink)."""

from __future__ import annotations

from django.db import transaction

from otterweb.execution_logs.models import LogEntry, LogRun, LogScope


@transaction.atomic
def delete_log(*, execution_id: int) -> None:
    """Delete an execution's whole log: its entries, scopes and runs (the executions app does
    when an execution is deleted)."""
    for model in (LogEntry, LogScope, LogRun):
        model.objects.filter(execution_id=execution_id).delete()
