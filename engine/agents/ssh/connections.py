"""Connections to servers over SSH: one per server and execution (``SshConnections``), logged
in with the target's key or password, the server's host key checked against the trusted ones
(never skipped), every failure an AgentError that names the server, its address and the cause.
And ``probe``, the server check's one connection."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

import asyncssh

from engine.agents.base import AgentError
from engine.agents.ssh.agent import Connection, SshAgent
from engine.agents.ssh.keys import HostKeyChanged, HostKeyUntrusted, host_key_algorithms, key_line
from engine.agents.ssh.target import ServerFacts, SshTarget, reason
from engine.inventory import inventory_script, read_inventory

# the server check's inventory script: dpkg-query or rpm on a busy server takes seconds
INVENTORY_TIMEOUT_SECONDS = 60

# called with the server's name and the key line when a key is trusted on first use
HostKeyHandler = Callable[[str, str], None]


class _Client(asyncssh.SSHClient):
    """Hears the key the server offers (asyncssh asks here for any key not already trusted)."""

    def __init__(self, target: SshTarget) -> None:
        self.target = target
        self.offered: str | None = None

    def validate_host_public_key(self, host, addr, port, key) -> bool:
        self.offered = key_line(key)
        return self.target.trust_on_first_use and not self.target.trusted_host_keys


async def _connect(target: SshTarget) -> tuple[asyncssh.SSHClientConnection, str]:
    """A logged-in connection and the host key it was made with; AgentError when it fails."""
    if not target.user:
        raise AgentError(f"no user to log in to {target.where} as: set the server's user")
    try:
        trusted = [asyncssh.import_public_key(line) for line in target.trusted_host_keys]
    except (asyncssh.KeyImportError, ValueError) as error:
        raise AgentError(
            f"a trusted host key of {target.server} is not readable: {error}"
        ) from None
    keys = None
    if target.private_key:
        try:
            keys = [asyncssh.import_private_key(target.private_key, target.passphrase or None)]
        except (asyncssh.KeyImportError, asyncssh.KeyEncryptionError) as error:
            raise AgentError(
                f"the private key for {target.where} cannot be read ({error}): check the "
                "credential's key and passphrase"
            ) from None
    client = _Client(target)
    try:
        connection = await asyncio.wait_for(
            asyncssh.connect(
                target.address,
                target.port,
                username=target.user,
                password=target.password,
                client_keys=keys,
                passphrase=None,
                agent_path=None,
                config=None,
                known_hosts=(trusted, [], []),
                server_host_key_algs=host_key_algorithms(trusted),
                client_factory=lambda: client,
                keepalive_interval=target.keepalive_interval,
                keepalive_count_max=3,
                connect_timeout=target.connect_timeout,
                login_timeout=target.connect_timeout,
            ),
            target.connect_timeout * 2,
        )
    except asyncssh.HostKeyNotVerifiable:
        if client.offered is None:
            raise AgentError(f"the host key of {target.where} could not be verified") from None
        if target.trusted_host_keys:
            raise HostKeyChanged(target, client.offered) from None
        raise HostKeyUntrusted(target, client.offered) from None
    except asyncssh.PermissionDenied:
        how = (
            "with a password"
            if target.password and not keys
            else "with a key"
            if keys and not target.password
            else "with a key and a password"
            if keys
            else "with no password or key"
        )
        raise AgentError(
            f"authentication to {target.where} failed for the user '{target.user}' {how}: "
            "check the server's credential"
        ) from None
    except ConnectionRefusedError:
        raise AgentError(
            f"cannot connect to {target.where}: connection refused (is sshd listening there?)"
        ) from None
    except (TimeoutError, asyncssh.ConnectionLost) as error:
        cause = f"timed out after {target.connect_timeout:g} s"
        if isinstance(error, asyncssh.ConnectionLost):
            cause = f"the connection was lost ({error.reason})"
        raise AgentError(f"cannot connect to {target.where}: {cause}") from None
    except socket.gaierror as error:
        raise AgentError(
            f"cannot connect to {target.server}: the name '{target.address}' was not found "
            f"(DNS: {error.strerror})"
        ) from None
    except OSError as error:
        raise AgentError(f"cannot connect to {target.where}: {error.strerror or error}") from None
    except asyncssh.Error as error:
        raise AgentError(f"cannot connect to {target.where}: {error.reason}") from None
    # a trusted key is not offered to the client's check: read it from the connection
    offered = client.offered
    if offered is None:
        server_key = connection.get_server_host_key()
        offered = key_line(server_key) if server_key is not None else ""
    return connection, offered


class SshConnections:
    """One execution's SSH connections: one per server, reused by every operation and block,
    with at most ``max_connecting`` servers connecting at once. ``on_new_host_key(server, key)``
    hears of each key trusted on first use, for the host to keep."""

    def __init__(
        self, *, max_connecting: int = 100, on_new_host_key: HostKeyHandler | None = None
    ) -> None:
        self._connecting = asyncio.Semaphore(max(1, max_connecting))
        self._on_new_host_key = on_new_host_key
        self._servers: dict[SshTarget, asyncio.Task[Connection]] = {}

    async def agent(self, target: SshTarget) -> SshAgent:
        # the same server reached with other credentials, or other trusted keys, is another
        # connection; the same target that failed fails again at once, with the same error
        task = self._servers.get(target)
        if task is None:
            task = asyncio.ensure_future(self._open(target))
            self._servers[target] = task
        return SshAgent(target, await asyncio.shield(task))

    async def _open(self, target: SshTarget) -> Connection:
        async with self._connecting:
            connection, offered = await _connect(target)
        if (
            target.trust_on_first_use
            and not target.trusted_host_keys
            and self._on_new_host_key is not None
        ):
            self._on_new_host_key(target.server, offered)
        return Connection(connection)

    async def close(self) -> None:
        tasks, self._servers = list(self._servers.values()), {}
        for task in tasks:
            if not task.done():
                task.cancel()
        for task in tasks:
            try:
                opened = await task
            except (AgentError, asyncio.CancelledError):
                continue
            await opened.close()


async def probe(target: SshTarget) -> ServerFacts:
    """Connect, log in and read what the server is: for the server check."""
    started = time.perf_counter()
    connection, offered = await _connect(target)
    try:
        result = await asyncio.wait_for(
            connection.run(
                'uname -srm; . /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"',
                encoding="utf-8",
                errors="replace",
            ),
            target.connect_timeout,
        )
        latency = (time.perf_counter() - started) * 1000
    except (asyncssh.Error, OSError, TimeoutError) as error:
        connection.close()
        raise AgentError(f"{target.where} answered, but not to uname: {reason(error)}") from None
    try:
        listed = await asyncio.wait_for(
            connection.run(inventory_script(), encoding="utf-8", errors="replace"),
            INVENTORY_TIMEOUT_SECONDS,
        )
        inventory = read_inventory(str(listed.stdout or ""))
    except (asyncssh.Error, OSError, TimeoutError):
        inventory = None  # reachable all the same: the check says so, and keeps what it had
    finally:
        connection.close()
    lines = str(result.stdout or "").splitlines()
    return ServerFacts(
        latency_ms=round(latency, 1),
        host_key=offered,
        kernel=lines[0].strip() if lines else "",
        os_name=lines[1].strip() if len(lines) > 1 else "",
        inventory=inventory,
    )
