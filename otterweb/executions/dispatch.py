"""Handing pending executions to workers.

Every process has one dispatcher, chosen once from the settings by the executions app when
Django starts, and held here (``current()``). The embedded default runs executions in worker processes
that `manage.py serve` supervises (otterweb.executions.workers); the distributed mode sends them
to Celery workers (`celery -A otterweb worker`); any other process, and the tests, leave them
pending. A process that runs executions starts its dispatcher, and with it a housekeeper that
closes executions whose worker died and hands out again those left pending."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connections
from django.utils import timezone

from engine import RunState
from otterweb.executions import runner, tasks
from otterweb.executions.models import Execution
from otterweb.housekeeping import ROUNDS, Round

logger = logging.getLogger(__name__)


class Dispatcher:
    """Where the executions made in this process go. This one leaves them pending
    (OTTERWEB_DISPATCH "none": the tests run executions themselves)."""

    # A pending execution older than this is handed out again by the housekeeper (None: never).
    pick_up_after: float | None = None
    workers = "no workers (executions stay pending)"

    def __init__(self) -> None:
        self._housekeeper: Housekeeper | None = None

    def dispatch(self, execution_id: int) -> None:
        """Queue an execution (called when the transaction that made it commits)."""

    def start(self) -> None:
        """This process runs executions from now on (`manage.py serve`, a Celery worker): it
        also keeps house."""
        self._housekeeper = Housekeeper(self)
        self._housekeeper.start()

    def stop(self) -> None:
        """This process is stopping."""
        if self._housekeeper is not None:
            self._housekeeper.stop()

    def dispatch_pending(self) -> list[int]:
        """Dispatch executions still pending a while after they were made (made by another
        process, lost in transit, or left by a restart). Running one twice is impossible:
        runner.run_execution claims it first."""
        if self.pick_up_after is None:
            return []
        cutoff = timezone.now() - timedelta(seconds=self.pick_up_after)
        pending = list(
            Execution.objects.filter(run_state=RunState.PENDING, created__lt=cutoff).values_list(
                "pk", flat=True
            )
        )
        for execution_id in pending:
            self.dispatch(execution_id)
        return pending


class CeleryQueue(Dispatcher):
    """The distributed mode: executions go to Celery workers through the broker."""

    # Celery holds its queue even while every worker is busy: an execution is sent again only
    # when it looks lost in transit.
    pick_up_after = 300.0
    workers = "Celery workers"

    def dispatch(self, execution_id: int) -> None:
        try:
            tasks.run_execution.delay(execution_id)
        except Exception as error:  # the broker is down: the housekeeper sends it again later
            logger.error(
                "execution=%s message='could not queue the execution; it stays pending and is sent again later' error=%r",
                execution_id,
                str(error),
            )


# a worker process of `manage.py serve` puts its own in place of the one the settings chose
_current: Dispatcher | None = None


def use(dispatcher: Dispatcher) -> None:
    global _current
    _current = dispatcher


def current() -> Dispatcher:
    """This process's dispatcher."""
    if _current is None:
        raise RuntimeError("No dispatcher yet: the executions app chooses one when Django starts.")
    return _current


class Housekeeper:
    """Every few seconds, close executions whose worker was lost, kill the processes they left,
    and hand out again those left pending, through ``dispatcher``. Beside that, each round the
    apps added (otterweb.housekeeping) on a thread of its own: inventory checks the servers due
    for their periodic check, the scheduler fires due schedules (each claimed by one process)."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="otterweb-housekeeper", daemon=True)
        self._rounds = [
            threading.Thread(target=self._go_round, args=(r, seconds), name=r.name, daemon=True)
            for r in ROUNDS.values()
            if (seconds := r.seconds())
        ]

    def start(self) -> None:
        self._thread.start()
        for thread in self._rounds:
            thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(settings.OTTERWEB_HOUSEKEEPING_SECONDS):
            close_old_connections()
            try:
                runner.reap_lost_executions()
                runner.kill_orphans()
                self.dispatcher.dispatch_pending()
            except Exception:
                logger.exception("message='housekeeping failed; trying again later'")

    def _go_round(self, round_: Round, seconds: float) -> None:
        while not self._stop.wait(seconds):
            close_old_connections()
            try:
                round_.run()
            except Exception:
                logger.exception("round=%s message='failed; trying again later'", round_.name)
        connections.close_all()  # this thread's own
