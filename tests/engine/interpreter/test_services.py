"""Ensure-Service and Restart-Service against a real systemd: this machine's own, booted in a
container of the test's (tests/systemd.py) and reached over SSH as root. Collect reports drift
and changes nothing, simulate changes nothing, a run starts, enables, stops and disables; a
service is restarted only when its configuration changed in the same run; a changed unit file is
reloaded before it is used; a unit that fails says why in its journal's words. On a server that
does not run systemd (this machine, whose init is not systemd) the operations fail at once,
with a clear error."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from engine import parse
from engine.interpreter import Level, ListSink, ScriptRun, StandaloneHost
from tests.engine.interpreter.conftest import Ran
from tests.systemd import SUDO_USER, SystemdMachine

NO_SYSTEMD = "server localhost does not run systemd (it has no /run/systemd/system)"
UNIT = """[Unit]
Description=A service of OtterWeb's tests
[Service]
ExecStart=/bin/sh -c '{{ cat /etc/{name}.conf; echo; echo {marker}; }} > /var/lib/{name}.seen; exec sleep infinity'
[Install]
WantedBy=multi-user.target
"""
FAILING_UNIT = """[Unit]
Description=A service of OtterWeb's tests that cannot start
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo "cannot read /etc/{name}.conf" >&2; exit 3'
"""


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    with SystemdMachine(tmp_path_factory.mktemp("systemd")) as machine:
        yield machine


@pytest.fixture
def run_there(machine, tmp_path):
    """Runs a script on the container (its default server), as root, or as a user with sudo
    (``as_sudo_user=True``)."""

    async def run_script(text: str, *, as_sudo_user: bool = False, **options) -> Ran:
        target = machine.target(user=SUDO_USER, sudo=True) if as_sudo_user else machine.target()
        host = StandaloneHost(
            sink=ListSink(), working_directory=str(tmp_path), ssh_servers=[target]
        )
        result = await ScriptRun(parse(text), host=host, **options).run()
        return Ran(result, host.sink)

    return run_script


@pytest.fixture
def name() -> str:
    return f"otterweb-test-{uuid.uuid4().hex[:8]}"


def service(name: str, *, marker: str = "unit one") -> str:
    """The statement that writes a test service's unit file."""
    unit = UNIT.format(name=name, marker=marker)
    return f"Ensure-File /etc/systemd/system/{name}.service (Text: >>{unit}>>);"


def state(machine: SystemdMachine, name: str) -> tuple[str, str]:
    """What systemctl itself says of the unit: (is-active, is-enabled)."""
    said = machine.shell(f"systemctl is-active {name}; systemctl is-enabled {name}").split()
    return said[0], said[1] if len(said) > 1 else ""


async def test_ensure_service_collects_simulates_then_starts_and_enables(
    machine, run_there, name
) -> None:
    script = f"""
{service(name)}
Ensure-File /etc/{name}.conf (Text: version one);
Ensure-Service {name} (Running: true, Enabled: true);
"""
    collected = await run_there(script, mode="collect")
    assert collected.status == "normal", collected.messages()
    assert len(collected.result.drifted) == 3
    assert state(machine, name) == ("inactive", "")  # no unit yet: collecting changed nothing
    simulated = await run_there(script, simulate=True)
    assert simulated.status == "normal", simulated.messages()
    assert machine.shell(f"test -e /etc/{name}.conf || echo absent").strip() == "absent"

    ran = await run_there(script)
    assert ran.status == "normal", ran.messages()
    assert f"Started {name}.service." in ran.info and f"Enabled {name}.service." in ran.info
    assert state(machine, name) == ("active", "enabled")
    assert machine.shell(f"cat /var/lib/{name}.seen").split("\n")[0] == "version one"
    again = await run_there(script, mode="collect")
    assert again.status == "normal" and again.result.drifted == []

    stop = f"Ensure-Service {name} (Running: false, Enabled: false);"
    assert len((await run_there(stop, mode="collect")).result.drifted) == 1
    ran = await run_there(stop)
    assert ran.status == "normal", ran.messages()
    assert state(machine, name) == ("inactive", "disabled")
    assert (await run_there(stop, mode="collect")).result.drifted == []


async def test_ensure_service_as_a_user_with_sudo(machine, run_there, name) -> None:
    # files are written over SFTP as the login user (docs/ssh.md): root writes the unit
    setup = await run_there(f"Ensure-File /etc/{name}.conf (Text: sudo);\n{service(name)}")
    assert setup.status == "normal", setup.messages()
    script = f"Ensure-Service {name} (Enabled: true);"
    ran = await run_there(script, as_sudo_user=True)
    assert ran.status == "normal", ran.messages()
    assert state(machine, name) == ("active", "enabled")
    collected = await run_there(script, as_sudo_user=True, mode="collect")
    assert collected.status == "normal" and collected.result.drifted == []
    restarted = await run_there(f"Restart-Service {name};", as_sudo_user=True)
    assert restarted.status == "normal", restarted.messages()


async def test_restart_service_restarts_only_when_its_configuration_changed(
    machine, run_there, name
) -> None:
    await run_there(f"Ensure-File /etc/{name}.conf (Text: version one);\n{service(name)}")
    assert (await run_there(f"Ensure-Service {name};")).status == "normal"

    def watched(version: str) -> str:
        return f"""
{{
    Ensure-File /etc/{name}.conf (Text: {version});
    Restart-Service {name};
}}
"""

    def main_pid() -> str:
        return machine.shell(f"systemctl show --property=MainPID --value {name}").strip()

    started = main_pid()
    unchanged = await run_there(watched("version one"), mode="collect-execute")
    assert unchanged.status == "normal", unchanged.messages()
    assert main_pid() == started and not any("Restarted" in line for line in unchanged.info)

    changed = await run_there(watched("version two"), mode="collect-execute")
    assert changed.status == "normal", changed.messages()
    assert f"Restarted {name}.service." in changed.info
    assert main_pid() not in (started, "0")
    assert machine.shell(f"head -1 /var/lib/{name}.seen").strip() == "version two"


async def test_restart_service_reloads_a_unit_file_changed_in_the_run(
    machine, run_there, name
) -> None:
    first = f"Ensure-File /etc/{name}.conf (Text: settings);\n{service(name)}\n"
    assert (await run_there(first + f"Ensure-Service {name};")).status == "normal"
    ran = await run_there(f"{service(name, marker='unit two')}\nRestart-Service {name};")
    assert ran.status == "normal", ran.messages()
    assert f"Reloaded systemd's units: the file of {name}.service changed." in ran.info
    assert machine.shell(f"tail -1 /var/lib/{name}.seen").strip() == "unit two"


async def test_ensure_service_reports_a_failed_start_in_the_units_own_words(
    machine, run_there, name
) -> None:
    unit = FAILING_UNIT.format(name=name)
    script = f"Ensure-File /etc/systemd/system/{name}.service (Text: >>{unit}>>);\n"
    ran = await run_there(script + f"Ensure-Service {name};")
    assert ran.status == "error"
    (error,) = ran.messages(Level.ERROR)
    assert f"systemctl start {name}.service failed on {machine.name}" in error
    assert f"cannot read /etc/{name}.conf" in error  # from the unit's journal


async def test_ensure_service_of_a_unit_systemd_does_not_know(machine, run_there) -> None:
    missing = f"otterweb-missing-{uuid.uuid4().hex[:8]}"
    collected = await run_there(f"Ensure-Service {missing};", mode="collect")
    assert collected.status == "normal", collected.messages()
    assert len(collected.result.drifted) == 1  # not running, as it should be: drift, not an error
    ran = await run_there(f"Ensure-Service {missing};")
    assert ran.status == "error"
    assert any(
        f"server {machine.name} has no unit {missing}.service" in line
        for line in ran.messages(Level.ERROR)
    )
    stopped = await run_there(f"Ensure-Service {missing} (Running: false);")
    assert stopped.status == "normal" and stopped.result.drifted == []


without_systemd = pytest.mark.skipif(
    Path("/run/systemd/system").is_dir(), reason="this machine runs systemd"
)


@without_systemd
@pytest.mark.parametrize("mode", ["collect", "execute", "collect-execute"])
async def test_ensure_service_says_the_server_does_not_run_systemd(run, mode) -> None:
    ran = await run("Ensure-Service nginx (Running: true, Enabled: true);", mode=mode)
    assert ran.status == "error"
    assert any(NO_SYSTEMD in message for message in ran.messages(Level.ERROR))
    assert ran.result.drifted == []  # nothing was compared, nothing claimed


@without_systemd
async def test_restart_service_says_the_server_does_not_run_systemd(run) -> None:
    ran = await run("Restart-Service nginx;")
    assert ran.status == "error"
    assert any(NO_SYSTEMD in message for message in ran.messages(Level.ERROR))
