"""End to end, as a user, in both modes: the embedded default (`manage.py serve`) and the
distributed mode (daphne and Celery workers on PostgreSQL and Redis). A user and a token come
from the management commands; scripts run through the API; logs are read over the websocket."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.request
from datetime import datetime

import pytest
from websockets.sync.client import connect

from tests.e2e.serving import DistributedSite, Site, make_site, running_site, stop
from tests.metrics import samples

LINES = 2000
METRICS_TOKEN = "e2e-scraper-token"
MODES = ["embedded", "distributed"]
QUICK_LIVENESS = {
    "OTTERWEB_HEARTBEAT_SECONDS": "1",
    "OTTERWEB_LOST_AFTER_SECONDS": "3",
    "OTTERWEB_HOUSEKEEPING_SECONDS": "1",
}


@pytest.fixture(scope="module", params=MODES)
def site(request, tmp_path_factory):
    """A running site: `manage.py serve`, or daphne and one Celery worker. The module's tests
    that share it each run executions of their own."""
    folder = tmp_path_factory.mktemp(f"site-{request.param}")
    with running_site(request.param, folder, OTTERWEB_METRICS_TOKEN=METRICS_TOKEN) as site:
        yield site


def read_to_complete(site: Site, execution_id: int) -> tuple[list[dict], list[str], int]:
    """Every log entry and status the websocket sends, up to `complete` and its last seq."""
    entries, statuses = [], []
    with connect(
        f"ws://127.0.0.1:{site.port}/ws/executions/{execution_id}/",
        additional_headers={"Authorization": f"Token {site.token}"},
        open_timeout=10,
    ) as socket_:
        while True:
            message = json.loads(socket_.recv(timeout=60))
            if message["type"] == "log":
                entries += message["entries"]
            elif message["type"] == "status":
                statuses.append(message["status"])
            elif message["type"] == "complete":
                return entries, statuses, message["last_seq"]


def test_e2e_script_through_api_and_websocket_every_line_once_in_order(site) -> None:
    script = f"# Count\nforeach $i in @Range(1, {LINES}) {{ Log-Information line $i; }}"
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    entries, _statuses, last = read_to_complete(site, execution["id"])
    assert [entry["seq"] for entry in entries] == list(range(1, last + 1))
    assert last == LINES
    detail = site.api("GET", f"/api/executions/{execution['id']}/")
    assert (detail["run_state"], detail["status"]) == ("completed", "normal")


def scrape(site: Site) -> dict[str, dict[tuple, float]]:
    """/metrics as Prometheus reads it: each sample by name, then its labels (sorted pairs)."""
    request = urllib.request.Request(
        f"{site.base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return samples(response.read().decode())


def test_e2e_metrics_sum_what_the_sites_processes_count(site) -> None:
    """The run ends in a worker process (embedded) or a Celery worker (distributed), its viewer
    is the web server's: /metrics, answered by the web server, counts them all."""
    ended = ("otterweb_executions_ended_total", (("mode", "execute"), ("status", "normal")))
    before = scrape(site)
    script = "Log-Information one;\nSleep 2;\nLog-Information two;"
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    with connect(
        f"ws://127.0.0.1:{site.port}/ws/executions/{execution['id']}/",
        additional_headers={"Authorization": f"Token {site.token}"},
        open_timeout=10,
    ) as watching:
        watching.recv(timeout=30)
        assert scrape(site)["otterweb_websocket_clients"][()] == 1
    site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
    after = scrape(site)
    assert after[ended[0]][ended[1]] - before.get(ended[0], {}).get(ended[1], 0) == 1
    lines = after["otterweb_log_lines_written_total"][()]
    assert lines - before.get("otterweb_log_lines_written_total", {}).get((), 0) >= 2
    assert after["otterweb_websocket_clients"][()] == 0
    workers = after["otterweb_workers_alive"][()]
    assert workers == (1 if isinstance(site, DistributedSite) else 4)


def test_e2e_collect_debian_packages_keeps_them_and_scripts_read_them(site) -> None:
    """As the run user (not OtterWeb's own), through the worker: the packages kept on the
    server, and a package's version asked of dpkg (with rpm present too, which the run user
    cannot read on Debian)."""
    dpkg = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${Version}", "dpkg"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    script = "Collect-DebianPackages;\nLog-Information dpkg [$InstalledPackageVersion(dpkg)];"
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    entries, _statuses, _last = read_to_complete(site, execution["id"])
    messages = [entry.get("message", "") for entry in entries]
    assert f"dpkg [{dpkg}]" in messages, messages
    architecture = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()
    kept = site.api("GET", "/api/servers/localhost/packages/?q=dpkg")["results"]
    assert {"manager": "deb", "name": "dpkg", "version": dpkg, "architecture": architecture} in kept


def refused(url: str, **options) -> bool:
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    try:
        with connect(url, open_timeout=10, **options) as socket_:
            socket_.recv(timeout=5)
    except (InvalidStatus, ConnectionClosed):
        return True
    return False


def test_e2e_websocket_refuses_without_credentials_and_foreign_origins(site) -> None:
    execution = site.api(
        "POST", "/api/executions/", {"script": "Log-Information x;", "servers": ["localhost"]}
    )
    url = f"ws://127.0.0.1:{site.port}/ws/executions/{execution['id']}/"
    assert refused(url)
    assert refused(
        url,
        origin="http://evil.example",
        additional_headers={"Authorization": f"Token {site.token}"},
    )


@pytest.mark.parametrize("mode", MODES)
def test_e2e_reaper_closes_the_execution_of_a_worker_killed_with_sigkill(mode, tmp_path) -> None:
    """The process running an execution dies mid-run (SIGKILL): `manage.py serve` in the
    embedded mode, the Celery worker in the distributed one. The housekeeper of the next server
    (or of another worker) closes its execution with status error and a line saying the worker
    was lost, after every line already stored."""
    site = make_site(mode, tmp_path, **QUICK_LIVENESS)
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    web = site.serve(log)
    running = site.worker("w1", log) if mode == "distributed" else web
    survivor = None
    try:
        script = "Log-Information before;\nSleep 60;\nLog-Information never;"
        execution = site.api(
            "POST", "/api/executions/", {"script": script, "servers": ["localhost"]}
        )
        detail = site.wait_for(
            execution["id"], lambda d: d["run_state"] == "executing" and d["last_seq"] >= 1
        )
        assert detail["run_state"] == "executing"
        running.send_signal(signal.SIGKILL)
        running.wait(timeout=10)
        survivor = site.worker("w2", log) if mode == "distributed" else site.serve(log)
        detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
        assert (detail["run_state"], detail["status"]) == ("completed", "error")
        logs = site.api("GET", f"/api/executions/{execution['id']}/logs/")
        assert logs[0]["message"] == "before"
        assert "stopped responding" in logs[-1]["message"] and logs[-1]["level"] == "error"
        assert [entry["seq"] for entry in logs] == list(range(1, len(logs) + 1))
        # the execution is not run again, even where its task is delivered again
        assert all(entry["message"] != "never" for entry in logs)
    finally:
        for process in (survivor, web if mode == "distributed" else None):
            if process is not None:
                stop(process)
        log.close()
        site.close()


def test_e2e_distributed_global_lock_holds_across_workers(tmp_path) -> None:
    """Two executions on two Celery workers take turns with `lock=!Deploy` (held in Redis)."""
    site = DistributedSite(tmp_path, OTTERWEB_WORKERS="1")  # one thread each: one task each
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    processes = [site.serve(log), site.worker("w1", log), site.worker("w2", log)]
    try:
        script = "with lock=!Deploy { Log-Information start; Sleep 2; Log-Information end; }"
        executions = [
            site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
            for _ in range(2)
        ]
        spans, workers = [], set()
        for execution in executions:
            detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
            assert detail["status"] == "normal", detail
            workers.add(detail["worker"])
            logs = {
                e["message"]: datetime.fromisoformat(e["time"])
                for e in site.api("GET", f"/api/executions/{execution['id']}/logs/")
            }
            spans.append((logs["start"], logs["end"]))
        (_, first_end), (second_start, _) = sorted(spans)
        assert first_end <= second_start
        assert len(workers) == 2, f"both ran on one worker: {workers}"
    finally:
        for process in processes:
            stop(process)
        log.close()
        site.close()


def test_e2e_cancel_reaches_the_worker_and_kills_its_processes(site) -> None:
    """Cancel through the API stops the run on whichever worker has it (the serving process, or a
    Celery worker) and kills the process it started."""
    marker = f"{time.time():.6f}"  # a sleep of this many seconds: found again with pgrep
    execution = site.api(
        "POST",
        "/api/executions/",
        {"script": f"Log-Information started;\nSHExec sleep {marker};", "servers": ["localhost"]},
    )
    detail = site.wait_for(
        execution["id"], lambda d: d["run_state"] == "executing" and d["last_seq"] >= 1
    )
    for _ in range(100):
        if subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the script's process never started")
    cancelled_at = time.monotonic()
    site.api("POST", f"/api/executions/{execution['id']}/cancel/")
    detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
    assert (detail["run_state"], detail["status"]) == ("completed", "cancelled")
    assert time.monotonic() - cancelled_at < 15
    assert subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True).returncode == 1


def test_e2e_stopping_serve_cancels_its_runs_and_stores_why(tmp_path) -> None:
    """SIGTERM to `manage.py serve` mid-run: it stops within seconds, not at the end of the run,
    and the execution is closed with the reason as its last line."""
    site = Site(tmp_path)
    server = site.serve()
    execution = site.api(
        "POST",
        "/api/executions/",
        {"script": "Log-Information started;\nSHExec sleep 120;", "servers": ["localhost"]},
    )
    site.wait_for(execution["id"], lambda d: d["run_state"] == "executing" and d["last_seq"] >= 1)
    time.sleep(0.5)  # the process is running
    stopping = time.monotonic()
    stop(server)
    assert time.monotonic() - stopping < 10
    server = site.serve()
    try:
        detail = site.api("GET", f"/api/executions/{execution['id']}/")
        assert (detail["run_state"], detail["status"]) == ("completed", "error")
        logs = site.api("GET", f"/api/executions/{execution['id']}/logs/")
        assert (
            logs[-1]["message"]
            == "The server was stopped while the execution ran: it was cancelled."
        )
    finally:
        stop(server)
