"""Runs on the local server: a permission of their own, an unprivileged OS user, a working folder
of their own, an environment without the server's settings, and no process outliving a lost
execution (otterweb/executions/local_runs.py)."""

from __future__ import annotations

import os
import pwd
import subprocess
import time
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from otterweb.execution_logs.models import LogEntry
from otterweb.executions.local_runs import MARKER, process_recorder
from otterweb.executions.models import Execution
from otterweb.executions.runner import kill_orphans, run_execution
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server

pytestmark = pytest.mark.django_db(transaction=True)

RUN_USER = "otterweb-run"  # made by scripts/run-user (make setup) when the tests run as root
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root (CI is root)")


@pytest.fixture
def local():
    return Server.objects.create(name="here")


def run(script: str, **job) -> tuple[Execution, str]:
    execution = create_job(script=script, **{"servers": ["here"], **job})
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    lines = LogEntry.objects.filter(execution_id=execution.pk).order_by("seq")
    return execution, "\n".join(line.message for line in lines)


def test_local_runs_need_a_permission_of_their_own(local, user_with) -> None:
    runner = user_with("executions.add_execution")
    with pytest.raises(ValidationError, match="needs the permission 'Can run scripts on the local"):
        create_job(script="Log-Information x;", servers=["here"], requested_by=runner)
    # a script that picks the local server itself is stopped when it gets there
    execution, log = run(
        "for server here { SHExec echo reached; }", servers=[], requested_by=runner
    )
    assert execution.status == "error"
    assert "may not run scripts there" in log and "reached" not in log
    runner = user_with("executions.add_execution", "executions.run_on_local_server")
    execution, log = run("SHExec echo reached;", requested_by=runner)
    assert execution.status == "normal" and "reached" in log


def test_local_runs_see_none_of_the_servers_settings(local, monkeypatch) -> None:
    monkeypatch.setenv("OTTERWEB_SECRET_KEY", "server-secret-1")
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "otterweb.settings.test")
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://secret@127.0.0.1/0")
    monkeypatch.setenv("LANG", "C.UTF-8")
    execution, log = run(
        "SHExec env;\nLog-Information key=$EnvironmentVariable(OTTERWEB_SECRET_KEY);\n"
        "Log-Information lang=$EnvironmentVariable(LANG);"
    )
    assert execution.status == "normal", log
    assert "server-secret-1" not in log and "DJANGO_SETTINGS_MODULE" not in log
    assert "redis://secret" not in log
    assert "key=\n" in log + "\n" and "lang=C.UTF-8" in log
    assert f"{MARKER}={execution.pk}" in log  # what ties its processes to it


def test_local_runs_work_in_a_folder_of_their_own(local, settings, tmp_path) -> None:
    settings.OTTERWEB_WORK_DIR = tmp_path / "work"
    execution, log = run("SHExec pwd;")
    folder = tmp_path / "work" / f"execution-{execution.pk}"
    assert str(folder) in log.splitlines()
    assert not folder.exists()  # removed when the run ends


@as_root
def test_local_runs_run_as_the_unprivileged_run_user(local, settings, tmp_path) -> None:
    settings.OTTERWEB_RUN_AS_USER = None  # the default: otterweb-run, since this is root
    settings.OTTERWEB_WORK_DIR = tmp_path / "work"
    (tmp_path / "work").mkdir()
    tmp_path.chmod(0o755)
    secret = tmp_path / "db.sqlite3"
    secret.write_text("every token and hash")
    secret.chmod(0o600)
    execution, log = run(f"SHExec id -un;\nSHExec pwd;\nSHExec cat {secret};")
    assert pwd.getpwnam(RUN_USER)  # made by make setup
    assert RUN_USER in log.splitlines()
    assert str(tmp_path / "work" / f"execution-{execution.pk}") in log.splitlines()
    assert "Permission denied" in log and "every token" not in log
    assert execution.status == "error"


def test_kill_orphans_kills_the_processes_a_lost_execution_left(local, settings) -> None:
    execution = create_job(script="SHExec sleep 60;", servers=["here"])
    Execution.objects.filter(pk=execution.pk).update(run_state=Execution.RunState.COMPLETED)
    environment = {**os.environ, MARKER: str(execution.pk)}
    ours = subprocess.Popen(["sleep", "60"], start_new_session=True, env=environment)
    # a group number of the record now used by a process that is not the run's: left alone
    stranger = subprocess.Popen(["sleep", "60"], start_new_session=True)
    record = process_recorder(str(execution.pk))
    record(ours.pid, True)
    record(stranger.pid, True)
    try:
        assert kill_orphans() == [ours.pid]
        assert ours.wait(timeout=5) == -9
        time.sleep(0.1)
        assert stranger.poll() is None
        assert not (Path(settings.DATA_DIR) / "processes" / f"execution-{execution.pk}").exists()
    finally:
        for process in (ours, stranger):
            process.kill()
            process.wait()


def test_kill_orphans_leaves_running_executions_alone(local) -> None:
    execution = create_job(script="SHExec sleep 60;", servers=["here"])
    Execution.objects.filter(pk=execution.pk).update(run_state=Execution.RunState.EXECUTING)
    process = subprocess.Popen(
        ["sleep", "60"], start_new_session=True, env={**os.environ, MARKER: str(execution.pk)}
    )
    process_recorder(str(execution.pk))(process.pid, True)
    try:
        assert kill_orphans() == []
        assert process.poll() is None
    finally:
        process.kill()
        process.wait()
