"""The embedded mode's worker processes: `manage.py serve` runs no script itself.

The serving process supervises ``OTTERWEB_WORKERS`` worker processes, each running one execution
at a time. They are forked from a fork server (multiprocessing's "forkserver") that has Django set
up and the engine loaded (``worker_boot``), so a worker starts, or is started again, in
milliseconds. Each is joined to the serving process by a pipe, over which:

- the serving process sends ``("run", id)`` and ``("stop", reason)``;
- the worker sends ``("publish", id, event)`` (log batches and state changes, which the serving
  process publishes to its in-memory channel layer as if the run were its own),
  ``("dispatch", id)`` (an execution the run made, such as the check after a remediation) and
  ``("done", id)``.

Whatever a run does (a catastrophic regular expression, a tight loop, a crash of the
interpreter), pages, the API, websockets and the housekeeper go on. A worker that dies is
started again, and its execution closed as lost at once. A run asked to stop (cancelled, or past
its time limit) whose worker does not end it within ``KILL_AFTER_SECONDS`` has its worker killed.
Worker processes run at a lower priority (``NICENESS``), so the pages stay quick while runs keep
every core busy."""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from multiprocessing.connection import Connection

from django.conf import settings
from django.db import close_old_connections, connections
from django.db.models import Q
from django.utils import timezone

from engine import RunState
from otterweb import metrics
from otterweb.execution_logs import publish
from otterweb.executions import dispatch, runner
from otterweb.executions.dispatch import Dispatcher
from otterweb.executions.models import Execution

logger = logging.getLogger(__name__)

# A run asked to stop that is still going this long after is stopped by killing its worker.
KILL_AFTER_SECONDS = 5.0
SUPERVISE_SECONDS = 0.5
# A worker that dies this soon after it started is started again only after a pause, so a
# worker that cannot start does not burn a core.
RESTART_PAUSE_SECONDS = 2.0
NICENESS = 5


@dataclass(eq=False)
class Worker:
    """One worker process, as the serving process sees it."""

    process: multiprocessing.process.BaseProcess
    connection: Connection
    started: float = field(default_factory=time.monotonic)
    execution: int | None = None  # the execution it runs now
    stop_asked: float | None = None  # when its execution was first seen asked to stop
    killed_because: str | None = None

    @property
    def name(self) -> str:
        return f"{socket.gethostname()}:{self.process.pid}"


class WorkerProcesses(Dispatcher):
    """The embedded mode: executions run in worker processes that `manage.py serve` supervises.
    Any other process (a shell, a management command) leaves them pending, and the serving
    process picks them up."""

    pick_up_after = 5.0

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self.workers = f"{size} worker processes"
        self._lock = threading.Lock()
        self._queue: deque[int] = deque()
        self._pool: list[Worker] = []
        self._running = False
        self._wake = threading.Event()
        self._supervisor: threading.Thread | None = None
        self._pause_until = 0.0  # no worker is started before then

    # ---- the dispatcher's interface

    def dispatch(self, execution_id: int) -> None:
        with self._lock:
            if not self._running or execution_id in self._queue:
                return
            if any(w.execution == execution_id for w in self._pool):
                return
            self._queue.append(execution_id)
            self._hand_out()

    def start(self) -> None:
        with self._lock:
            self._running = True
        # one thread starts the workers, starts again those that die, and kills those whose run
        # does not stop when asked
        self._supervisor = threading.Thread(
            target=self._supervise, name="otterweb-worker-supervisor", daemon=True
        )
        self._supervisor.start()
        super().start()

    def stop(self, reason: str = runner.SERVER_STOPPED, *, seconds: float = 5.0) -> None:
        """Cancel what the workers run (each run ends within seconds with ``reason`` as its last
        line), and end them; idle ones at once. Executions still queued stay pending for the
        next start."""
        super().stop()
        with self._lock:
            self._running = False
            pool = list(self._pool)
            self._queue.clear()
        self._wake.set()
        for worker in pool:
            if worker.execution is None:
                worker.process.kill()
            else:
                _send(worker, ("stop", reason))
        deadline = time.monotonic() + seconds
        for worker in pool:
            worker.process.join(timeout=max(0.1, deadline - time.monotonic()))
            if worker.process.exitcode is None:
                logger.warning(
                    "worker=%s execution=%s message='did not stop in time: killed'",
                    worker.name,
                    worker.execution,
                )
                worker.process.kill()
                worker.process.join()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and benchmarks)."""
        with self._lock:
            return [pid for w in self._pool if (pid := w.process.pid) is not None]

    # ---- inside the serving process

    def _hand_out(self) -> None:
        """Give queued executions to idle workers (with the lock held)."""
        for worker in self._pool:
            if not self._queue:
                return
            if worker.execution is None and worker.process.exitcode is None:
                worker.execution = self._queue.popleft()
                worker.stop_asked = None
                if not _send(worker, ("run", worker.execution)):
                    self._queue.appendleft(worker.execution)
                    worker.execution = None

    def _supervise(self) -> None:
        """Keep the pool full, and kill workers whose runs do not stop when asked."""
        while True:
            with self._lock:
                if not self._running:
                    return
                missing = self.size - len(self._pool)
            pause = self._pause_until - time.monotonic()
            if missing and pause <= 0:
                for _ in range(missing):
                    self._add_worker()
            try:
                self._kill_unstoppable()
            except Exception:
                logger.exception("message='could not look for runs that ignore a stop'")
            self._wake.wait(
                min(SUPERVISE_SECONDS, max(pause, 0.01)) if missing else SUPERVISE_SECONDS
            )
            self._wake.clear()

    def _add_worker(self) -> None:
        ours, theirs = _FORKS.Pipe()
        process = _FORKS.Process(target=work, args=(theirs,), name="otterweb-worker")
        try:
            process.start()
        except OSError:
            logger.exception("message='could not start a worker process'")
            ours.close()
            return
        finally:
            theirs.close()
        worker = Worker(process=process, connection=ours)
        with self._lock:
            if not self._running:
                process.kill()
                return
            self._pool.append(worker)
            metrics.WORKERS.set(len(self._pool))
            self._hand_out()
        threading.Thread(
            target=self._listen, args=(worker,), name=f"otterweb-worker-{process.pid}", daemon=True
        ).start()
        logger.info("worker=%s message='worker process started'", worker.name)

    def _listen(self, worker: Worker) -> None:
        """Relay what ``worker`` says until it is gone, then close its execution."""
        try:
            while True:
                try:
                    message = worker.connection.recv()
                except (EOFError, OSError):
                    break
                kind, execution_id, *rest = message
                if kind == "publish":
                    publish.relay(execution_id, rest[0])
                elif kind == "dispatch":
                    self.dispatch(execution_id)
                elif kind == "done":
                    with self._lock:
                        worker.execution = None
                        self._hand_out()
        except Exception:
            logger.exception("worker=%s message='relay failed: the worker is stopped'", worker.name)
            worker.process.kill()
        finally:
            worker.connection.close()
            worker.process.join()
            self._gone(worker, worker.process.exitcode)
            connections.close_all()

    def _gone(self, worker: Worker, code: int | None) -> None:
        with self._lock:
            self._pool.remove(worker)
            metrics.WORKERS.set(len(self._pool))
            execution_id, worker.execution = worker.execution, None
            running = self._running
        if time.monotonic() - worker.started < RESTART_PAUSE_SECONDS:
            self._pause_until = time.monotonic() + RESTART_PAUSE_SECONDS
        self._wake.set()
        if not running:
            return
        logger.error(
            "worker=%s exit=%s execution=%s message='worker process ended; starting another'",
            worker.name,
            _exit_text(code),
            execution_id,
        )
        if execution_id is None:
            return
        close_old_connections()
        reason = worker.killed_because or (
            f"The worker process {worker.name} ended ({_exit_text(code)}) while running the "
            "execution: it was lost."
        )
        if not runner.close_if_running(execution_id, reason):
            # never claimed: it is still pending, for another worker
            self.dispatch(execution_id)

    def _kill_unstoppable(self) -> None:
        with self._lock:
            busy = {w.execution: w for w in self._pool if w.execution is not None}
        if not busy:
            return
        close_old_connections()
        limit = settings.OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS
        condition = Q(cancel_requested=True)
        if limit:
            condition |= Q(started__lt=timezone.now() - timedelta(seconds=limit))
        asked = set(
            Execution.objects.filter(
                condition, pk__in=busy, run_state=RunState.EXECUTING
            ).values_list("pk", "cancel_requested")
        )
        now = time.monotonic()
        for execution_id, cancelled in asked:
            worker = busy[execution_id]
            if worker.stop_asked is None:
                worker.stop_asked = now
            elif now - worker.stop_asked > KILL_AFTER_SECONDS and worker.killed_because is None:
                worker.killed_because = (
                    "The execution was cancelled"
                    if cancelled
                    else f"The execution ran longer than its time limit ({limit:g} seconds)"
                ) + (
                    f", and its worker process did not stop it within {KILL_AFTER_SECONDS:g} "
                    "seconds: the worker was killed."
                )
                logger.warning(
                    "worker=%s execution=%s message='the run did not stop when asked: worker killed'",
                    worker.name,
                    execution_id,
                )
                worker.process.kill()


# Workers are forked from a server process that imported worker_boot: Django set up, the engine
# loaded. (Forking the serving process itself, which has threads, could copy a lock held by one.)
_FORKS = multiprocessing.get_context("forkserver")
_FORKS.set_forkserver_preload(["otterweb.executions.worker_boot"])


def _send(worker: Worker, message: tuple) -> bool:
    try:
        worker.connection.send(message)
        return True
    except OSError:
        return False  # it died: its listener closes it


def _exit_text(code: int | None) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# ---- inside a worker process


class ToServingProcess(Dispatcher):
    """A worker process's dispatcher: executions its runs make go to the serving process."""

    workers = "the serving process's workers"

    def __init__(self, send) -> None:
        super().__init__()
        self._send = send

    def dispatch(self, execution_id: int) -> None:
        self._send(("dispatch", execution_id))


def work(connection: Connection) -> None:
    """A worker process's life: run the executions the serving process sends, one at a time,
    until it says stop or goes away."""
    connections.close_all()  # the fork server's, if it opened any

    sending = threading.Lock()

    def send(message: tuple) -> None:
        with sending:
            connection.send(message)

    publish.forward_to(lambda execution_id, event: send(("publish", execution_id, event)))
    dispatch.use(ToServingProcess(send))
    os.nice(NICENESS)
    todo: queue.SimpleQueue[int | None] = queue.SimpleQueue()

    def listen() -> None:
        while True:
            try:
                kind, argument = connection.recv()
            except (EOFError, OSError):
                # The serving process is gone (killed with no time to say stop): so is this
                # worker, at once, with every thread it runs; the next server's reaper closes
                # the execution.
                os._exit(1)
            if kind == "run":
                todo.put(argument)
            elif kind == "stop":
                runner.stop_running_here(argument)
                todo.put(None)

    threading.Thread(target=listen, name="otterweb-worker-listener", daemon=True).start()
    while (execution_id := todo.get()) is not None:
        runner.run_on_this_thread(execution_id)
        send(("done", execution_id))
