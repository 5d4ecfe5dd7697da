"""Changing stored logs (the log sink stores them: otterweb.execution_logs.sink)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max, Min

from otterweb.execution_logs.models import LogEntry, LogRun, LogScope


@transaction.atomic
def delete_log(*, execution_id: int) -> None:
    """Delete an execution's whole log: its entries, scopes and runs (the executions app does
    when an execution is deleted)."""
    for model in (LogEntry, LogScope, LogRun):
        model.objects.filter(execution_id=execution_id).delete()


def delete_log_in_batches(*, execution_id: int, rows: int) -> int:
    """Delete an execution's whole log about ``rows`` rows at a time, along its own numbering
    (entries by seq, scopes by id, runs by first seq), each delete one short transaction, so
    that a writer of another log never waits long behind it; how many entries went."""
    deleted = 0
    for model, number in ((LogEntry, "seq"), (LogScope, "scope_id"), (LogRun, "first_seq")):
        rows_of = model.objects.filter(execution_id=execution_id)
        span = rows_of.aggregate(low=Min(number), high=Max(number))
        if span["low"] is None:
            continue
        for low in range(span["low"], span["high"] + 1, rows):
            count, _ = rows_of.filter(
                **{f"{number}__gte": low, f"{number}__lt": low + rows}
            ).delete()
            if model is LogEntry:
                deleted += count
    return deleted
