"""Ensure-Service and Restart-Service on a server that does not run systemd, as this test
machine does not (its init is not systemd): the clear error, in every mode, before anything
runs. Where the machine runs systemd these tests are skipped; there is no stand-in for it.
Started as PID 1 in its own PID and mount namespaces, systemd runs here, but at boot it cleans
the shared file system's /tmp (systemd-tmpfiles): a real one needs a root file system of its
own (systemd-nspawn), which these tests do not make yet."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.interpreter import Level

pytestmark = pytest.mark.skipif(
    Path("/run/systemd/system").is_dir(), reason="this machine runs systemd"
)
NO_SYSTEMD = "server localhost does not run systemd (it has no /run/systemd/system)"


@pytest.mark.parametrize("mode", ["collect", "execute", "collect-execute"])
async def test_ensure_service_says_the_server_does_not_run_systemd(run, mode) -> None:
    ran = await run("Ensure-Service nginx (Running: true, Enabled: true);", mode=mode)
    assert ran.status == "error"
    assert any(NO_SYSTEMD in message for message in ran.messages(Level.ERROR))
    assert ran.result.drifted == []  # nothing was compared, nothing claimed


async def test_restart_service_says_the_server_does_not_run_systemd(run) -> None:
    ran = await run("Restart-Service nginx;")
    assert ran.status == "error"
    assert any(NO_SYSTEMD in message for message in ran.messages(Level.ERROR))
