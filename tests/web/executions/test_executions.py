"""Jobs and executions: wrapping, validation, the one run path, stored logs, cancel, reaper."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from engine import MAX_NESTING, Level
from otterweb.execution_logs.models import LogEntry, LogRun, LogScope
from otterweb.executions import runner
from otterweb.executions.models import Execution
from otterweb.executions.runner import reap_lost_executions, run_execution
from otterweb.executions.services import create_job, request_cancel
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Environment, Role, Server

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def servers():
    production = Environment.objects.create(name="production")
    web = Role.objects.create(name="web")
    made = []
    for name in ("web1", "web2"):
        server = Server.objects.create(name=name)
        server.roles.add(web)
        server.environments.add(production)
        made.append(server)
    return made


def entries(execution: Execution) -> list[LogEntry]:
    return list(LogEntry.objects.filter(execution_id=execution.pk).order_by("seq"))


def test_create_job_validates_script_servers_and_mode(servers) -> None:
    with pytest.raises(ValidationError, match="1:8: error"):
        create_job(script="set $x 1;")
    with pytest.raises(ValidationError, match="no active server named nowhere"):
        create_job(script="Log-Information x;", servers=["nowhere"])
    with pytest.raises(ValidationError, match="mode is one of"):
        create_job(script="Log-Information x;", mode="sometimes")
    execution = create_job(
        script="Log-Information x;", roles=["web"], environments=["production"], simulate=True
    )
    assert execution.run_state == "pending" and execution.simulate
    assert execution.job.targets == ["web1", "web2"]


def test_run_execution_stores_every_line_in_order_and_finishes(servers) -> None:
    execution = create_job(
        script="# Greeting\n{\n    Log-Information one;\n    Log-Warning two;\n}\nLog-Information three;",
        servers=["web1"],
    )
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    assert (execution.run_state, execution.status, execution.worker) == (
        "completed",
        "warning",
        "test",
    )
    stored = entries(execution)
    assert [e.seq for e in stored] == [1, 2, 3] and [e.message for e in stored] == [
        "one",
        "two",
        "three",
    ]
    assert execution.last_seq == 3 and execution.started and execution.ended
    scope = LogScope.objects.get(execution_id=execution.pk, name="Greeting")
    assert (scope.name, scope.status, scope.ended is not None) == ("Greeting", "warning", True)
    assert stored[0].scope_id == scope.scope_id


def test_run_execution_on_targets_gives_each_server_its_scope(servers) -> None:
    execution = create_job(script="Log-Information on $ServerName;", servers=["web1", "web2"])
    run_execution(execution.pk, worker="test")
    scopes = {s.scope_id: s.name for s in LogScope.objects.filter(execution_id=execution.pk)}
    by_server = {scopes[e.scope_id]: e.message for e in entries(execution)}
    assert by_server == {"web1": "on web1", "web2": "on web2"}


def test_run_execution_sees_inventory_variables_and_masks_sensitive(servers) -> None:
    inventory.set_variable(
        name="Port", value="8080", environment=Environment.objects.get(name="production")
    )
    inventory.set_variable(name="Token", value="t0p-s3cret", sensitive=True)
    execution = create_job(script="Log-Information port $Port token $Token;", servers=["web1"])
    run_execution(execution.pk, worker="test")
    assert [e.message for e in entries(execution)] == ["port 8080 token ********"]


def test_run_execution_is_not_run_twice(servers) -> None:
    execution = create_job(script="Log-Information once;", servers=["web1"])
    run_execution(execution.pk, worker="a")
    run_execution(execution.pk, worker="b")
    execution.refresh_from_db()
    assert execution.worker == "a" and len(entries(execution)) == 1


def test_run_execution_stores_drift(servers, tmp_path) -> None:
    execution = create_job(
        script=f"Ensure-Directory {tmp_path}/missing;", mode="collect", servers=["web1"]
    )
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    assert execution.drift == [
        {
            "server": "web1",
            "operation": f"Ensure-Directory {tmp_path}/missing",
            "line": 1,
            "differences": [{"property": "Exists", "expected": True, "actual": False}],
        }
    ]


def test_cancel_stops_a_running_execution_and_kills_its_process(servers) -> None:
    execution = create_job(script="Exec sleep 30;\nLog-Information never;", servers=["web1"])
    worker = threading.Thread(
        target=runner.run_on_this_thread, args=(execution.pk,)
    )  # as a worker thread does
    worker.start()
    for _ in range(100):
        execution.refresh_from_db()
        if execution.run_state == "executing":
            break
        time.sleep(0.05)
    start = time.monotonic()
    request_cancel(execution=execution)
    worker.join(timeout=10)
    assert not worker.is_alive() and time.monotonic() - start < 6
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "cancelled")
    [said] = [e for e in entries(execution) if e.message == "The execution was cancelled."]
    assert said.level == Level.INFORMATION and execution.log_errors == 0  # no error of its own
    assert "never" not in [e.message for e in entries(execution)]


def test_run_execution_stops_a_run_past_its_time_limit(servers, settings) -> None:
    settings.OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS = 1.5
    execution = create_job(script="Exec sleep 30;\nLog-Information never;", servers=["web1"])
    start = time.monotonic()
    run_execution(execution.pk, worker="test")
    assert time.monotonic() - start < 6
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "error")
    reason = "The execution ran longer than its time limit (1.5 seconds) and was stopped."
    assert execution.error == reason and entries(execution)[-1].message == reason


def test_run_execution_closes_as_error_at_once_when_anything_escapes_the_run(
    servers, monkeypatch
) -> None:
    def broken(**kwargs):
        raise RuntimeError("the host broke")

    monkeypatch.setattr(runner.DjangoHost, "load", broken)
    execution = create_job(script="Log-Information x;", servers=["web1"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "error")
    assert execution.error == "The execution failed: RuntimeError: the host broke"
    assert entries(execution)[-1].message == execution.error


@pytest.mark.parametrize(
    ("script", "last_line"),
    [
        ('Get-Http "http://127.0.0.1:9/a b";', "holds a space or a control character"),
        ("module Again {\n    call Again;\n}\ncall Again;", "call itself without end"),
    ],
)
def test_run_execution_of_a_script_that_fails_at_run_time_ends_as_error_at_once(
    servers, script, last_line
) -> None:
    execution = create_job(script=script, servers=["web1"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "error")
    assert last_line in entries(execution)[-1].message


def test_create_job_refuses_a_script_nested_too_deep_naming_where(servers) -> None:
    deep = "{\n" * 300 + "}\n" * 300
    with pytest.raises(
        ValidationError, match=f"201:1: error: the script nests more than {MAX_NESTING}"
    ):
        create_job(script=deep, servers=["web1"])


def test_cancel_of_a_pending_execution_closes_it_at_once(servers) -> None:
    execution = create_job(script="Log-Information x;", servers=["web1"])
    request_cancel(execution=execution)
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "cancelled")
    assert entries(execution)[-1].message == "The execution was cancelled before it started."
    assert entries(execution)[-1].level == Level.INFORMATION and execution.log_errors == 0


def test_reaper_closes_executions_whose_worker_stopped_and_keeps_their_lines(servers) -> None:
    execution = create_job(script="Log-Information x;", servers=["web1"])
    Execution.objects.filter(pk=execution.pk).update(
        run_state="executing",
        worker="host:123",
        heartbeat=timezone.now() - timedelta(minutes=5),
        started=timezone.now(),
    )
    for seq in (1, 2):
        LogEntry.objects.create(
            execution_id=execution.pk, seq=seq, level=10, message=f"line {seq}", time=timezone.now()
        )
    fresh = create_job(script="Log-Information y;", servers=["web1"])
    Execution.objects.filter(pk=fresh.pk).update(run_state="executing", heartbeat=timezone.now())
    assert reap_lost_executions(lost_after=timedelta(seconds=30)) == [execution.pk]
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "error")
    stored = entries(execution)
    assert [e.seq for e in stored] == [1, 2, 3]
    assert stored[-1].message.startswith("The worker host:123 stopped responding")
    assert Execution.objects.get(pk=fresh.pk).run_state == "executing"


def log_rows(execution: Execution) -> list[int]:
    """How many entries, scopes and runs the execution's log holds."""
    return [
        model.objects.filter(execution_id=execution.pk).count()
        for model in (LogEntry, LogScope, LogRun)
    ]


def test_execution_delete_deletes_its_log_and_no_other(servers) -> None:
    made = [create_job(script="Log-Information x;", servers=["web1"]) for _ in range(3)]
    for execution in made:
        run_execution(execution.pk, worker="test")
    deleted, by_job, kept = made
    assert all(count > 0 for count in log_rows(deleted))
    deleted.delete()
    by_job.job.delete()  # its executions go with it
    assert log_rows(deleted) == log_rows(by_job) == [0, 0, 0]
    assert all(count > 0 for count in log_rows(kept))


def test_distributed_settings_check_warns_about_redis_without_postgresql() -> None:
    from otterweb.executions.apps import distributed_problems

    sqlite, postgresql = "django.db.backends.sqlite3", "django.db.backends.postgresql"
    assert distributed_problems("", sqlite) == []
    assert distributed_problems("redis://127.0.0.1:6379/0", postgresql) == []
    [warning] = distributed_problems("redis://127.0.0.1:6379/0", sqlite)
    assert warning.id == "otterweb.W001" and "OTTERWEB_DATABASE_URL" in warning.msg
