"""Handing pending executions to workers. The embedded default runs them on a thread pool in
the web server's process; the distributed mode hands them to Celery (a later issue)."""

from __future__ import annotations

import logging
import os
import socket
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)

_pool: ThreadPoolExecutor | None = None
# Only the serving process runs executions (`serve` turns this on). Any other process (a shell,
# a management command) leaves them pending; the server picks them up within seconds.
serving = False


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def dispatch(execution_id: int) -> None:
    """Queue an execution (called when the transaction that made it commits)."""
    if not serving or getattr(settings, "OTTERWEB_DISPATCH", "embedded") == "none":
        return
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(
            max_workers=getattr(settings, "OTTERWEB_WORKERS", 4),
            thread_name_prefix="otterweb-worker",
        )
    _pool.submit(_run, execution_id)


def dispatch_pending(*, older_than_seconds: float = 5.0) -> list[int]:
    """Dispatch executions still pending a while after they were made (made by another process,
    or left by a restart). Running one twice is impossible: run_execution claims it first."""
    from datetime import timedelta

    from django.utils import timezone

    from otterweb.executions.models import Execution

    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    pending = list(
        Execution.objects.filter(
            run_state=Execution.RunState.PENDING, created__lt=cutoff
        ).values_list("pk", flat=True)
    )
    for execution_id in pending:
        dispatch(execution_id)
    return pending


def _run(execution_id: int) -> None:
    from otterweb.executions.services import run_execution

    close_old_connections()
    try:
        run_execution(execution_id, worker=worker_name())
    except Exception:
        logger.exception("execution=%s message='the worker failed to run it'", execution_id)
    finally:
        close_old_connections()
