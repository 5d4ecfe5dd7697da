"""Celery tasks: adapters that hand an execution to the one code path that runs it."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="otterweb.run_execution")
def run_execution(execution_id: int) -> None:
    from otterweb.executions import runner

    runner.run_on_this_thread(execution_id)
