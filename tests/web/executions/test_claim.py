"""The run path's few statements, for speed: an execution is claimed by one conditional
update, exactly once however many workers race for it; a finished execution holds no global
lock."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from otterweb.executions.models import Execution, GlobalLock
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job

pytestmark = pytest.mark.django_db(transaction=True)


def test_execution_claim_is_won_by_exactly_one_of_racing_workers(here) -> None:
    execution = create_job(script="Log-Information once;", servers=["here"])
    start, results = threading.Barrier(8), {}

    def claim(worker: str) -> None:
        try:
            start.wait(10)
            results[worker] = Execution.claim(execution.pk, worker=worker)[1]
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(f"w{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    [winner] = [worker for worker, claimed in results.items() if claimed]
    assert len(results) == 8
    execution.refresh_from_db()
    assert execution.run_state == "executing" and execution.worker == winner
    assert execution.started == execution.heartbeat is not None


def test_execution_claim_reads_the_job_and_its_user_with_it(here, user_with) -> None:
    user = user_with("executions.add_execution", "executions.run_on_local_server")
    execution = create_job(script="Log-Information once;", servers=["here"], requested_by=user)
    claimed, won = Execution.claim(execution.pk, worker="w")
    assert won and claimed.run_state == "executing"
    with CaptureQueriesContext(connection) as queries:
        assert claimed.job.requested_by == user and claimed.job.script_version is None
    assert len(queries) == 0
    assert Execution.claim(execution.pk, worker="other") == (claimed, False)
    assert Execution.claim(10**9, worker="w") == (None, False)


def test_execution_finish_frees_a_global_lock_left_behind(here) -> None:
    execution = create_job(script="Log-Information once;", servers=["here"])
    other = create_job(script="Log-Information once;", servers=["here"])
    GlobalLock.objects.create(token="left", execution=execution)
    GlobalLock.objects.create(token="others", execution=other)
    run_execution(execution.pk, worker="test")
    assert list(GlobalLock.objects.values_list("token", flat=True)) == ["others"]
    run_execution(other.pk, worker="test")
    assert not GlobalLock.objects.exists()
