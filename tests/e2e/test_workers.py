"""The embedded mode's worker processes, end to end: `manage.py serve` runs no script itself; a
worker that dies is replaced and its execution closed at once; a run that does not stop when
asked (cancelled, or past its time limit) has its worker killed; and the site answers throughout."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.serving import Site, stop

SLEEPER = "Log-Information started;\nSleep 60;\nLog-Information never;"


@pytest.fixture
def served(tmp_path):
    """A site of two workers, and its `manage.py serve` process."""
    site = Site(tmp_path, OTTERWEB_WORKERS="2", OTTERWEB_WORK_DIR=str(tmp_path / "work"))
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        server = site.serve(log)
        try:
            yield site, server
        finally:
            stop(server, log_path)


def workers_of(server: subprocess.Popen) -> set[int]:
    """The worker processes `serve` runs now: the children of its fork server."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parents[int(entry.name)] = int(
                (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            )
            commands[int(entry.name)] = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
    forkservers = {
        pid
        for pid, parent in parents.items()
        if parent == server.pid and b"forkserver" in commands.get(pid, b"")
    }
    return {pid for pid, parent in parents.items() if parent in forkservers}


def until(predicate, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)
    return value


def start_sleeper(site: Site) -> tuple[dict, int]:
    """An execution that sleeps, once it runs; and the worker process that runs it."""
    execution = site.api("POST", "/api/executions/", {"script": SLEEPER, "servers": ["localhost"]})
    detail = site.wait_for(
        execution["id"], lambda d: d["run_state"] == "executing" and d["last_seq"] >= 1
    )
    assert detail["run_state"] == "executing", detail
    return detail, int(detail["worker"].rsplit(":", 1)[1])


def last_line(site: Site, execution_id: int) -> dict:
    return site.api("GET", f"/api/executions/{execution_id}/logs/")[-1]


def test_e2e_runs_happen_in_worker_processes_never_in_the_serving_process(served) -> None:
    site, server = served
    pool = until(lambda: len(workers_of(server)) == 2 and workers_of(server))
    execution = site.api(
        "POST", "/api/executions/", {"script": "Log-Information here;", "servers": ["localhost"]}
    )
    detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
    assert detail["status"] == "normal"
    worker = int(detail["worker"].rsplit(":", 1)[1])
    assert worker != server.pid and worker in pool


def test_e2e_worker_killed_mid_run_closes_its_execution_at_once_and_is_replaced(served) -> None:
    site, server = served
    detail, worker = start_sleeper(site)
    work_folder = site.data / "work" / f"execution-{detail['id']}"
    assert work_folder.is_dir()
    os.kill(worker, signal.SIGKILL)
    killed = time.monotonic()
    # closed by the supervisor, not after the reaper's 30 seconds without a heartbeat
    detail = site.wait_for(detail["id"], lambda d: d["run_state"] == "completed", seconds=10)
    assert time.monotonic() - killed < 10
    assert (detail["run_state"], detail["status"]) == ("completed", "error")
    line = last_line(site, detail["id"])
    assert line["level"] == "error" and "killed by SIGKILL" in line["message"]
    assert not work_folder.exists()
    pool = until(lambda: len(workers_of(server)) == 2 and workers_of(server))
    assert worker not in pool
    # the pool runs executions again, and never ran "never"
    again = site.api(
        "POST", "/api/executions/", {"script": "Log-Information x;", "servers": ["localhost"]}
    )
    assert site.wait_for(again["id"], lambda d: d["run_state"] == "completed")["status"] == "normal"
    messages = [e["message"] for e in site.api("GET", f"/api/executions/{detail['id']}/logs/")]
    assert "never" not in messages and messages[0] == "started"


def test_e2e_cancel_kills_a_worker_whose_run_does_not_stop(served) -> None:
    """A worker stuck where the run cannot hear the cancel (stopped here with SIGSTOP, as if
    its code were busy) is killed a few seconds after the cancel, and the execution is closed
    as cancelled; the site answers meanwhile."""
    site, server = served
    detail, worker = start_sleeper(site)
    os.kill(worker, signal.SIGSTOP)
    site.api("POST", f"/api/executions/{detail['id']}/cancel/")
    asked = time.monotonic()
    assert site.api("GET", "/api/executions/")  # the serving process answers
    detail = site.wait_for(detail["id"], lambda d: d["run_state"] == "completed", seconds=20)
    assert (detail["run_state"], detail["status"]) == ("completed", "cancelled")
    assert time.monotonic() - asked < 15
    assert "did not stop it" in last_line(site, detail["id"])["message"]
    until(lambda: worker not in workers_of(server) and len(workers_of(server)) == 2)


def test_e2e_time_limit_kills_a_worker_whose_run_does_not_stop(tmp_path) -> None:
    site = Site(tmp_path, OTTERWEB_WORKERS="1", OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS="3")
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        server = site.serve(log)
        try:
            detail, worker = start_sleeper(site)
            os.kill(worker, signal.SIGSTOP)
            detail = site.wait_for(detail["id"], lambda d: d["run_state"] == "completed", 25)
            assert (detail["run_state"], detail["status"]) == ("completed", "error")
            message = last_line(site, detail["id"])["message"]
            assert "longer than its time limit (3 seconds)" in message
        finally:
            stop(server, log_path)
