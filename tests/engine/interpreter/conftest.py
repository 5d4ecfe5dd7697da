"""Helpers: run a script on a host that records its log; a package repository dnf reads."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine import parse
from engine.interpreter import (
    CredentialRefused,
    ExecutionResult,
    Host,
    Level,
    ListSink,
    RunCredential,
    ScriptRun,
)


@dataclass
class Ran:
    result: ExecutionResult
    sink: ListSink

    @property
    def status(self) -> str:
        return self.result.status.label

    def messages(self, level: Level | None = None) -> list[str]:
        return self.sink.messages(level)

    @property
    def info(self) -> list[str]:
        return self.messages(Level.INFORMATION)


@dataclass
class TestHost(Host):
    """A host with an inventory, configuration variables and credentials set by the test."""

    config: dict = field(default_factory=dict)
    server_roles: dict = field(default_factory=lambda: {"localhost": ["web"], "db1": ["database"]})
    environments_of: dict = field(
        default_factory=lambda: {"localhost": "Production", "db1": "Production"}
    )
    credentials: dict = field(default_factory=dict)
    # credential name -> the environments it is limited to (none: anywhere)
    credential_environments: dict = field(default_factory=dict)
    secrets: list = field(default_factory=list)
    rafts: dict = field(default_factory=dict)
    agents_made: int = 0

    def servers(self):
        return list(self.server_roles)

    def roles(self):
        return sorted({r for roles in self.server_roles.values() for r in roles})

    def environments(self):
        return sorted(set(self.environments_of.values()))

    def roles_of(self, server):
        return self.server_roles.get(server, [])

    def environment_of(self, server):
        return self.environments_of.get(server)

    def variable(self, name, server, role):
        return self.config.get(name.casefold())

    def sensitive_values(self):
        return list(self.secrets)

    def credential(self, name, *, server=None):
        allowed = self.credential_environments.get(name)
        if allowed and (server is None or self.environment_of(server) not in allowed):
            raise CredentialRefused(f"credential '{name}' may not be used on {server}")
        return self.credentials.get(name)

    async def raft_item(self, raft, name, kind):
        return self.rafts.get((kind, name))

    async def agent(self, server, *, credential=None):
        self.agents_made += 1
        return await super().agent(server, credential=credential)


@pytest.fixture
def host(tmp_path) -> TestHost:
    return TestHost(sink=ListSink(), working_directory=str(tmp_path))


@pytest.fixture
def run(host):
    async def run_script(text: str, **options) -> Ran:
        host.sink = ListSink()  # each run its own log
        execution = ScriptRun(parse(text), host=host, **options)
        result = await execution.run()
        return Ran(result, host.sink)

    return run_script


@pytest.fixture
def names():
    """Names of users, groups and host names nobody has (as root, tests make them); what a test
    made of them is removed after it, a user's home and crontab and a hosts entry with them."""
    made: list[str] = []

    def name() -> str:
        made.append(f"ow{uuid.uuid4().hex[:10]}")
        return made[-1]

    yield name
    for made_name in made:
        subprocess.run(["userdel", "-r", made_name], capture_output=True)
        subprocess.run(["groupdel", made_name], capture_output=True)
        subprocess.run(["sed", "-i", f"/\\s{made_name}$/d", "/etc/hosts"], capture_output=True)


RPM_VERSIONS = ("1.0-1", "2.0-1")


def build_rpm(folder: Path, name: str, version: str) -> Path:
    """A noarch package that installs one file, /usr/share/doc/<name>/README."""
    number, _, release = version.partition("-")
    spec = folder / f"{name}-{version}.spec"
    spec.write_text(
        f"Name: {name}\nVersion: {number}\nRelease: {release}\nSummary: probe\nLicense: MIT\n"
        "BuildArch: noarch\n%description\nA package the tests install.\n"
        f"%install\nmkdir -p %{{buildroot}}/usr/share/doc/{name}\n"
        f"echo {version} > %{{buildroot}}/usr/share/doc/{name}/README\n"
        f"%files\n/usr/share/doc/{name}/README\n"
    )
    top = folder / "rpmbuild"
    subprocess.run(
        ["rpmbuild", "-bb", "--quiet", "--define", f"_topdir {top}", str(spec)],
        check=True,
        capture_output=True,
    )
    return top / "RPMS" / "noarch" / f"{name}-{version}.noarch.rpm"


@pytest.fixture
def dnf_package(tmp_path):
    """The name of a package in two versions (RPM_VERSIONS), in a repository createrepo_c indexes,
    which a file of the test's in /etc/yum.repos.d names; package, lock, repository file and
    dnf's cache of it are removed afterwards."""
    assert shutil.which("dnf"), "dnf is missing: scripts/services start installs it"
    name = f"otterweb-probe-{uuid.uuid4().hex[:10]}"
    repository = tmp_path / "repository"
    repository.mkdir()
    for version in RPM_VERSIONS:
        shutil.copy(build_rpm(tmp_path, name, version), repository)
    subprocess.run(["createrepo_c", "--quiet", str(repository)], check=True, capture_output=True)
    listing = Path("/etc/yum.repos.d") / f"{name}.repo"
    listing.parent.mkdir(exist_ok=True)
    listing.write_text(f"[{name}]\nname={name}\nbaseurl=file://{repository}\ngpgcheck=0\n")
    yield name
    subprocess.run(["dnf", "--quiet", "versionlock", "delete", name], capture_output=True)
    subprocess.run(["rpm", "--erase", "--nodeps", name], capture_output=True)
    listing.unlink()
    for cached in Path("/var/cache/dnf").glob(f"{name}-*"):
        shutil.rmtree(cached, ignore_errors=True)


__all__ = ["RPM_VERSIONS", "Ran", "RunCredential", "TestHost"]
