"""Configuration over SSH, on real OpenSSH servers on 127.0.0.1 (the ``sshd`` fixture): drift
found on the servers that drifted, one unreachable server an error while the others are
checked, and a remediation that fixes the drift there (the file written over SFTP)."""

from __future__ import annotations

import uuid

from otterweb.configuration import services
from otterweb.configuration.models import State
from tests.web.conftest import ssh_server


def test_ssh_check_finds_drift_and_remediation_fixes_it(desired, sshd, ssh_key) -> None:
    folder = f"otterweb-configuration-{uuid.uuid4().hex[:8]}"  # in the test user's home
    role = desired.role(
        "web",
        f"Ensure-File {folder}/$ServerName.txt\n(\n    Text: desired on $ServerName\n);\n",
        remediation="on-demand",
    )
    one, two = (
        ssh_server(test, ssh_key, host_keys=test.host_key, roles=[role])
        for test in sshd.servers[:2]
    )
    dead = ssh_server(sshd.servers[0], ssh_key, name="dead", roles=[role])
    dead.port = 1  # nothing listens there
    dead.save(update_fields=["port"])
    started = services.check_servers(servers=[one, two, dead])
    assert len(started.executions) == 1  # one plan, three servers
    desired.run(started.executions)
    for server in (one, two, dead):
        server.refresh_from_db()
    assert one.configuration_state.state == two.configuration_state.state == State.DRIFTED
    assert dead.configuration_state.state == State.ERROR
    assert "dead" in dead.configuration_state.last_check.error

    plan = services.make_plan(servers=[one, two, dead], scope="role web")
    assert {p.server.name for p in plan.servers.all()} == {one.name, two.name}
    assert plan.left_out == [{"server": "dead", "reason": "not drifted (error)"}]
    desired.run(services.approve_plan(plan=plan, user=None))
    desired.run(desired.pending_runs())  # the check after the remediation
    for server in (one, two):
        server.refresh_from_db()
        assert server.configuration_state.state == State.CURRENT
