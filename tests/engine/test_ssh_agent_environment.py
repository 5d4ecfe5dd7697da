"""The SSH agent's environment variables (Agent.environment_variables, what
``$EnvironmentVariable`` reads on an SSH server), against the real sshd of the ``sshd`` fixture."""

from __future__ import annotations

from engine import parse
from engine.agents import SshConnections
from engine.interpreter import Host, ListSink, RunCredential, ScriptRun


async def test_ssh_agent_environment_variables_are_the_logins(sshd) -> None:
    connections = SshConnections()
    try:
        agent = await connections.agent(sshd.target())
        variables = await agent.environment_variables()
    finally:
        await connections.close()
    assert variables["USER"] == sshd.user or variables["LOGNAME"] == sshd.user
    assert variables["HOME"] == str(sshd.home)
    assert not any(name.startswith(("OTTERWEB_", "DJANGO_")) for name in variables)


class OneServer(Host):
    def __init__(self, cluster) -> None:
        super().__init__(sink=ListSink(), default_server=cluster.servers[0].name)
        self.cluster = cluster
        self.connections = SshConnections()

    async def agent(self, server: str, *, credential: RunCredential | None = None):
        return await self.connections.agent(self.cluster.target())


async def test_ssh_agent_environment_variable_function_reads_the_server(sshd) -> None:
    host = OneServer(sshd)
    try:
        result = await ScriptRun(
            parse(
                "Log-Information home=$EnvironmentVariable(HOME) none=$EnvironmentVariable(NO_SUCH);"
            ),
            host=host,
        ).run()
    finally:
        await host.connections.close()
    assert result.status.label == "normal", host.sink.messages()
    assert f"home={sshd.home} none=" in host.sink.messages()
