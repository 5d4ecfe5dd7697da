"""Helpers: run a script on a host that records its log."""

from __future__ import annotations

from dataclasses import dataclass, field

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


__all__ = ["Ran", "RunCredential", "TestHost"]
