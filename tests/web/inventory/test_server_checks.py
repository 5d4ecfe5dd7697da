"""The server check (reachability, latency, host key, OS), run on demand and every few minutes
by whichever process claims a server first; host keys trusted and forgotten through the API,
the pages and the services. Real OpenSSH servers on 127.0.0.1 (the ``sshd`` fixture)."""

from __future__ import annotations

import os
import platform
import subprocess
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import close_old_connections
from django.utils import timezone

from engine import fingerprint
from engine.packages import Manager, Package
from otterweb.executions import dispatch
from otterweb.housekeeping import ROUNDS
from otterweb.inventory import checks, services
from otterweb.inventory.models import Credential, InstalledPackage, Server
from tests.web.conftest import ssh_server

pytestmark = pytest.mark.django_db(transaction=True)


def test_check_server_records_what_a_trusted_server_is(sshd, ssh_key) -> None:
    server = ssh_server(sshd.servers[0], ssh_key, host_keys=sshd.servers[0].host_key)
    server = checks.check_server(server)
    assert server.reachable is True and server.check_error == ""
    assert 0 < server.latency_ms < 10_000
    assert server.kernel.startswith("Linux ")
    assert server.os_name  # PRETTY_NAME of /etc/os-release
    assert server.last_seen == server.last_checked
    # the inventory: the loopback sshd is this machine
    assert_inventory_of_this_machine(server)


def installed_here() -> dict[str, str]:
    listed = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev}\t${Package}\t${Version}\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        fields[1]: fields[2]
        for fields in (line.split("\t") for line in listed.splitlines())
        if fields[0][1:2] == "i"
    }


def assert_inventory_of_this_machine(server: Server) -> None:
    release = dict(
        line.split("=", 1)
        for line in Path("/etc/os-release").read_text().splitlines()
        if "=" in line
    )
    facts = server.facts
    assert (facts["os_id"], facts["os_version"]) == (
        release["ID"].strip('"'),
        release["VERSION_ID"].strip('"'),
    )
    assert server.system == f"{facts['os_id']}-{facts['os_version']}"
    assert facts["architecture"] == platform.machine()
    assert facts["cpus"] == os.cpu_count()
    assert facts["memory_mb"] > 0
    assert any(
        disk["mount"] == "/" and disk["size_kb"] > disk["used_kb"] for disk in facts["disks"]
    )
    assert server.facts_collected == server.last_checked == server.packages_collected
    packages = {
        p.name: p.version for p in InstalledPackage.objects.filter(server=server, manager="deb")
    }
    assert packages == installed_here()


def test_check_server_collects_the_local_servers_inventory_too(db) -> None:
    server = checks.check_server(Server.objects.create(name="here"))
    assert server.reachable is True
    assert_inventory_of_this_machine(server)


def test_record_packages_adds_changes_and_deletes_only_what_changed(db) -> None:
    server = Server.objects.create(name="web1")
    now = timezone.now()
    services.record_packages(
        server=server,
        manager=Manager.DEBIAN,
        packages=[Package("openssl", "3.0.11-1", "amd64"), Package("curl", "7.88.1-10", "amd64")],
        collected=now,
    )
    kept = {p.name: p for p in InstalledPackage.objects.filter(server=server)}
    later = now + timedelta(minutes=5)
    services.record_packages(
        server=server,
        manager=Manager.DEBIAN,
        packages=[Package("openssl", "3.0.15-1", "amd64"), Package("git", "1:2.39.5-0", "amd64")],
        collected=later,
    )
    after = {p.name: p for p in InstalledPackage.objects.filter(server=server)}
    assert {name: p.version for name, p in after.items()} == {
        "git": "1:2.39.5-0",
        "openssl": "3.0.15-1",
    }
    assert after["openssl"].pk == kept["openssl"].pk  # changed in place
    server.refresh_from_db()
    assert server.packages_collected == later


def test_check_server_records_an_unreachable_port_with_its_reason(sshd, ssh_key) -> None:
    server = Server.objects.create(
        name="gone", host="127.0.0.1", port=1, agent_type=Server.AgentType.SSH, credential=ssh_key
    )
    server = checks.check_server(server)
    assert server.reachable is False and server.last_seen is None
    assert "gone (127.0.0.1:1): connection refused" in server.check_error


def test_check_server_keeps_an_untrusted_key_pending(sshd, ssh_key) -> None:
    server = checks.check_server(ssh_server(sshd.servers[0], ssh_key))
    assert server.reachable is False and server.last_seen is not None  # it answered
    assert server.pending_host_key == " ".join(sshd.servers[0].host_key.split()[:2])
    assert "not trusted yet" in server.check_error


def test_check_due_servers_checks_each_server_once_across_processes(db) -> None:
    for number in range(6):
        Server.objects.create(name=f"local{number}")
    Server.objects.create(name="asleep", active=False)
    checked = []

    def keep_house() -> None:
        checked.append(checks.check_due_servers())
        close_old_connections()

    threads = [threading.Thread(target=keep_house) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(checked) == 6
    assert Server.objects.filter(reachable=True).count() == 6
    assert checks.check_due_servers() == 0  # nothing is due again before its time
    later = timezone.now() + timedelta(minutes=6)
    assert checks.check_due_servers(now=later) == 6


def test_check_due_servers_does_nothing_when_checks_are_off(db, settings) -> None:
    settings.OTTERWEB_SERVER_CHECK_MINUTES = 0
    Server.objects.create(name="local")
    assert checks.check_due_servers() == 0
    assert Server.objects.get().last_checked is None


def test_check_due_servers_is_a_round_of_every_housekeeper(settings) -> None:
    server_checks = ROUNDS["otterweb-server-checks"]
    assert server_checks.seconds() == checks.DUE_EVERY_SECONDS
    Server.objects.create(name="local")
    assert server_checks.run() == 1
    settings.OTTERWEB_SERVER_CHECK_MINUTES = 0
    assert server_checks.seconds() == 0
    housekeeper = dispatch.Housekeeper(dispatch.Dispatcher())
    assert "otterweb-server-checks" not in [thread.name for thread in housekeeper._rounds]


def test_trust_host_key_needs_the_fingerprint_of_the_pending_key(sshd, ssh_key) -> None:
    server = checks.check_server(ssh_server(sshd.servers[0], ssh_key))
    offered = fingerprint(server.pending_host_key)
    with pytest.raises(Exception, match="offered the key"):
        checks.trust_host_key(server=server, fingerprint_seen="SHA256:not-it")
    server = checks.trust_host_key(server=server, fingerprint_seen=offered)
    assert server.pending_host_key == "" and len(server.trusted_host_keys()) == 1
    assert checks.check_server(server).reachable is True
    server = checks.forget_host_keys(server=server)
    assert server.trusted_host_keys() == ()


# ---- the API


def test_api_server_check_and_trust_need_change_permission(sshd, ssh_key, client_with) -> None:
    ssh_server(sshd.servers[0], ssh_key)
    viewer = client_with("inventory.view_server")
    assert viewer.post("/api/servers/ssh1/check/").status_code == 403
    assert viewer.post("/api/servers/ssh1/trust-host-key/", {"fingerprint": "x"}).status_code == 403
    assert Server.objects.get().last_checked is None


def test_api_server_check_then_trust_the_key_it_offered(sshd, ssh_key, client_with) -> None:
    ssh_server(sshd.servers[0], ssh_key)
    admin = client_with("inventory.view_server", "inventory.change_server")
    none_pending = admin.post("/api/servers/ssh1/trust-host-key/", {"fingerprint": "SHA256:x"})
    assert none_pending.status_code == 400
    assert "no host key waiting" in none_pending.json()["detail"]
    checked = admin.post("/api/servers/ssh1/check/").json()
    assert checked["reachable"] is False
    offered = checked["pending_host_key_fingerprint"]
    assert offered == fingerprint(sshd.servers[0].host_key)
    wrong = admin.post("/api/servers/ssh1/trust-host-key/", {"fingerprint": "SHA256:nope"})
    assert wrong.status_code == 400 and offered in wrong.json()["detail"]
    trusted = admin.post("/api/servers/ssh1/trust-host-key/", {"fingerprint": offered}).json()
    assert trusted["host_key_fingerprints"] == [offered]
    assert trusted["pending_host_key_fingerprint"] is None
    again = admin.post("/api/servers/ssh1/check/").json()
    assert again["reachable"] is True and again["kernel"].startswith("Linux")


def test_api_server_host_keys_must_be_public_keys(client_with) -> None:
    admin = client_with("inventory.add_server", "inventory.view_server")
    bad = admin.post("/api/servers/", {"name": "web", "host_keys": "not a key"}, format="json")
    assert bad.status_code == 400 and "host_keys" in bad.json()["errors"]
    line = "[web]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIwy0tCEb9O6jOBSXEtS5hNuz9sdhzBZDenAjfB/e23n"
    made = admin.post("/api/servers/", {"name": "web", "host_keys": line}, format="json")
    assert made.status_code == 201
    assert made.json()["host_keys"] == line.split(" ", 1)[1]  # kept without the host names
    assert made.json()["host_key_fingerprints"] == [fingerprint(line.split(" ", 1)[1])]


def test_api_credential_passphrase_is_write_only(client_with) -> None:
    admin = client_with("inventory.add_credential", "inventory.view_credential")
    made = admin.post(
        "/api/credentials/",
        {"name": "k", "kind": "private_key", "secret": "KEY", "passphrase": "Pass-Phrase-7"},
        format="json",
    )
    assert made.status_code == 201
    assert made.json()["has_passphrase"] is True
    assert "Pass-Phrase-7" not in made.content.decode()
    assert "Pass-Phrase-7" not in admin.get("/api/credentials/k/").content.decode()
    assert Credential.objects.get().passphrase() == "Pass-Phrase-7"


# ---- the pages


def test_server_page_shows_the_pending_key_and_trusts_it(sshd, ssh_key, client_with) -> None:
    ssh_server(sshd.servers[0], ssh_key)
    admin = client_with("inventory.view_server", "inventory.change_server")
    checked = admin.post("/inventory/servers/ssh1/check/", follow=True).content.decode()
    offered = fingerprint(sshd.servers[0].host_key)
    assert "did not answer" in checked and offered in checked and "Trust this key" in checked
    trusted = admin.post(
        "/inventory/servers/ssh1/trust-host-key/", {"fingerprint": offered}, follow=True
    ).content.decode()
    assert "is trusted now" in trusted and "Trust this key" not in trusted
    answered = admin.post("/inventory/servers/ssh1/check/", follow=True).content.decode()
    assert "answered in" in answered and "reachable" in answered
    listed = admin.get("/inventory/servers/").content.decode()
    assert "reachable" in listed and " ms" in listed


def test_server_page_buttons_need_change_permission(sshd, ssh_key, client_with) -> None:
    ssh_server(sshd.servers[0], ssh_key)
    viewer = client_with("inventory.view_server")
    page = viewer.get("/inventory/servers/ssh1/").content.decode()
    assert "server-check" not in page and "/check/" not in page
    assert viewer.post("/inventory/servers/ssh1/check/").status_code == 403
    assert viewer.post("/inventory/servers/ssh1/forget-host-keys/").status_code == 403
