"""End to end, as a user: `manage.py serve` on a free 127.0.0.1 port, a user and a token from the
management commands, a script run through the API, its log read over the websocket."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[2]
LINES = 2000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "otterweb.settings.dev", "OTTERWEB_DATA_DIR": str(tmp_path),
           "DJANGO_SUPERUSER_PASSWORD": "e2e-password-123", "DJANGO_SUPERUSER_EMAIL": "ops@example.org"}  # fmt: skip

    def manage(*args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    manage("migrate", "--noinput")
    manage("createsuperuser", "--noinput", "--username", "ops")
    token = manage("drf_create_token", "ops").split()[2]
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen([sys.executable, "-X", "faulthandler", "manage.py", "serve", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
                               stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/accounts/login/", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    yield base, port, token
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        import signal

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
    import signal

    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "otterweb.settings.dev", "OTTERWEB_DATA_DIR": str(tmp_path),
           "OTTERWEB_HEARTBEAT_SECONDS": "1", "OTTERWEB_LOST_AFTER_SECONDS": "3", "OTTERWEB_HOUSEKEEPING_SECONDS": "1",
           "DJANGO_SUPERUSER_PASSWORD": "e2e-password-123", "DJANGO_SUPERUSER_EMAIL": "ops@example.org"}  # fmt: skip

    def manage(*args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def start() -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "manage.py", "serve", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=1)
                return process
            except OSError:
                time.sleep(0.1)
        raise AssertionError("serve did not start")

    manage("migrate", "--noinput")
    manage("createsuperuser", "--noinput", "--username", "ops")
    token = manage("drf_create_token", "ops").split()[2]
    base = f"http://127.0.0.1:{port}"
    first = start()
    script = "Log-Information before;\nSleep 60;\nLog-Information never;"
    execution = api(base, token, "POST", "/api/executions/", {"script": script})
    for _ in range(100):
        detail = api(base, token, "GET", f"/api/executions/{execution['id']}/")
        if detail["run_state"] == "executing" and detail["last_seq"] >= 1:
            break
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    second = start()
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
