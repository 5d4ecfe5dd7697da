"""Servers the tests start as child processes (tests/slapd.py, tests/oidc_provider/server.py):
each on a free port of 127.0.0.1, its output in a log file, stopped with the test process that
started it (even one that was killed), and a context manager around `start` and `stop`."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "TERM", "--"] if shutil.which("setpriv") else []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ChildServer:
    """Subclasses write `start` (which calls `launch`) and say what they are in `name`."""

    name = "the server"
    process: subprocess.Popen | None = None

    def launch(
        self, command: list[str], log: Path, ready: Callable[[], bool], seconds: float = 30, **popen
    ) -> None:
        """Run ``command`` in the foreground of a child process and wait until ``ready()``."""
        with open(log, "wb") as output:
            self.process = subprocess.Popen(
                [*DIE_WITH_PARENT, *command], stdout=output, stderr=subprocess.STDOUT, **popen
            )
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.process.poll() is None:
            if ready():
                return
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"{self.name} did not start:\n{log.read_text()[-3000:]}")

    def start(self):
        raise NotImplementedError

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
