"""Running executions: the one code path that runs an execution whichever worker holds it (a
thread of `manage.py serve`, a Celery worker), stopping what this process runs, and closing
executions whose worker died. Nothing here queues anything: that is otterweb.executions.dispatch."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from engine import Level, RunState, ScriptRun, parse
from otterweb.execution_logs.publish import publish_batch, publish_complete, publish_status
from otterweb.execution_logs.selectors import last_stored_seq
from otterweb.execution_logs.sink import DatabaseLogSink, StoredEntry, append_entries
from otterweb.executions import local_runs
from otterweb.executions.host import DjangoHost
from otterweb.executions.local_runs import may_run_locally, remove_work_folder, work_folder
from otterweb.executions.locks import lock_provider
from otterweb.executions.models import Execution

logger = logging.getLogger(__name__)

CANCEL_POLL_SECONDS = 1.0
SERVER_STOPPED = "The server was stopped while the execution ran: it was cancelled."


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_on_this_thread(execution_id: int) -> None:
    """A worker's side: run the execution on this thread, with database connections of its own."""
    close_old_connections()
    try:
        run_execution(execution_id, worker=worker_name())
    except Exception:
        logger.exception("execution=%s message='the worker failed to run it'", execution_id)
    finally:
        close_old_connections()


def run_execution(execution_id: int, *, worker: str) -> None:
    """Run one execution to its end: the only way an execution runs, whichever worker has it."""
    execution, claimed = Execution.claim(execution_id, worker=worker)
    if execution is None or not claimed:
        logger.warning(
            "execution=%s worker=%s message='already %s: not run again'",
            execution_id,
            worker,
            execution.run_state if execution is not None else "deleted",
        )
        return
    try:
        _run_started(execution, worker=worker)
    except Exception as error:  # whatever escapes ends the run now, not when the reaper comes
        _crashed(execution.pk, error, worker=worker)


def _run_started(execution: Execution, *, worker: str) -> None:
    job = execution.job
    raft = job.script_version.item.raft.name if job.script_version else None
    sink = DatabaseLogSink(execution.pk, on_batch=partial(publish_batch, execution.pk))
    publish_status(execution)
    host = DjangoHost.load(
        sink=sink,
        execution_id=str(execution.pk),
        working_directory=work_folder(execution.pk),
        raft=raft,
        locks=lock_provider(execution.pk, sink.database),
        may_run_locally=may_run_locally(job.requested_by),
        principal=job.requested_by,
        targets=job.targets,
    )
    script = parse(job.script, name=job.name)
    logger.info(
        "execution=%s worker=%s targets=%d message='started'",
        execution.pk,
        worker,
        len(job.targets),
    )
    script_run = ScriptRun(
        script,
        host=host,
        mode=execution.mode,
        simulate=execution.simulate,
        variables=job.variables,
        targets=job.targets,
    )
    try:
        result = asyncio.run(_run(execution.pk, script_run, sink))
    finally:
        remove_work_folder(execution.pk)
    drift = [
        {
            "server": d.server,
            "operation": d.operation,
            "line": d.line,
            "differences": [
                {"property": x.property, "expected": _json(x.expected), "actual": _json(x.actual)}
                for x in d.differences
            ],
        }
        for d in result.drifted
    ]
    execution.refresh_from_db()
    status = result.status.label
    if sink.volume.limited and status == Execution.Status.NORMAL:
        status = Execution.Status.WARNING  # its log is not whole: said in the log, and here
    if result.cancelled and execution.cancel_requested:
        status = (
            Execution.Status.CANCELLED
        )  # someone asked; other stops (limit, shutdown) are errors
    execution.finish(status=status, drift=drift, error=result.error or "")
    publish_status(execution)
    publish_complete(execution)
    logger.info(
        "execution=%s worker=%s status=%s duration=%.2f message='finished'",
        execution.pk,
        worker,
        status,
        result.duration,
    )


def _crashed(execution_id: int, error: Exception, *, worker: str) -> None:
    """Close an execution whose run raised: status error, the error as its last log line."""
    logger.exception(
        "execution=%s worker=%s message='the run failed: closed with status error'",
        execution_id,
        worker,
    )
    close_if_running(execution_id, f"The execution failed: {type(error).__name__}: {error}")


def close_if_running(execution_id: int, message: str) -> bool:
    """Close an execution no worker runs any more, if it is still executing: status error
    (cancelled, when someone asked for it), ``message`` as its last log line. False when no
    worker ever claimed it (it is still pending)."""
    with transaction.atomic():
        execution = Execution.objects.select_for_update().get(pk=execution_id)
        if execution.run_state != RunState.EXECUTING:
            return execution.run_state != RunState.PENDING
        status = (
            Execution.Status.CANCELLED if execution.cancel_requested else Execution.Status.ERROR
        )
        close_execution(execution, message, status=status)
    return True


# The executions this process runs now, with their event loops: stop_running_here reaches them.
_running: dict[int, tuple[asyncio.AbstractEventLoop, ScriptRun]] = {}
_running_lock = threading.Lock()


async def _run(execution_id: int, script_run: ScriptRun, sink: DatabaseLogSink):
    storing = asyncio.create_task(sink.run())
    watching = asyncio.create_task(_watch(execution_id, script_run, sink))
    with _running_lock:
        _running[execution_id] = (asyncio.get_running_loop(), script_run)
    try:
        return await script_run.run()
    finally:
        with _running_lock:
            del _running[execution_id]
        watching.cancel()
        sink.close()
        await storing


def stop_running_here(reason: str) -> list[int]:
    """Cancel every execution this process runs (the server is stopping): each ends at once
    with status error, ``reason`` as its last log line, and its processes killed."""
    with _running_lock:
        running = dict(_running)
    for loop, script_run in running.values():
        loop.call_soon_threadsafe(partial(script_run.cancel, reason, level=Level.ERROR))
    for execution_id in running:
        logger.warning("execution=%s message='cancelled: %s'", execution_id, reason)
    return list(running)


async def _watch(execution_id: int, script_run: ScriptRun, sink: DatabaseLogSink) -> None:
    """Beat the heart every few seconds, pass on a cancel request, and stop a run that outlasts
    the time limit."""
    every = settings.OTTERWEB_HEARTBEAT_SECONDS
    limit = settings.OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS
    started = last_beat = time.monotonic()
    while True:
        await asyncio.sleep(min(CANCEL_POLL_SECONDS, every))
        if await sink.database(_should_stop, execution_id):
            script_run.cancel()
            return
        now = time.monotonic()
        if limit and now - started > limit:
            logger.warning(
                "execution=%s limit=%g message='ran longer than its time limit: stopped'",
                execution_id,
                limit,
            )
            script_run.cancel(
                f"The execution ran longer than its time limit ({limit:g} seconds) and was stopped.",
                level=Level.ERROR,
            )
            return
        if now - last_beat >= every:
            last_beat = now
            await sink.database(_beat, execution_id)


def _beat(execution_id: int) -> None:
    Execution.objects.filter(pk=execution_id).update(heartbeat=timezone.now())


def _should_stop(execution_id: int) -> bool:
    """Cancel was asked for, or the execution was closed elsewhere (taken for lost)."""
    return not Execution.objects.filter(
        pk=execution_id, cancel_requested=False, run_state=RunState.EXECUTING
    ).exists()


def _json(value):
    return value if isinstance(value, str | bool | list | dict | type(None)) else str(value)


def kill_orphans() -> list[int]:
    """Kill the local processes that executions no longer running left behind (a killed
    worker's)."""
    return local_runs.kill_orphans(
        lambda pk: Execution.objects.filter(pk=pk, run_state=RunState.EXECUTING).exists()
    )


def reap_lost_executions(*, lost_after: timedelta | None = None) -> list[int]:
    """Close every execution whose worker stopped sending heartbeats: status error, with a log
    line saying so after every line already stored."""
    if lost_after is None:
        lost_after = timedelta(seconds=settings.OTTERWEB_LOST_AFTER_SECONDS)
    cutoff = timezone.now() - lost_after
    reaped = []
    for execution_id in Execution.objects.filter(
        run_state=RunState.EXECUTING, heartbeat__lt=cutoff
    ).values_list("pk", flat=True):
        with transaction.atomic():
            execution = Execution.objects.select_for_update().get(pk=execution_id)
            heartbeat = execution.heartbeat
            if (
                execution.run_state != RunState.EXECUTING
                or heartbeat is None
                or heartbeat >= cutoff
            ):
                continue
            message = (
                f"The worker {execution.worker or '(unknown)'} stopped responding (last heartbeat "
                f"{heartbeat:%Y-%m-%d %H:%M:%S} UTC): the execution was lost."
            )
            close_execution(execution, message, status=Execution.Status.ERROR)
            logger.error(
                "execution=%s worker=%s message='worker lost; execution closed with status error'",
                execution.pk,
                execution.worker,
            )
            reaped.append(execution.pk)
    return reaped


def close_execution(execution: Execution, message: str, *, status: str) -> None:
    """End an execution that no worker runs: ``message`` as its last log line (an error; for one
    cancelled, information)."""
    last = last_stored_seq(execution_id=execution.pk)
    cancelled = status == Execution.Status.CANCELLED
    line = StoredEntry(
        seq=last + 1,
        scope_id=None,
        level=int(Level.INFORMATION if cancelled else Level.ERROR),
        message=message,
        line=None,
        time=timezone.now(),
    )
    append_entries(execution.pk, [line])  # with the log's counts and runs, as a sink stores
    execution.last_seq = last + 1
    execution.finish(status=status, drift=execution.drift, error=message)
    remove_work_folder(execution.pk)  # its worker's, when that ran on this machine
    publish_status(execution)
    publish_complete(execution)
