"""The operations that need root, over SSH as a user who has it through sudo (the server's
"sudo" setting): groups, users and their keys, cron jobs, a hosts entry and an RPM package, on
the loopback sshd's server (tests/sshd.py), whose user the test lets run anything as root with
`sudo -n` while it runs. Collect reports drift and changes nothing, simulate changes nothing,
the run makes it so, and a second script removes it all. Needs root to make the sudo rule."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

import pytest

from engine.interpreter import Level, ListSink, StandaloneHost

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="writes a sudo rule: needs root")
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ2e1y5tT2n4a7yXkqX0hFjv0mYzK6o0m8cJ3J0k1Zy9 ops@laptop"


@pytest.fixture
def host(sshd, tmp_path):
    return StandaloneHost(
        sink=ListSink(), working_directory=str(tmp_path), ssh_servers=[sshd.target(sudo=True)]
    )


def state(user: str, team: str, hostname: str, package: str) -> dict:
    """What the machine has of each thing the script ensures."""

    def succeeds(*command: str) -> bool:
        return subprocess.run(command, capture_output=True).returncode == 0

    cron = subprocess.run(["crontab", "-l", "-u", user], capture_output=True, text=True).stdout
    home = Path(pwd.getpwnam(user).pw_dir) if succeeds("getent", "passwd", user) else None
    return {
        "group": succeeds("getent", "group", team),
        "user in group": succeeds("sh", "-c", f'id -nG {user} | grep -qw "{team}"'),
        "key": home is not None and (home / ".ssh" / "authorized_keys").exists(),
        "cron": "# OtterWeb: backup" in cron,
        "hosts": f"10.9.8.7\t{hostname}" in Path("/etc/hosts").read_text(),
        "package": succeeds("rpm", "--query", package),
    }


async def test_operations_as_root_through_sudo_over_ssh_collect_simulate_make_and_remove(
    run, sudo_rule, names, dnf_package
) -> None:
    user, team, hostname = names(), names(), names()
    script = f"""
Ensure-Group {team};
Ensure-User {user} (Groups: @({team}), Shell: /bin/sh, AuthorizedKeys: @({KEY}));
Ensure-CronJob backup (User: {user}, Schedule: 30 2 * * *, Command: /usr/local/bin/backup);
Ensure-HostsEntry {hostname} (IP: 10.9.8.7);
Ensure-RpmPackage {dnf_package};
"""
    nothing = dict.fromkeys(["group", "user in group", "key", "cron", "hosts", "package"], False)
    collected = await run(script, mode="collect")
    assert collected.status == "normal", collected.messages()
    assert len(collected.result.drifted) == 5
    assert state(user, team, hostname, dnf_package) == nothing  # collecting changes nothing
    simulated = await run(script, simulate=True)
    assert simulated.status == "normal", simulated.messages()
    assert state(user, team, hostname, dnf_package) == nothing

    ran = await run(script)
    assert ran.status == "normal", ran.messages()
    assert state(user, team, hostname, dnf_package) == dict.fromkeys(nothing, True)
    assert (await run(script, mode="collect")).result.drifted == []

    removal = f"""
Ensure-RpmPackage {dnf_package} (Exists: false);
Ensure-HostsEntry {hostname} (Exists: false);
Ensure-CronJob backup (User: {user}, Exists: false);
Ensure-User {user} (Exists: false);
Ensure-Group {team} (Exists: false);
"""
    ran = await run(removal)
    assert ran.status == "normal", ran.messages()
    assert state(user, team, hostname, dnf_package) == nothing
    assert (await run(removal, mode="collect")).result.drifted == []


async def test_operations_as_root_say_what_sudo_said_where_the_user_has_no_rule(
    run, no_sudo_rule, names
) -> None:
    ran = await run(f"Ensure-Group {names()};")
    assert ran.status == "error"
    (error,) = ran.messages(Level.ERROR)
    assert error.endswith("failed on ssh1: sudo: a password is required"), error


async def test_operations_as_root_without_sudo_say_the_tool_was_refused(
    run, host, sshd, names
) -> None:
    host.ssh_servers = {sshd.servers[0].name.casefold(): sshd.target(sudo=False)}
    ran = await run(f"Ensure-Group {names()};")
    assert ran.status == "error"
    (error,) = ran.messages(Level.ERROR)
    assert error.startswith("groupadd was not found on ssh1: it is not installed, or not on ")
    assert "see the server's sudo setting" in error


async def test_operations_read_packages_and_accounts_without_sudo(run, no_sudo_rule) -> None:
    """dpkg's list and getent's lists are read as the login user: a check of packages, users
    and groups runs where the user may not use sudo at all (and asks root for nothing)."""
    script = "Ensure-DebianPackage bash;\nEnsure-User root;\nEnsure-Group root;\n"
    collected = await run(script, mode="collect")
    assert collected.status == "normal", collected.messages()
    assert collected.result.drifted == []
