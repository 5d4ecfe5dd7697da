"""Running OtterWeb as a user would, for end-to-end tests and bench/logs.py: `manage.py serve`
(the embedded default), or daphne and Celery workers on PostgreSQL and Redis (the distributed
mode)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# The server the tests' scripts run on (a job names its servers): this machine, by the local agent.
LOCAL_SERVER = (
    "from otterweb.inventory.models import Server; Server.objects.create(name='localhost')"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def services() -> dict[str, str]:
    """Install and start PostgreSQL and Redis on 127.0.0.1 (scripts/services); their URLs."""
    script = ROOT / "scripts" / "services"
    started = subprocess.run([script, "start"], capture_output=True, text=True)
    if started.returncode:
        raise RuntimeError(f"scripts/services start failed:\n{started.stderr}")
    printed = subprocess.run([script, "env"], capture_output=True, text=True, check=True).stdout
    return dict(line.split("=", 1) for line in printed.splitlines())


class Site:
    """A fresh data directory with a migrated database, a superuser and their API token
    (`manage.py create_token`)."""

    def __init__(self, data: Path, **settings: str) -> None:
        self.data = data
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "otterweb.settings.prod",
            "OTTERWEB_DATA_DIR": str(data),
            "DJANGO_SUPERUSER_PASSWORD": "e2e-password-123",
            "DJANGO_SUPERUSER_EMAIL": "ops@example.org",
            **settings,
        }
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.manage("migrate", "--noinput")
        self.manage("createsuperuser", "--noinput", "--username", "ops")
        self.token = self.manage("create_token", "ops").strip()
        self.manage("shell", "-c", LOCAL_SERVER)

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def start(self, *command: str, log=subprocess.DEVNULL) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-X", "faulthandler", *command],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def serve(self, log=subprocess.DEVNULL) -> subprocess.Popen:
        """Start the web server and wait until it answers: `manage.py serve` here, daphne in the
        distributed mode."""
        process = self.start("manage.py", "serve", f"127.0.0.1:{self.port}", log=log)
        self.wait_until_up(process)
        return process

    def up(self, log=subprocess.DEVNULL) -> list[subprocess.Popen]:
        """Every process the site needs to run executions: here, `manage.py serve`."""
        return [self.serve(log)]

    def wait_until_up(self, process: subprocess.Popen) -> None:
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/accounts/login/", timeout=1)
                return
            except OSError:
                if process.poll() is not None:
                    break
                time.sleep(0.1)
        process.kill()
        raise AssertionError("the web server did not start")

    def api(self, method: str, path: str, body: dict | None = None):
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def add_raft(self, name: str, scripts: dict[str, str]) -> None:
        """A raft with OtterScript scripts (item name -> text), made through the API."""
        self.api("POST", "/api/rafts/", {"name": name})
        for item, content in scripts.items():
            self.api(
                "POST",
                "/api/raft-items/",
                {"raft": name, "name": item, "kind": "script", "content": content},
            )

    def wait_for(self, execution_id: int, predicate, seconds: float = 30) -> dict:
        """The execution's detail once ``predicate(detail)`` holds."""
        deadline = time.monotonic() + seconds
        while True:
            detail = self.api("GET", f"/api/executions/{execution_id}/")
            if predicate(detail) or time.monotonic() > deadline:
                return detail
            time.sleep(0.1)

    def close(self) -> None:
        pass


class DistributedSite(Site):
    """The distributed mode on this machine: a database of its own in the services' PostgreSQL,
    names of its own in their Redis, daphne for the web and `celery -A otterweb worker`s."""

    def __init__(self, data: Path, **settings: str) -> None:
        urls = services()
        self.admin_url = urls["OTTERWEB_DATABASE_URL"]
        self.database = f"otterweb_{uuid.uuid4().hex[:12]}"
        self._sql(f"create database {self.database}")
        database_url = self.admin_url.rsplit("/", 1)[0] + "/" + self.database
        super().__init__(
            data,
            OTTERWEB_DATABASE_URL=database_url,
            OTTERWEB_REDIS_URL=urls["OTTERWEB_REDIS_URL"],
            OTTERWEB_REDIS_PREFIX=self.database,
            **settings,
        )

    def _sql(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            connection.execute(statement)

    def serve(self, log=subprocess.DEVNULL) -> subprocess.Popen:
        process = self.start(
            *("-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)),
            "otterweb.asgi:application",
            log=log,
        )
        self.wait_until_up(process)
        return process

    def up(self, log=subprocess.DEVNULL) -> list[subprocess.Popen]:
        """daphne and one Celery worker."""
        return [self.serve(log), self.worker("w1", log)]

    def worker(self, name: str, log=subprocess.DEVNULL) -> subprocess.Popen:
        """A Celery worker; returns once it is ready for tasks."""
        process = self.start(
            *("-m", "celery", "-A", "otterweb", "worker", "--hostname", f"{name}@%h"),
            *("--loglevel", "INFO", "--without-gossip", "--without-mingle"),
            log=subprocess.PIPE,
        )
        lines: list[str] = []
        for raw in process.stdout:
            lines.append(raw.decode(errors="replace"))
            if log is not subprocess.DEVNULL:
                log.write(raw)
            if " ready." in lines[-1]:
                break
        else:
            raise AssertionError("the Celery worker exited:\n" + "".join(lines[-40:]))
        # keep reading its output, so it never blocks on a full pipe
        threading.Thread(target=_drain, args=(process.stdout, log), daemon=True).start()
        return process

    def close(self) -> None:
        self._sql(f"drop database if exists {self.database} with (force)")


def make_site(mode: str, data: Path, **settings: str) -> Site:
    """A site in the embedded or the distributed mode."""
    return (DistributedSite if mode == "distributed" else Site)(data, **settings)


def _drain(stream, log) -> None:
    for raw in stream:
        if log is not subprocess.DEVNULL:
            log.write(raw)


def stop(process: subprocess.Popen, log_path: Path | None = None) -> None:
    """SIGTERM, and if that does not stop it, SIGABRT (faulthandler prints every thread)."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        process.wait(timeout=10)
        tail = log_path.read_text()[-6000:] if log_path else ""
        raise AssertionError(f"{process.args} did not stop on SIGTERM:\n{tail}") from None


@contextmanager
def served_with_raft(data: Path, raft: str, scripts: dict[str, str]) -> Iterator[Site]:
    """An embedded site serving on a free port, with a raft of OtterScript scripts (item name ->
    text); stopped afterwards. For the editor's browser tests."""
    site = Site(data)
    server = site.serve(subprocess.DEVNULL)
    try:
        site.add_raft(raft, scripts)
        yield site
    finally:
        stop(server)
