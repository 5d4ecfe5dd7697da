"""Handing pending executions to workers. The embedded default runs them on a thread pool in
the web server's process (`manage.py serve`); the distributed mode sends them to Celery workers
(`celery -A otterweb worker`). Either way `run` is the worker's side, and a housekeeper in every
serving process closes executions whose worker died and picks up those left pending."""

from __future__ import annotations

import logging
import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

logger = logging.getLogger(__name__)

_pool: ThreadPoolExecutor | None = None
_queued: set[int] = set()  # embedded: queued on this process's pool and not yet started
_queued_lock = threading.Lock()
# In the embedded mode only the serving process runs executions (`serve` turns this on). Any
# other process (a shell, a management command) leaves them pending; the server picks them up.
serving = False

# The embedded server picks up pending executions within seconds. Celery holds its queue even
# while every worker is busy, so an execution is sent again only when it looks lost in transit.
PICK_UP_AFTER_SECONDS = {"embedded": 5.0, "celery": 300.0}


def mode() -> str:
    return settings.OTTERWEB_DISPATCH


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def dispatch(execution_id: int) -> None:
    """Queue an execution (called when the transaction that made it commits)."""
    if mode() == "celery":
        from otterweb.executions.tasks import run_execution

        try:
            run_execution.delay(execution_id)
        except Exception as error:  # the broker is down: the housekeeper sends it again later
            logger.error(
                "execution=%s message='could not queue the execution; it stays pending and is sent again later' error=%r",
                execution_id,
                str(error),
            )
        return
    if mode() != "embedded" or not serving:
        return
    global _pool
    with _queued_lock:
        if execution_id in _queued:
            return
        _queued.add(execution_id)
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=settings.OTTERWEB_WORKERS, thread_name_prefix="otterweb-worker"
            )
    _pool.submit(run, execution_id)


def stop_workers() -> None:
    """The serving process is stopping: cancel what its worker threads run (they end within
    seconds, their logs stored) and wait for them, instead of for the end of every run."""
    from otterweb.executions.services import stop_running_here

    stop_running_here("The server was stopped while the execution ran: it was cancelled.")
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)


def dispatch_pending() -> list[int]:
    """Dispatch executions still pending a while after they were made (made by another process,
    lost in transit, or left by a restart). Running one twice is impossible: run_execution claims
    it first."""
    from otterweb.executions.models import Execution

    older_than = PICK_UP_AFTER_SECONDS.get(mode())
    if older_than is None:
        return []
    cutoff = timezone.now() - timedelta(seconds=older_than)
    pending = list(
        Execution.objects.filter(
            run_state=Execution.RunState.PENDING, created__lt=cutoff
        ).values_list("pk", flat=True)
    )
    for execution_id in pending:
        dispatch(execution_id)
    return pending


def run(execution_id: int) -> None:
    """A worker's side: run the execution on this thread, with database connections of its own."""
    from otterweb.executions.services import run_execution

    with _queued_lock:
        _queued.discard(execution_id)
    close_old_connections()
    try:
        run_execution(execution_id, worker=worker_name())
    except Exception:
        logger.exception("execution=%s message='the worker failed to run it'", execution_id)
    finally:
        close_old_connections()


def start_housekeeper(stop: threading.Event) -> threading.Thread:
    """Every few seconds, close executions whose worker was lost and pick up pending ones."""
    thread = threading.Thread(
        target=_housekeeping, args=(stop,), name="otterweb-housekeeper", daemon=True
    )
    thread.start()
    return thread


def _housekeeping(stop: threading.Event) -> None:
    from otterweb.executions.services import kill_orphans, reap_lost_executions

    while not stop.wait(settings.OTTERWEB_HOUSEKEEPING_SECONDS):
        close_old_connections()
        try:
            reap_lost_executions()
            kill_orphans()
            dispatch_pending()
        except Exception:
            logger.exception("message='housekeeping failed; trying again later'")
