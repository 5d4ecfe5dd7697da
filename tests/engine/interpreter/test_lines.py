"""Ensure-FileLine and Ensure-HostsEntry on real files, through the local agent
(tests/engine/test_cli_run_ssh.py runs them over SSH)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from engine.interpreter import Level

SSHD_CONFIG = "Port 22\n#PermitRootLogin prohibit-password\nPermitRootLogin yes\nUsePAM yes\n"


async def test_ensure_file_line_collect_reports_the_lines_match_finds(run, tmp_path) -> None:
    config = tmp_path / "sshd_config"
    config.write_text(SSHD_CONFIG)
    ran = await run(
        f"Ensure-FileLine {config} (Line: PermitRootLogin no, Match: ^PermitRootLogin\\s);",
        mode="collect",
    )
    (drift,) = ran.result.drifted
    assert [(d.expected, d.actual) for d in drift.differences] == [
        (["PermitRootLogin no"], ["PermitRootLogin yes"])
    ]
    assert config.read_text() == SSHD_CONFIG


async def test_ensure_file_line_replaces_the_matching_line_in_place_once(run, tmp_path) -> None:
    config = tmp_path / "sshd_config"
    config.write_text(SSHD_CONFIG + "PermitRootLogin without-password\n")
    script = f"Ensure-FileLine {config} (Line: PermitRootLogin no, Match: ^PermitRootLogin\\s);"
    ran = await run(script)
    assert ran.status == "normal", ran.messages()
    assert config.read_text() == (
        "Port 22\n#PermitRootLogin prohibit-password\nPermitRootLogin no\nUsePAM yes\n"
    )
    assert f"Replaced line 3 of {config} and removed 1 other(s) like it." in ran.info
    again = await run(script)
    assert f"{config} already holds the line." in again.messages(Level.DEBUG)
    assert not (await run(script, mode="collect")).result.drifted


async def test_ensure_file_line_appends_a_missing_line_and_creates_a_missing_file(
    run, tmp_path
) -> None:
    config = tmp_path / "limits.conf"
    config.write_text("* soft nofile 1024")  # no line break at the end
    await run(f"Ensure-FileLine {config} (Line: * hard nofile 65536);")
    assert config.read_text() == "* soft nofile 1024\n* hard nofile 65536\n"
    new = tmp_path / "new.conf"
    await run(f"Ensure-FileLine {new} (Line: enabled=1);")
    assert new.read_text() == "enabled=1\n"
    refused = await run(f"Ensure-FileLine {tmp_path / 'none'} (Line: x, Create: false);")
    assert refused.messages(Level.ERROR) == [
        f"'{tmp_path / 'none'}' does not exist on localhost; set Create: true"
    ]


async def test_ensure_file_line_absent_removes_every_line_match_finds(run, tmp_path) -> None:
    config = tmp_path / "sshd_config"
    config.write_text(SSHD_CONFIG)
    script = f"Ensure-FileLine {config} (Match: PermitRootLogin, Exists: false);"
    (drift,) = (await run(script, mode="collect")).result.drifted
    assert [(d.expected, d.actual) for d in drift.differences] == [
        ([], ["#PermitRootLogin prohibit-password", "PermitRootLogin yes"])
    ]
    await run(script)
    assert config.read_text() == "Port 22\nUsePAM yes\n"


async def test_ensure_file_line_catastrophic_match_is_stopped_by_the_time_limit(
    run, tmp_path
) -> None:
    config = tmp_path / "big.conf"
    config.write_text(("a" * 30 + "!\n") * 200)
    ran = await run(f"Ensure-FileLine {config} (Line: ok, Match: ^(a|a)+$);")
    assert ran.status == "error"
    assert any(
        "Match: the regular expression took longer than" in message
        for message in ran.messages(Level.ERROR)
    ), ran.messages(Level.ERROR)
    assert config.read_text() == ("a" * 30 + "!\n") * 200


async def test_ensure_file_line_refuses_a_line_with_a_line_break(run, tmp_path) -> None:
    ran = await run(f'Ensure-FileLine {tmp_path / "x"} (Line: "one`ntwo");')
    assert ran.messages(Level.ERROR) == [
        "Ensure-FileLine's Line is one line: it holds a line break"
    ]


HOSTS = (
    "127.0.0.1\tlocalhost\n10.0.0.5\tdb db.internal # the database\n::1\tlocalhost ip6-localhost\n"
)


async def test_ensure_hosts_entry_adds_moves_and_removes_a_name(run, tmp_path) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text(HOSTS)
    moved = f"Ensure-HostsEntry db.internal (IP: 10.0.0.9, HostsFile: {hosts});"
    (drift,) = (await run(moved, mode="collect")).result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("IP", "10.0.0.9", "10.0.0.5")
    ]
    await run(moved)
    assert hosts.read_text() == (
        "127.0.0.1\tlocalhost\n10.0.0.5\tdb\n::1\tlocalhost ip6-localhost\n10.0.0.9\tdb.internal\n"
    )
    assert not (await run(moved, mode="collect")).result.drifted
    again = await run(moved)
    assert f"{hosts} already has db.internal as it should." in again.messages(Level.DEBUG)
    await run(f"Ensure-HostsEntry db (Exists: false, HostsFile: {hosts});")
    assert "\tdb\n" not in hosts.read_text() and "10.0.0.5" not in hosts.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="writes /etc/hosts: needs root")
async def test_ensure_hosts_entry_in_the_real_hosts_file(run) -> None:
    name = f"otterweb-test-{uuid.uuid4().hex[:8]}.invalid"
    before = Path("/etc/hosts").read_text()
    try:
        ran = await run(f"Ensure-HostsEntry {name} (IP: 192.0.2.7);")
        assert ran.status == "normal", ran.messages()
        assert f"192.0.2.7\t{name}\n" in Path("/etc/hosts").read_text()
        await run(f"Ensure-HostsEntry {name} (Exists: false);")
        assert Path("/etc/hosts").read_text() == before
    finally:
        if Path("/etc/hosts").read_text() != before:
            Path("/etc/hosts").write_text(before)
