"""Everything a run started dies with it, in both modes: processes that left its process group
(`setsid`) or its process tree (a double fork) are gone when the run ends, and after its worker
is killed with SIGKILL."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from tests.e2e.serving import make_site, running_site, stop

MODES = ["embedded", "distributed"]
QUICK_LIVENESS = {
    "OTTERWEB_HEARTBEAT_SECONDS": "1",
    "OTTERWEB_LOST_AFTER_SECONDS": "3",
    "OTTERWEB_HOUSEKEEPING_SECONDS": "1",
}


def escaping(marker: str) -> str:
    """A script that starts two sleeps that escape its process group and tree."""
    return (
        "SHExec >>\n"
        f"setsid sleep {marker}1 > /dev/null 2>&1 < /dev/null &\n"
        f"( sleep {marker}2 > /dev/null 2>&1 < /dev/null & )\n"
        ">>;\n"
    )


def running(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
    return found.stdout.split()


def until(predicate, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


@pytest.fixture(params=MODES)
def mode(request) -> str:
    return request.param


def test_e2e_processes_a_run_left_behind_die_when_it_ends(mode, tmp_path) -> None:
    marker = f"{time.time():.6f}"
    with running_site(mode, tmp_path) as site:
        script = escaping(marker) + "SHExec >>\nsleep 5\n>>;\nLog-Information done;"
        execution = site.api(
            "POST", "/api/executions/", {"script": script, "servers": ["localhost"]}
        )
        until(lambda: len(running(marker)) == 2)  # both escaped while the run went on
        detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
        assert detail["status"] == "normal", detail
        until(lambda: not running(marker), seconds=10)


def test_e2e_processes_of_a_run_die_after_its_worker_is_killed(mode, tmp_path) -> None:
    site = make_site(mode, tmp_path, **QUICK_LIVENESS)
    log_path = tmp_path / "server.log"
    marker = f"{time.time():.6f}"
    with open(log_path, "wb") as log:
        web = site.serve(log)
        celery = site.worker("w1", log) if mode == "distributed" else None
        survivor = None
        try:
            script = escaping(marker) + "Log-Information escaped;\nSleep 60;"
            execution = site.api(
                "POST", "/api/executions/", {"script": script, "servers": ["localhost"]}
            )
            detail = site.wait_for(
                execution["id"], lambda d: d["run_state"] == "executing" and d["last_seq"] >= 1
            )
            until(lambda: len(running(marker)) == 2)
            if celery is not None:
                celery.send_signal(signal.SIGKILL)
                celery.wait(timeout=10)
                survivor = site.worker("w2", log)
            else:
                worker = int(detail["worker"].rsplit(":", 1)[1])
                subprocess.run(["kill", "-KILL", str(worker)], check=True)
            detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
            assert (detail["run_state"], detail["status"]) == ("completed", "error")
            until(lambda: not running(marker), seconds=15)  # the housekeeper's next rounds
        finally:
            for process in (survivor, web):
                if process is not None:
                    stop(process, log_path)
            site.close()
