"""Ensure-User, Ensure-Group and Ensure-CronJob with the system's own tools, on this machine
through the local agent (as root, as `make test` runs): each test makes users and groups of
unique names and removes them afterwards (a user's crontab with them)."""

from __future__ import annotations

import os
import pwd
import random
import subprocess
from pathlib import Path

import pytest

from engine.interpreter import Level

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="makes users and groups: needs root")
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ2e1y5tT2n4a7yXkqX0hFjv0mYzK6o0m8cJ3J0k1Zy9 ops@laptop"


def free_id() -> int:
    """A user and group id nobody has: runs side by side (other checkouts) make theirs too."""
    while True:
        candidate = random.randrange(30_000, 60_000)
        taken = [
            subprocess.run(["getent", database, str(candidate)], capture_output=True).returncode
            == 0
            for database in ("passwd", "group")
        ]
        if not any(taken):
            return candidate


def group_id(name: str) -> int | None:
    found = subprocess.run(["getent", "group", name], capture_output=True, text=True)
    return int(found.stdout.split(":")[2]) if found.returncode == 0 else None


async def test_ensure_group_makes_changes_the_id_of_and_deletes_a_group(run, names) -> None:
    group, first, second = names(), free_id(), free_id()
    script = f"Ensure-Group {group} (Gid: {first});"
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("Exists", True, False),
        ("Gid", first, None),
    ]
    assert group_id(group) is None
    assert (await run(script)).status == "normal" and group_id(group) == first
    changed = await run(f"Ensure-Group {group} (Gid: {second});")
    assert f"Changed the id of the group {group} to {second}." in changed.info
    assert group_id(group) == second
    assert not (await run(f"Ensure-Group {group} (Gid: {second});", mode="collect")).result.drifted
    await run(f"Ensure-Group {group} (Exists: false);")
    assert group_id(group) is None


async def test_ensure_user_makes_a_user_as_declared(run, names) -> None:
    user, team, uid = names(), names(), free_id()
    await run(f"Ensure-Group {team};")
    script = f"""Ensure-User {user}
(
    Uid: {uid},
    Groups: @({team}),
    Shell: /bin/sh,
    Locked: true,
    AuthorizedKeys: @({KEY})
);"""
    collected = await run(script, mode="collect")
    assert [d.operation for d in collected.result.drifted] == [f"Ensure-User {user}"]
    ran = await run(script)
    assert ran.status == "normal", ran.messages()
    entry = pwd.getpwnam(user)
    assert (entry.pw_uid, entry.pw_shell) == (uid, "/bin/sh")
    groups = subprocess.run(["id", "-nG", user], capture_output=True, text=True).stdout.split()
    assert set(groups) == {user, team}
    keys = Path(entry.pw_dir) / ".ssh" / "authorized_keys"
    assert keys.read_text() == KEY + "\n"
    assert keys.stat().st_mode & 0o777 == 0o600 and keys.stat().st_uid == uid
    assert (keys.parent.stat().st_mode & 0o777, keys.parent.stat().st_uid) == (0o700, uid)
    status = subprocess.run(["passwd", "-S", user], capture_output=True, text=True).stdout
    assert status.split()[1] == "L"
    assert not (await run(script, mode="collect")).result.drifted
    again = await run(script)
    assert again.info == [], again.info  # nothing to change


async def test_ensure_user_changes_only_what_differs(run, names) -> None:
    user, first, second = names(), names(), names()
    await run(f"Ensure-Group {first};\nEnsure-Group {second};")
    await run(f"Ensure-User {user} (Groups: @({first}), Shell: /bin/sh);")
    script = f"Ensure-User {user} (Groups: @({second}), Shell: /bin/bash);"
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert {(d.property, str(d.expected), str(d.actual)) for d in drift.differences} == {
        ("Groups", f"['{second}']", f"['{first}']"),
        ("Shell", "/bin/bash", "/bin/sh"),
    }
    ran = await run(script)
    assert f"Changed Groups, Shell of {user}." in ran.info
    groups = subprocess.run(["id", "-nG", user], capture_output=True, text=True).stdout.split()
    assert set(groups) == {user, second} and pwd.getpwnam(user).pw_shell == "/bin/bash"


async def test_ensure_user_absent_deletes_the_user(run, names) -> None:
    user = names()
    await run(f"Ensure-User {user};")
    assert pwd.getpwnam(user)
    ran = await run(f"Ensure-User {user} (Exists: false);")
    assert f"Deleted the user {user} (the home directory is kept)." in ran.info
    with pytest.raises(KeyError):
        pwd.getpwnam(user)


async def test_ensure_user_a_missing_group_is_a_clear_error(run, names) -> None:
    user = names()
    ran = await run(f"Ensure-User {user} (Group: no-such-group-{user});")
    assert ran.status == "error"
    (message,) = ran.messages(Level.ERROR)
    assert message.startswith("useradd exited with code 6 on localhost: useradd: group ")


def crontab_of(user: str) -> str:
    listed = subprocess.run(["crontab", "-l", "-u", user], capture_output=True, text=True)
    return listed.stdout if listed.returncode == 0 else ""


async def test_ensure_cron_job_writes_changes_and_removes_a_users_job(run, names) -> None:
    user = names()
    await run(f"Ensure-User {user};")
    subprocess.run(
        ["crontab", "-u", user, "-"], input="MAILTO=ops\n5 * * * * echo theirs\n", text=True
    )
    script = (
        f"Ensure-CronJob backup (User: {user}, Schedule: 30 2 * * *, "
        "Command: /usr/local/bin/backup --quiet);"
    )
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("Exists", True, False),
        ("Schedule", "30 2 * * *", None),
        ("Command", "/usr/local/bin/backup --quiet", None),
    ]
    ran = await run(script)
    assert f"Wrote the cron job backup of {user}." in ran.info, ran.messages()
    assert crontab_of(user) == (
        "MAILTO=ops\n5 * * * * echo theirs\n"
        "# OtterWeb: backup\n30 2 * * * /usr/local/bin/backup --quiet\n"
    )
    assert not (await run(script, mode="collect")).result.drifted
    assert (await run(script)).info == []
    moved = script.replace("30 2 * * *", "'@daily'")  # quoted: @daily is a list's name
    (drift,) = (await run(moved, mode="collect")).result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("Schedule", "@daily", "30 2 * * *")
    ]
    await run(moved)
    assert crontab_of(user).endswith("# OtterWeb: backup\n@daily /usr/local/bin/backup --quiet\n")
    await run(f"Ensure-CronJob backup (User: {user}, Exists: false);")
    assert crontab_of(user) == "MAILTO=ops\n5 * * * * echo theirs\n"


async def test_ensure_cron_job_refuses_a_schedule_that_is_not_cron(run, names) -> None:
    ran = await run("Ensure-CronJob x (Schedule: every day, Command: true);")
    assert ran.messages(Level.ERROR) == [
        "Ensure-CronJob's Schedule 'every day' is not five cron fields (30 2 * * *) or a word "
        "like @daily"
    ]


async def test_ensure_cron_job_command_keeps_its_spaces_and_does_not_drift(run, names) -> None:
    user = names()
    await run(f"Ensure-User {user};")
    script = f"Ensure-CronJob spaced (User: {user}, Schedule: 0 * * * *, Command: >>echo 'a  b'>>);"
    await run(script)
    assert crontab_of(user) == "# OtterWeb: spaced\n0 * * * * echo 'a  b'\n"
    assert not (await run(script, mode="collect")).result.drifted
