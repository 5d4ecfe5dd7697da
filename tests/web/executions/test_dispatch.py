"""Dispatchers: which one a process has, when executions go to workers, and the housekeeper."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone

from otterweb.executions import dispatch
from otterweb.executions.apps import dispatcher_from_settings
from otterweb.executions.models import Execution
from otterweb.executions.services import create_job
from otterweb.executions.workers import WorkerProcesses

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("here")]


class Recorder(dispatch.Dispatcher):
    """Records what it is asked to dispatch; hands out executions pending for any time."""

    pick_up_after = 0.0

    def __init__(self) -> None:
        super().__init__()
        self.dispatched: list[int] = []

    def dispatch(self, execution_id: int) -> None:
        self.dispatched.append(execution_id)


def until(predicate, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.05)


def state(execution: Execution) -> tuple[str, str]:
    execution.refresh_from_db()
    return execution.run_state, execution.status


def test_dispatcher_from_settings_gives_the_dispatcher_the_setting_names(settings) -> None:
    settings.OTTERWEB_DISPATCH, settings.OTTERWEB_WORKERS = "embedded", 3
    pool = dispatcher_from_settings()
    assert isinstance(pool, WorkerProcesses) and pool.size == 3
    assert pool.pids() == []  # nothing is started before `serve` starts it
    settings.OTTERWEB_DISPATCH = "celery"
    assert isinstance(dispatcher_from_settings(), dispatch.CeleryQueue)
    settings.OTTERWEB_DISPATCH = "none"
    assert type(dispatcher_from_settings()) is dispatch.Dispatcher
    settings.OTTERWEB_DISPATCH = "sometimes"
    with pytest.raises(ImproperlyConfigured, match="not 'sometimes'"):
        dispatcher_from_settings()


def test_create_job_dispatches_through_the_process_dispatcher_once_committed(
    monkeypatch,
) -> None:
    recorder = Recorder()
    monkeypatch.setattr(dispatch, "_current", recorder)
    with transaction.atomic():
        execution = create_job(script="Log-Information x;", servers=["here"])
        assert recorder.dispatched == []
    assert recorder.dispatched == [execution.pk]


def test_worker_processes_leave_executions_pending_until_started() -> None:
    pool = WorkerProcesses(2)
    execution = create_job(script="Log-Information x;", servers=["here"])
    pool.dispatch(execution.pk)
    assert state(execution)[0] == "pending"


def test_dispatch_pending_hands_out_executions_pending_longer_than_it_waits() -> None:
    old = create_job(script="Log-Information x;", servers=["here"])
    Execution.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(minutes=10))
    create_job(script="Log-Information x;", servers=["here"])  # pending for less than a minute
    recorder = Recorder()
    recorder.pick_up_after = 60.0
    assert recorder.dispatch_pending() == [old.pk]
    assert recorder.dispatched == [old.pk]
    assert dispatch.Dispatcher().dispatch_pending() == []  # "none" never hands any out


def test_housekeeper_closes_lost_executions_and_hands_out_pending_ones(settings) -> None:
    settings.OTTERWEB_HOUSEKEEPING_SECONDS = 0.1
    lost, pending = (create_job(script="Log-Information x;", servers=["here"]) for _ in range(2))
    Execution.objects.filter(pk=lost.pk).update(
        run_state="executing", heartbeat=timezone.now() - timedelta(hours=1)
    )
    recorder = Recorder()
    housekeeper = dispatch.Housekeeper(recorder)
    housekeeper.start()
    try:
        until(lambda: pending.pk in recorder.dispatched and state(lost)[0] == "completed")
    finally:
        housekeeper.stop()
    assert state(lost) == ("completed", "error")


def test_housekeeper_checks_servers_on_a_round_of_its_own_unless_checks_are_off(settings) -> None:
    settings.OTTERWEB_SERVER_CHECK_MINUTES = 5
    rounds = [thread.name for thread in dispatch.Housekeeper(dispatch.Dispatcher())._rounds]
    assert "otterweb-server-checks" in rounds
    settings.OTTERWEB_SERVER_CHECK_MINUTES = 0
    rounds = [thread.name for thread in dispatch.Housekeeper(dispatch.Dispatcher())._rounds]
    assert "otterweb-server-checks" not in rounds
