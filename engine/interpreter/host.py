"""The host: everything an execution needs from outside the engine.

The web application subclasses ``Host`` to supply servers, roles, environments, configuration
variables, credentials, rafts, global locks and a log sink backed by its database. The engine
itself ships ``StandaloneHost``: one server, ``localhost``, on the local agent.
"""

from __future__ import annotations

import asyncio
import os
import uuid
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from engine.agents import Agent, LocalAgent, SshConnections, SshTarget
from engine.interpreter.logs import LogSink, NullSink
from engine.mail import SmtpServer
from engine.packages import Manager, Package
from engine.values import Value

# The kinds of credential, as RunCredential.kind names them, and in words.
PASSWORD, PRIVATE_KEY, TOKEN = "password", "private_key", "token"
CREDENTIAL_KINDS = {
    PASSWORD: "a user name and password",
    PRIVATE_KEY: "a private key",
    TOKEN: "a token",
}
# what the SSH agent logs in with
SSH_CREDENTIAL_KINDS = (PRIVATE_KEY, PASSWORD)


@dataclass(frozen=True)
class RunCredential:
    """A named credential as a run uses it. ``secret`` is a password, a private key or a token,
    in clear."""

    name: str
    username: str = ""
    secret: str = ""
    kind: str = "password"
    passphrase: str = ""  # a private key's


class CredentialRefused(Exception):
    """A credential exists but this run may not use it here (a host's environment limits).
    The message says why, for the log."""


def check_credential_kind(credential: RunCredential, accepted, *, use: str) -> None:
    """Raise CredentialRefused, saying why, unless ``credential`` is of a kind ``use`` (``Get-Http``,
    ``SSH``) accepts: an operation never sends a secret it was not made for (an SSH key as an
    HTTP password)."""
    if credential.kind in accepted:
        return
    kinds = " or ".join(CREDENTIAL_KINDS.get(kind, kind) for kind in accepted)
    raise CredentialRefused(
        f"credential '{credential.name}' is {CREDENTIAL_KINDS.get(credential.kind, credential.kind)}, "
        f"and {use} takes only {kinds}: it was not used, and nothing was sent"
    )


class LockProvider:
    """Locks shared by every execution (``lock=!token``). This default covers the executions of one
    event loop (each loop has its own locks); the web application supplies one backed by its
    database or Redis."""

    def __init__(self) -> None:
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]]
        self._locks = weakref.WeakKeyDictionary()

    @asynccontextmanager
    async def hold(self, token: str) -> AsyncIterator[None]:
        locks = self._locks.setdefault(asyncio.get_running_loop(), {})
        async with locks.setdefault(token.casefold(), asyncio.Lock()):
            yield


IN_PROCESS_LOCKS = LockProvider()


@dataclass
class Host:
    """Defaults for a host with no inventory: override what you have."""

    sink: LogSink = field(default_factory=NullSink)
    execution_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    default_server: str = "localhost"
    working_directory: str = field(default_factory=os.getcwd)
    locks: LockProvider = field(default_factory=lambda: IN_PROCESS_LOCKS)
    raft: str | None = None  # the raft the script belongs to, for modules and scripts it names
    # the packages runs collected, by server and package manager (see record_packages)
    collected_packages: dict[tuple[str, Manager], list[Package]] = field(default_factory=dict)

    # ---- inventory

    def servers(self) -> list[str]:
        return [self.default_server]

    def server_exists(self, name: str) -> bool:
        return name.casefold() in (s.casefold() for s in self.servers())

    def roles(self) -> list[str]:
        return []

    def environments(self) -> list[str]:
        return []

    def roles_of(self, server: str) -> list[str]:
        return []

    def environment_of(self, server: str) -> str | None:
        return None

    def servers_in_role(self, role: str) -> list[str]:
        return [
            s for s in self.servers() if role.casefold() in (r.casefold() for r in self.roles_of(s))
        ]

    def servers_in_environment(self, environment: str) -> list[str]:
        return [
            s
            for s in self.servers()
            if (self.environment_of(s) or "").casefold() == environment.casefold()
        ]

    # ---- variables and secrets

    def variable(self, name: str, server: str | None, role: str | None) -> Value | None:
        """A configuration variable as seen from ``server`` (and the role in context), or None."""
        return None

    def sensitive_values(self) -> list[Value]:
        """Values that must never reach a log (sensitive variables, secrets): of a list or a
        map, every text inside."""
        return []

    def credential(self, name: str, *, server: str | None = None) -> RunCredential | None:
        """The credential ``name``, or None when there is none. ``server`` is the server in
        context where it is used; None for a run with no target, which is in no environment.
        A host that limits credentials raises ``CredentialRefused`` where one may not be used."""
        return None

    # ---- rafts

    async def raft_item(self, raft: str | None, name: str, kind: str) -> str | None:
        """The text of a raft item (``module``, ``script``, ``template``, ``asset``), or None."""
        return None

    async def set_variable(
        self,
        name: str,
        literal: str,
        *,
        server: str | None = None,
        role: str | None = None,
        environment: str | None = None,
        sensitive: bool = False,
    ) -> None:
        """Create or change the configuration variable ``name`` (its value an OtterScript
        literal) at one scope, none for global (Set-Variable); a ValueError says why not."""
        raise ValueError("this host keeps no configuration variables to set")

    # ---- e-mail

    def smtp_server(self) -> SmtpServer:
        """The SMTP server Send-Email sends through; a ValueError says how to set one up."""
        raise ValueError("no SMTP server is set up to send mail through")

    # ---- collected inventory

    def server_facts(self, server: str) -> dict:
        """What the last server check found ``server`` to be (Inventory.facts, with its
        ``os_name`` and ``kernel``): empty when none is known."""
        return {}

    async def record_packages(self, server: str, manager: Manager, packages: list[Package]) -> str:
        """Keep the packages of ``manager`` installed on ``server``, as a run collected them
        (Collect-DebianPackages): the web application keeps them as the server's inventory;
        this default keeps the last ones in ``collected_packages``. Returns "" when they are
        kept, or else why not."""
        self.collected_packages[(server, manager)] = packages
        return ""

    # ---- pacing

    async def pace(self) -> None:
        """Called every few statements: a host whose log sink falls behind makes the run wait
        here (the default only gives the event loop a turn)."""
        await asyncio.sleep(0)

    # ---- agents

    async def agent(self, server: str, *, credential: RunCredential | None = None) -> Agent:
        """A connection to ``server``. The engine closes agents it asked for when the run ends
        (and at the end of a ``with isolation`` block)."""
        return LocalAgent(server)

    def working_directory_of(self, server: str) -> str:
        """The folder relative paths start from on ``server`` (the login folder of an SSH
        server: "" there, which its agent takes as its user's home)."""
        return self.working_directory

    async def run_ended(self) -> None:
        """Called once when a run ends, after its agents are closed: a host closes here what
        it opened for the run (its SSH connections)."""


class StandaloneHost(Host):
    """`python -m engine run`: the local machine as ``localhost``, or the SSH servers given,
    the first of them the default; scripts and templates next to the script file,
    configuration variables from the command line."""

    def __init__(
        self,
        *,
        sink: LogSink,
        working_directory: str | None = None,
        script_directory: str | None = None,
        ssh_servers: Sequence[SshTarget] = (),
        max_connecting: int = 100,
        on_new_host_key: Callable[[str, str], None] | None = None,
    ) -> None:
        super().__init__(sink=sink, working_directory=working_directory or os.getcwd())
        self.script_directory = script_directory or self.working_directory
        self.ssh_servers = {target.server.casefold(): target for target in ssh_servers}
        if ssh_servers:
            self.default_server = ssh_servers[0].server
        self.connections = SshConnections(
            max_connecting=max_connecting, on_new_host_key=on_new_host_key
        )

    def servers(self) -> list[str]:
        return [target.server for target in self.ssh_servers.values()] or [self.default_server]

    async def agent(self, server: str, *, credential: RunCredential | None = None) -> Agent:
        target = self.ssh_servers.get(server.casefold())
        if target is None:
            return await super().agent(server, credential=credential)
        return await self.connections.agent(target)

    def working_directory_of(self, server: str) -> str:
        return "" if server.casefold() in self.ssh_servers else self.working_directory

    async def run_ended(self) -> None:
        await self.connections.close()

    async def raft_item(self, raft: str | None, name: str, kind: str) -> str | None:
        candidates = [name]
        if kind == "module" and not name.endswith(".otter"):
            candidates.append(name + ".otter")
        for candidate in candidates:
            path = os.path.join(self.script_directory, candidate)
            if os.path.isfile(path):
                return await asyncio.to_thread(_read_text, path)
        return None


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()
