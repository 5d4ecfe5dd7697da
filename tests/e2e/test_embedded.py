"""End to end, as a user: `manage.py serve` on a free 127.0.0.1 port, a user and a token from the
management commands, a script run through the API, its log read over the websocket."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.request

import pytest
from websockets.sync.client import connect

from tests.e2e.serving import Site

LINES = 2000


@pytest.fixture
def server(tmp_path):
    site = Site(tmp_path)
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - closed below
    process = site.serve(log)
    yield site.base, site.port, site.token
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack
        process.wait(timeout=10)
        log.close()
        raise AssertionError(
            "serve did not stop on SIGTERM:\n" + (tmp_path / "serve.log").read_text()[-6000:]
        ) from None
    log.close()


def api(base: str, token: str, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_e2e_embedded_script_through_api_and_websocket_every_line_once_in_order(server) -> None:
    base, port, token = server
    script = f"# Count\nforeach $i in @Range(1, {LINES}) {{ Log-Information line $i; }}"
    execution = api(base, token, "POST", "/api/executions/", {"script": script})
    seqs: list[int] = []
    statuses = []
    with connect(f"ws://127.0.0.1:{port}/ws/executions/{execution['id']}/", additional_headers={"Authorization": f"Token {token}"},
                 open_timeout=10) as socket_:  # fmt: skip
        while True:
            message = json.loads(socket_.recv(timeout=30))
            if message["type"] == "log":
                seqs += [entry["seq"] for entry in message["entries"]]
            elif message["type"] == "status":
                statuses.append(message["status"])
            elif message["type"] == "complete":
                last = message["last_seq"]
                break
    assert seqs == list(range(1, last + 1))
    assert last == LINES
    detail = api(base, token, "GET", f"/api/executions/{execution['id']}/")
    assert (detail["run_state"], detail["status"]) == ("completed", "normal")


def refused(url: str, **options) -> bool:
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    try:
        with connect(url, open_timeout=10, **options) as socket_:
            socket_.recv(timeout=5)
    except (InvalidStatus, ConnectionClosed):
        return True
    return False


def test_e2e_websocket_refuses_without_credentials_and_foreign_origins(server) -> None:
    base, port, token = server
    execution = api(base, token, "POST", "/api/executions/", {"script": "Log-Information x;"})
    url = f"ws://127.0.0.1:{port}/ws/executions/{execution['id']}/"
    assert refused(url)
    assert refused(
        url, origin="http://evil.example", additional_headers={"Authorization": f"Token {token}"}
    )


def test_e2e_reaper_closes_the_execution_of_a_server_killed_with_sigkill(tmp_path) -> None:
    """A worker process dies mid-run (SIGKILL): the next server's housekeeper closes its execution
    with status error and a line saying the worker was lost, after every line already stored."""
    site = Site(
        tmp_path,
        OTTERWEB_HEARTBEAT_SECONDS="1",
        OTTERWEB_LOST_AFTER_SECONDS="3",
        OTTERWEB_HOUSEKEEPING_SECONDS="1",
    )
    base, token = site.base, site.token
    first = site.serve(subprocess.DEVNULL)
    script = "Log-Information before;\nSleep 60;\nLog-Information never;"
    execution = api(base, token, "POST", "/api/executions/", {"script": script})
    for _ in range(100):
        detail = api(base, token, "GET", f"/api/executions/{execution['id']}/")
        if detail["run_state"] == "executing" and detail["last_seq"] >= 1:
            break
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    second = site.serve(subprocess.DEVNULL)
    try:
        for _ in range(150):
            detail = api(base, token, "GET", f"/api/executions/{execution['id']}/")
            if detail["run_state"] == "completed":
                break
            time.sleep(0.1)
        assert (detail["run_state"], detail["status"]) == ("completed", "error")
        logs = api(base, token, "GET", f"/api/executions/{execution['id']}/logs/")
        assert logs[0]["message"] == "before"
        assert "stopped responding" in logs[-1]["message"] and logs[-1]["level"] == "error"
        assert [entry["seq"] for entry in logs] == list(range(1, len(logs) + 1))
    finally:
        second.terminate()
        second.wait(timeout=10)
