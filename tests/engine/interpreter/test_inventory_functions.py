"""The inventory's built-in variables: the facts the host has of the server in context, and a
package's installed version asked of this machine's dpkg."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from engine.interpreter import Level

FACTS = {
    "os_name": "Debian GNU/Linux 12 (bookworm)",
    "os_id": "debian",
    "os_version": "12",
    "architecture": "x86_64",
    "kernel": "Linux 6.1.0-28-amd64 x86_64",
    "cpus": 4,
    "memory_mb": 8192,
    "addresses": ["10.0.0.5", "fd00::5"],
}


async def test_server_facts_are_read_as_built_in_variables(run, host, monkeypatch) -> None:
    monkeypatch.setattr(host, "server_facts", lambda server: FACTS if server == "localhost" else {})
    ran = await run(
        "Log-Information $ServerOS|$ServerOSId|$ServerOSVersion|$ServerArchitecture|$ServerKernel;\n"
        "Log-Information $ServerCPUs CPUs, $ServerMemoryMB MiB, $Join(' ', @ServerAddresses);\n"
        "for server db1 { Log-Information db1: [$ServerOS] [$ListCount(@ServerAddresses)]; }"
    )
    assert ran.status == "normal", ran.messages()
    assert ran.info == [
        "Debian GNU/Linux 12 (bookworm)|debian|12|x86_64|Linux 6.1.0-28-amd64 x86_64",
        "4 CPUs, 8192 MiB, 10.0.0.5 fd00::5",
        "db1: [] [0]",  # not checked yet
    ]


@pytest.mark.skipif(not shutil.which("dpkg-query"), reason="asks dpkg")
async def test_installed_package_version_asks_the_servers_package_manager(run) -> None:
    dpkg = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${Version}", "dpkg"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ran = await run(
        "Log-Information [$InstalledPackageVersion(dpkg)];\n"
        "Log-Information [$InstalledPackageVersion(otterweb-no-such-package)];"
    )
    assert ran.info == [f"[{dpkg}]", "[]"]
    ran = await run("Log-Information $InstalledPackageVersion('lib*');")
    assert ran.status == "error"
    assert any("'lib*' is not a package name" in m for m in ran.messages(Level.ERROR))
