"""Running `manage.py serve` as a user would, for end-to-end tests and bench/logs.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Site:
    """A fresh data directory with a migrated database, a superuser and their API token."""

    def __init__(self, data: Path, **settings: str) -> None:
        self.env = {**os.environ, "DJANGO_SETTINGS_MODULE": "otterweb.settings.dev", "OTTERWEB_DATA_DIR": str(data),
                    "DJANGO_SUPERUSER_PASSWORD": "e2e-password-123", "DJANGO_SUPERUSER_EMAIL": "ops@example.org", **settings}  # fmt: skip
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.manage("migrate", "--noinput")
        self.manage("createsuperuser", "--noinput", "--username", "ops")
        self.token = self.manage("drf_create_token", "ops").split()[2]

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def serve(self, log) -> subprocess.Popen:
        """Start `manage.py serve` and wait until it answers."""
        process = subprocess.Popen([sys.executable, "-X", "faulthandler", "manage.py", "serve", f"127.0.0.1:{self.port}"],
                                   cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
        for _ in range(150):
            try:
                urllib.request.urlopen(self.base + "/accounts/login/", timeout=1)
                return process
            except OSError:
                time.sleep(0.1)
        process.kill()
        raise AssertionError("manage.py serve did not start")
