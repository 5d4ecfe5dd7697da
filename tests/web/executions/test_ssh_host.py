"""Jobs on servers over SSH through the web host: each server's log, the server's credential or
the script's, host keys pending until trusted or changed, one server failing while the others
go on. Real OpenSSH servers on 127.0.0.1 (the ``sshd`` fixture)."""

from __future__ import annotations

import pwd

import pytest

from engine import fingerprint
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from otterweb.inventory import services
from otterweb.inventory.checks import trust_host_key
from otterweb.inventory.models import Server
from tests.web.conftest import ssh_server

pytestmark = pytest.mark.django_db(transaction=True)


def trusted_server(test_server, credential, *, trusted: bool = True, **fields) -> Server:
    return ssh_server(
        test_server, credential, host_keys=test_server.host_key if trusted else "", **fields
    )


def run(script: str, servers: list[str]) -> tuple[Execution, list[str]]:
    execution = create_job(script=script, servers=servers)
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    messages = list(
        LogEntry.objects.filter(execution_id=execution.pk)
        .order_by("seq")
        .values_list("message", flat=True)
    )
    return execution, messages


def test_ssh_job_runs_on_each_server_with_its_scope_named(sshd, ssh_key) -> None:
    for test_server in sshd.servers:
        trusted_server(test_server, ssh_key)
    execution, messages = run(
        'SHExec echo "on $ServerName as `$USER in `$PWD";\n'
        "Ensure-File web-$ServerName.txt\n(\n    Text: made on $ServerName\n);",
        [s.name for s in sshd.servers],
    )
    assert execution.status == "normal", messages
    login_folder = pwd.getpwnam(sshd.user).pw_dir
    for test_server in sshd.servers:
        # relative paths and commands start in the login folder
        assert f"on {test_server.name} as {sshd.user} in {login_folder}" in messages
    scopes = set(LogScope.objects.filter(execution_id=execution.pk).values_list("name", flat=True))
    assert {s.name for s in sshd.servers} <= scopes
    _, read = run("SHExec cat web-ssh2.txt;", ["ssh2"])
    assert "made on ssh2" in read


def test_ssh_job_with_credentials_uses_the_scripts_credential(sshd, ssh_key) -> None:
    assert sshd.password, "the SSH tests run as root, which gives the test user a password"
    trusted_server(sshd.servers[0], None, user=sshd.user)
    services.save_credential(name="pw", username=sshd.user, secret=sshd.password)
    execution, messages = run(
        "with credentials = pw\n{\n    SHExec echo logged in with a password;\n}",
        [sshd.servers[0].name],
    )
    assert execution.status == "normal", messages
    assert "logged in with a password" in messages
    assert not any(sshd.password in message for message in messages)


def test_ssh_job_wrong_password_fails_that_server_only(sshd, ssh_key) -> None:
    wrong = services.save_credential(name="wrong", username=sshd.user, secret="Not-The-Password-1")
    trusted_server(sshd.servers[0], wrong)
    trusted_server(sshd.servers[1], ssh_key)
    execution, messages = run("SHExec echo fine on $ServerName;", ["ssh1", "ssh2"])
    assert execution.status == "error"
    assert "fine on ssh2" in messages
    failure = next(m for m in messages if "authentication" in m)
    assert f"ssh1 (127.0.0.1:{sshd.servers[0].port})" in failure and "with a password" in failure
    assert not any("Not-The-Password-1" in message for message in messages)


def test_ssh_job_unreachable_port_names_the_address(sshd, ssh_key) -> None:
    trusted_server(sshd.servers[0], ssh_key)
    Server.objects.create(
        name="gone", host="127.0.0.1", port=1, agent_type=Server.AgentType.SSH, credential=ssh_key
    )
    execution, messages = run("SHExec echo fine on $ServerName;", ["gone", "ssh1"])
    assert execution.status == "error"
    assert "fine on ssh1" in messages
    assert any("gone (127.0.0.1:1): connection refused" in m for m in messages)


def test_ssh_job_untrusted_key_is_pending_until_trusted(sshd, ssh_key) -> None:
    server = trusted_server(sshd.servers[0], ssh_key, trusted=False)
    execution, messages = run("SHExec echo ran;", [server.name])
    assert execution.status == "error" and "ran" not in messages
    offered = fingerprint(sshd.servers[0].host_key)
    assert any("not trusted yet" in m and offered in m for m in messages)
    server.refresh_from_db()
    assert server.pending_host_key.split()[:2] == sshd.servers[0].host_key.split()[:2]
    trust_host_key(server=server, fingerprint_seen=offered)
    execution, messages = run("SHExec echo ran;", [server.name])
    assert execution.status == "normal" and "ran" in messages


def test_ssh_job_changed_key_is_refused_with_both_fingerprints(sshd, ssh_key) -> None:
    other = (sshd.client_key.with_suffix(".pub")).read_text().strip()
    server = trusted_server(sshd.servers[0], ssh_key)
    Server.objects.filter(pk=server.pk).update(host_keys=other)
    execution, messages = run("SHExec echo ran;", [server.name])
    assert execution.status == "error" and "ran" not in messages
    failure = next(m for m in messages if "has changed" in m)
    assert fingerprint(other) in failure and fingerprint(sshd.servers[0].host_key) in failure
    server.refresh_from_db()
    assert server.pending_host_key == ""  # a changed key is never offered for trust


def test_ssh_job_trusts_on_first_use_when_the_site_says_so(sshd, ssh_key, settings) -> None:
    settings.OTTERWEB_SSH_TRUST_ON_FIRST_USE = True
    server = trusted_server(sshd.servers[0], ssh_key, trusted=False)
    execution, messages = run("SHExec echo ran;", [server.name])
    assert execution.status == "normal" and "ran" in messages
    server.refresh_from_db()
    assert server.trusted_host_keys() == (" ".join(sshd.servers[0].host_key.split()[:2]),)
