"""End to end on real OpenSSH servers, in both modes (`manage.py serve`; daphne and a Celery
worker on PostgreSQL and Redis): servers and credentials made through the API, a job over three
of them ensuring a file, drift found in collect mode, each way a server can fail named in its own
log while the others go on, a host key trusted through the API, and cancel."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import tempfile
import time

import pytest

from engine import fingerprint
from tests.e2e.serving import make_site, stop
from tests.sshd import SshdCluster

MODES = ["embedded", "distributed"]


@pytest.fixture(scope="module")
def cluster():
    folder = tempfile.mkdtemp(prefix="otterweb-e2e-sshd-")
    try:
        with SshdCluster(4, folder) as servers:
            yield servers
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", params=MODES)
def site(request, tmp_path_factory, cluster):
    """A running site whose inventory has the cluster's servers: ssh1-ssh3 trusted, with the
    client key; ssh4 with no trusted key; 'moved' (ssh2's port) trusting another key; 'gone' on
    a closed port; 'locked' with a wrong password. The module's tests each run their own jobs
    on it."""
    folder = tmp_path_factory.mktemp(f"ssh-{request.param}")
    site = make_site(request.param, folder)
    log_path = folder / "server.log"
    with open(log_path, "wb") as log:
        processes = site.up(log)
        try:
            key = {"kind": "private_key", "username": cluster.user}
            site.api(
                "POST",
                "/api/credentials/",
                {"name": "key", "secret": cluster.client_key.read_text(), **key},
            )
            site.api(
                "POST",
                "/api/credentials/",
                {"name": "wrong", "username": cluster.user, "secret": "Wrong-Password-5"},
            )
            for server in cluster.servers:
                trusted = server.name != "ssh4"
                site.api(
                    "POST",
                    "/api/servers/",
                    ssh_server(server.name, server.port, "key", trusted and server.host_key),
                )
            site.api("POST", "/api/servers/", ssh_server("gone", 1, "key", None))
            other = cluster.client_key.with_suffix(".pub").read_text().strip()
            second = cluster.servers[1]
            site.api("POST", "/api/servers/", ssh_server("moved", second.port, "key", other))
            first = cluster.servers[0]
            site.api(
                "POST", "/api/servers/", ssh_server("locked", first.port, "wrong", first.host_key)
            )
            yield site
        finally:
            for process in processes:
                stop(process, log_path)
            site.close()


def ssh_server(name: str, port: int, credential: str, host_key: str | None) -> dict:
    return {
        "name": name,
        "host": "127.0.0.1",
        "port": port,
        "agent_type": "ssh",
        "credential": credential,
        "host_keys": host_key or "",
    }


def run(site, script: str, servers: list[str], **fields) -> tuple[dict, list[str]]:
    made = site.api("POST", "/api/executions/", {"script": script, "servers": servers, **fields})
    detail = site.wait_for(made["id"], lambda d: d["run_state"] == "completed", seconds=60)
    entries = site.api("GET", f"/api/executions/{made['id']}/logs/")
    return detail, [entry["message"] for entry in entries]


def test_e2e_ssh_job_ensures_files_finds_drift_and_names_each_failure(site, cluster) -> None:
    tag = secrets.token_hex(4)
    ensure = f"Ensure-File e2e-{tag}-$ServerName.txt (Text: version one);"
    everywhere = ["ssh1", "ssh2", "ssh3", "gone", "locked", "ssh4", "moved"]
    detail, messages = run(site, ensure, everywhere)
    assert detail["status"] == "error"  # four servers failed; the other three went on
    for name in ("ssh1", "ssh2", "ssh3"):
        assert f"Wrote e2e-{tag}-{name}.txt." in messages
    assert any("gone (127.0.0.1:1): connection refused" in m for m in messages)
    assert any(f"failed for the user '{cluster.user}' with a password" in m for m in messages)
    offered = fingerprint(cluster.servers[3].host_key)
    assert any("ssh4" in m and "not trusted yet" in m and offered in m for m in messages)
    other = fingerprint(cluster.client_key.with_suffix(".pub").read_text())
    changed = fingerprint(cluster.servers[1].host_key)
    assert any(
        "moved" in m and "has changed" in m and other in m and changed in m for m in messages
    )
    assert not any("Wrong-Password-5" in m for m in messages)

    drifted, _ = run(
        site, ensure.replace("version one", "version two"), ["ssh1", "ssh2"], mode="collect"
    )
    assert drifted["outcome"] == "drifted" and len(drifted["drift"]) == 2
    unchanged, _ = run(site, ensure, ["ssh1", "ssh2"], mode="collect")
    assert unchanged["outcome"] == "normal"

    pending = site.api("GET", "/api/servers/ssh4/")
    assert pending["pending_host_key_fingerprint"] == offered
    site.api("POST", "/api/servers/ssh4/trust-host-key/", {"fingerprint": offered})
    trusted, messages = run(site, "SHExec echo now on $ServerName;", ["ssh4"])
    assert trusted["status"] == "normal" and "now on ssh4" in messages


def test_e2e_ssh_cancel_kills_the_remote_processes(site, cluster) -> None:
    marker = f"{time.time():.6f}"  # a sleep of this many seconds: found again with pgrep
    made = site.api(
        "POST",
        "/api/executions/",
        {"script": f"SHExec sleep {marker} & sleep {marker};", "servers": ["ssh1"]},
    )
    pgrep = ["pgrep", "-u", cluster.user, "-f", f"sleep {marker}"]
    for _ in range(150):
        if subprocess.run(pgrep, capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the remote command never started")
    site.api("POST", f"/api/executions/{made['id']}/cancel/")
    detail = site.wait_for(made["id"], lambda d: d["run_state"] == "completed")
    assert detail["status"] == "cancelled"
    for _ in range(50):  # the kill is sent as the run ends
        if subprocess.run(pgrep, capture_output=True).returncode == 1:
            break
        time.sleep(0.1)
    assert subprocess.run(pgrep, capture_output=True).returncode == 1
