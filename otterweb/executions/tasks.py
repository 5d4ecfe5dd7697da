"""Celery tasks: adapters that hand an execution to the one code path that runs it."""

from __future__ import annotations

from otterweb.celery import app
from otterweb.executions import dispatch


@app.task(name="otterweb.run_execution")
def run_execution(execution_id: int) -> None:
    dispatch.run(execution_id)
