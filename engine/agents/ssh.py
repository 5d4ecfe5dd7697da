"""The SSH agent: processes and files on a Linux (POSIX) server over SSH and SFTP, with asyncssh.

One connection per server and execution (``SshConnections``), shared by every operation that
runs there, with many channels on it at once, up to what OpenSSH allows by default. Host keys
are checked against the ones the host trusts, never skipped: an unknown key is refused with its
fingerprint (``HostKeyUntrusted``) unless the host trusts on first use, and a different key is
refused with both fingerprints (``HostKeyChanged``).

A command runs in the shell sshd starts for its channel, which is the leader of a process group
of its own (sshd starts each session in a new session): cancelling the run signals that group
over a second channel, so the command's children die with it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import posixpath
import secrets
import shlex
import socket
import stat as stat_module
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from engine.agents.base import (
    AgentError,
    FileInfo,
    HttpAnswer,
    HttpRequest,
    OutputHandler,
    http_answer,
)

# OpenSSH's MaxSessions is 10 by default: one channel is SFTP's, one is kept for stopping
# commands, and the rest run commands at once.
COMMAND_CHANNELS = 8
KILL_GRACE_SECONDS = 2.0
CHANNEL_OPEN_TRIES = 20  # 50 ms apart
HTTP_SCRIPT = (Path(__file__).parent / "http_request.py").read_text(encoding="utf-8")

# called with the server's name and the key line when a key is trusted on first use
HostKeyHandler = Callable[[str, str], None]


@dataclass(frozen=True)
class SshTarget:
    """How to reach one server: where, as whom, and which host keys to trust."""

    server: str  # the server's name, in every message
    address: str
    port: int = 22
    user: str = ""
    password: str | None = None
    private_key: str | None = None  # the key's text (OpenSSH or PEM), never a path
    passphrase: str | None = None
    trusted_host_keys: tuple[str, ...] = ()  # "ssh-ed25519 AAAA... [comment]" lines
    trust_on_first_use: bool = False
    sudo: bool = False  # commands (not SFTP) run through `sudo -n`
    connect_timeout: float = 10.0
    keepalive_interval: float = 15.0

    @property
    def where(self) -> str:
        return f"{self.server} ({self.address}:{self.port})"


def key_line(key: asyncssh.SSHKey) -> str:
    """A public key as a known_hosts line's key part: ``ssh-ed25519 AAAA...``."""
    return " ".join(key.export_public_key("openssh").decode("ascii").split()[:2])


def fingerprint(public_key_line: str) -> str:
    """``SHA256:...``, as ``ssh-keygen -l`` shows a key."""
    try:
        blob = base64.b64decode(public_key_line.split()[1], validate=True)
    except (IndexError, ValueError):
        raise ValueError(f"'{public_key_line[:40]}' is not an OpenSSH public key") from None
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def known_hosts_name(address: str, port: int) -> str:
    """How OpenSSH's known_hosts names a server: ``host``, or ``[host]:port`` off port 22."""
    return address if port == 22 else f"[{address}]:{port}"


def known_host_keys(text: str, address: str, port: int) -> tuple[str, ...]:
    """The keys an OpenSSH known_hosts file trusts for ``address``:``port`` (hashed names
    too; ``@cert-authority`` and ``@revoked`` lines are not keys of a host and are skipped)."""
    name = known_hosts_name(address, port)
    found = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith(("#", "@")):
            continue
        if any(_names(pattern, name) for pattern in fields[0].split(",")):
            found.append(" ".join(fields[1:3]))
    return tuple(found)


def _names(pattern: str, name: str) -> bool:
    if not pattern.startswith("|1|"):
        return pattern == name
    try:
        salt, digest = (base64.b64decode(part) for part in pattern[3:].split("|", 1))
    except ValueError:
        return False
    return hmac.compare_digest(hmac.new(salt, name.encode(), hashlib.sha1).digest(), digest)


class HostKeyUntrusted(AgentError):
    """The server offered a key, and no key of it is trusted yet."""

    def __init__(self, target: SshTarget, offered: str) -> None:
        self.offered = offered
        self.fingerprint = fingerprint(offered)
        super().__init__(
            f"the host key of {target.where} is not trusted yet: it offered "
            f"{offered.split()[0]} {self.fingerprint}. Check that fingerprint on the server "
            "(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) and trust it, then run again"
        )


class HostKeyChanged(AgentError):
    """The server offered a key other than the ones trusted: another machine, or a reinstall."""

    def __init__(self, target: SshTarget, offered: str) -> None:
        self.offered = offered
        self.fingerprint = fingerprint(offered)
        self.trusted_fingerprints = tuple(fingerprint(k) for k in target.trusted_host_keys)
        super().__init__(
            f"the host key of {target.where} has changed: it offered {self.fingerprint}, and "
            f"the trusted key is {', '.join(self.trusted_fingerprints)}. Nothing was run. If "
            "the server was reinstalled, forget its old key and trust the new one"
        )


@dataclass(frozen=True)
class ServerFacts:
    """What a check of a server found."""

    latency_ms: float  # connecting, logging in and one command
    host_key: str
    os_name: str  # PRETTY_NAME of /etc/os-release ("" when there is none)
    kernel: str  # uname -srm


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
        self._servers: dict[SshTarget, asyncio.Task[_Connection]] = {}

    async def agent(self, target: SshTarget) -> SshAgent:
        # the same server reached with other credentials, or other trusted keys, is another
        # connection; the same target that failed fails again at once, with the same error
        task = self._servers.get(target)
        if task is None:
            task = asyncio.ensure_future(self._open(target))
            self._servers[target] = task
        return SshAgent(target, await asyncio.shield(task))

    async def _open(self, target: SshTarget) -> _Connection:
        async with self._connecting:
            connection, offered = await _connect(target)
        if (
            target.trust_on_first_use
            and not target.trusted_host_keys
            and self._on_new_host_key is not None
        ):
            self._on_new_host_key(target.server, offered)
        return _Connection(connection)

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


class _Connection:
    """A connection with its channel limit and its one SFTP session."""

    def __init__(self, connection: asyncssh.SSHClientConnection) -> None:
        self.ssh = connection
        self.channels = asyncio.Semaphore(COMMAND_CHANNELS)
        self._sftp: asyncssh.SFTPClient | None = None
        self._sftp_lock = asyncio.Lock()
        # process groups to stop, killed a batch at a time over the one channel kept for it
        self.doomed: set[int] = set()
        self.killing = asyncio.Lock()

    async def sftp(self) -> asyncssh.SFTPClient:
        async with self._sftp_lock:
            if self._sftp is None:
                self._sftp = await self.ssh.start_sftp_client()
            return self._sftp

    async def close(self) -> None:
        if self._sftp is not None:
            self._sftp.exit()
        self.ssh.close()
        await self.ssh.wait_closed()


def _remote_command(
    command: list[str], cwd: str | None, env: Mapping[str, str] | None, sudo: bool
) -> str:
    """The shell line that runs ``command``: it first prints the shell's process id (the
    process group that a cancel signals), then becomes the command."""
    for name in env or {}:
        if not name.isidentifier() or not name.isascii():
            raise AgentError(f"'{name}' is not a name an environment variable can have")
    assignments = [f"{name}={shlex.quote(value)}" for name, value in (env or {}).items()]
    line = "echo $$; "
    if cwd:
        line += f"cd {shlex.quote(cwd)} || exit 127; "
    line += "exec "
    if sudo:
        line += "sudo -n -- "
    if assignments:
        line += "env " + " ".join(assignments) + " "
    return line + shlex.join(command)


class SshAgent:
    """Runs on a server over an execution's connection to it (closing an agent leaves the
    connection to ``SshConnections``)."""

    def __init__(self, target: SshTarget, connection: _Connection) -> None:
        self.server = target.server
        self.target = target
        self._connection = connection

    # ---- processes

    async def run(
        self,
        command: list[str],
        *,
        on_output: OutputHandler,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
    ) -> int:
        line = _remote_command(command, cwd, env, self.target.sudo)
        async with self._connection.channels:
            process = await self._open_process(line, command[0])
            group: list[int] = []
            try:
                if stdin is not None:
                    process.stdin.write(stdin)
                process.stdin.write_eof()
                await asyncio.gather(
                    _pump(process.stdout, on_output, False, group),
                    _pump(process.stderr, on_output, True, None),
                )
                result = await process.wait()
            except BaseException:
                if group and group[0] > 0:
                    await self._kill(group[0])
                raise
            finally:
                # the channel is free for another once the server has closed it too
                process.close()
                with contextlib.suppress(asyncssh.Error, OSError):
                    await process.wait_closed()
            if result.exit_status is not None and result.exit_status >= 0:
                return result.exit_status
            if not result.exit_signal:
                raise AgentError(
                    f"the connection to {self.target.where} was lost while '{command[0]}' ran"
                )
            on_output(f"killed by the signal {result.exit_signal[0]}", True)
            return 255

    async def _open_process(self, line: str, program: str) -> asyncssh.SSHClientProcess:
        """A channel running ``line``. sshd frees a closed channel's session a moment after it
        says it closed: a channel refused then is asked for again, for a while."""
        for attempt in range(CHANNEL_OPEN_TRIES):
            try:
                return await self._connection.ssh.create_process(line, encoding=None)
            except asyncssh.ChannelOpenError as error:
                if attempt + 1 == CHANNEL_OPEN_TRIES:
                    raise AgentError(
                        f"cannot run '{program}' on {self.target.where}: the server refused "
                        f"another session ({_reason(error)}; is its MaxSessions below 10?)"
                    ) from None
                await asyncio.sleep(0.05)
            except (asyncssh.Error, OSError) as error:
                raise AgentError(
                    f"cannot run '{program}' on {self.target.where}: {_reason(error)}"
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _kill(self, group: int) -> None:
        """SIGTERM to the command's process group, then SIGKILL after a grace period, over a
        channel of its own (the command's may be stuck). Groups cancelled together are killed
        together, so that stopping every command of a connection needs one channel more."""
        connection = self._connection
        connection.doomed.add(group)
        async with connection.killing:
            if group not in connection.doomed:
                return  # killed with an earlier batch
            groups = " ".join(f"-{doomed}" for doomed in sorted(connection.doomed))
            connection.doomed.clear()
            sudo = "sudo -n " if self.target.sudo else ""
            line = (
                f"{sudo}kill -TERM -- {groups} 2>/dev/null; "
                f"for i in $(seq {int(KILL_GRACE_SECONDS * 10)}); do "
                f"{sudo}kill -0 -- {groups} 2>/dev/null || exit 0; sleep 0.1; done; "
                f"{sudo}kill -KILL -- {groups} 2>/dev/null; exit 0"
            )
            # a connection gone meanwhile is no error: sshd ends its sessions' processes with it
            with contextlib.suppress(asyncssh.Error, OSError, TimeoutError):
                await asyncio.wait_for(connection.ssh.run(line), KILL_GRACE_SECONDS + 5)

    # ---- files

    async def _sftp(self, doing: str, path: str) -> asyncssh.SFTPClient:
        try:
            return await self._connection.sftp()
        except (asyncssh.Error, OSError) as error:
            raise AgentError(
                f"cannot {doing} '{path}' on {self.target.where}: SFTP is not available "
                f"({_reason(error)})"
            ) from None

    def _failed(self, doing: str, path: str, error: Exception) -> AgentError:
        if isinstance(error, asyncssh.SFTPNoSuchFile):
            return AgentError(f"cannot {doing} '{path}' on {self.server}: it does not exist")
        if isinstance(error, asyncssh.SFTPPermissionDenied):
            return AgentError(f"cannot {doing} '{path}' on {self.server}: permission denied")
        return AgentError(f"cannot {doing} '{path}' on {self.server}: {_reason(error)}")

    async def read_file(self, path: str) -> bytes:
        sftp = await self._sftp("read", path)
        try:
            if await sftp.isdir(path):
                raise AgentError(f"'{path}' on {self.server} is a directory, not a file")
            async with sftp.open(path, "rb") as handle:
                return await handle.read()
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("read", path, error) from None

    async def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        """Written under a temporary name beside it, then renamed over it: a reader sees the old
        file or the new one, never half of one. The file keeps its mode unless one is given."""
        sftp = await self._sftp("write", path)
        folder, name = posixpath.split(path)
        temporary = posixpath.join(folder, f".{name}.otter-{secrets.token_hex(4)}")
        try:
            if await sftp.isdir(path):
                raise AgentError(f"cannot write '{path}' on {self.server}: it is a directory")
            if folder:
                await sftp.makedirs(folder, exist_ok=True)
            if mode is None:
                with contextlib.suppress(asyncssh.SFTPNoSuchFile):
                    mode = stat_module.S_IMODE((await sftp.stat(path)).permissions or 0) or None
            async with sftp.open(temporary, "wb") as handle:
                await handle.write(data)
            if mode is not None:
                await sftp.chmod(temporary, mode)
            await sftp.posix_rename(temporary, path)
        except (asyncssh.SFTPError, OSError) as error:
            with contextlib.suppress(asyncssh.SFTPError, OSError):
                await sftp.remove(temporary)
            raise self._failed("write", path, error) from None

    async def stat(self, path: str) -> FileInfo | None:
        sftp = await self._sftp("look at", path)
        try:
            attributes = await sftp.stat(path)
        except asyncssh.SFTPNoSuchFile:
            return None
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("look at", path, error) from None
        return _info(path, attributes)

    async def list_dir(self, path: str, *, recursive: bool = False) -> list[FileInfo]:
        sftp = await self._sftp("list", path)
        found: list[FileInfo] = []
        pending = [path]
        try:
            if not await sftp.isdir(path):
                if await sftp.exists(path):
                    raise AgentError(f"'{path}' on {self.server} is not a directory")
                raise AgentError(f"directory '{path}' does not exist on {self.server}")
            while pending:
                current = pending.pop()
                for entry in await sftp.readdir(current):
                    if entry.filename in (".", ".."):
                        continue
                    info = _info(posixpath.join(current, str(entry.filename)), entry.attrs)
                    found.append(info)
                    if recursive and info.is_directory:
                        pending.append(info.path)
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("list", path, error) from None
        return sorted(found, key=lambda i: i.path)

    async def delete(self, path: str) -> None:
        sftp = await self._sftp("delete", path)
        try:
            attributes = await sftp.lstat(path)
        except asyncssh.SFTPNoSuchFile:
            return
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("delete", path, error) from None
        try:
            if attributes.type == asyncssh.FILEXFER_TYPE_DIRECTORY:
                await sftp.rmtree(path)
            else:
                await sftp.remove(path)
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("delete", path, error) from None

    async def move(self, source: str, destination: str) -> None:
        sftp = await self._sftp("move", source)
        try:
            if await sftp.isdir(destination):
                destination = posixpath.join(destination, posixpath.basename(source))
            await sftp.posix_rename(source, destination)
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("move", source, error) from None

    async def make_dirs(self, path: str) -> None:
        sftp = await self._sftp("create directory", path)
        try:
            if await sftp.exists(path) and not await sftp.isdir(path):
                raise AgentError(
                    f"cannot create directory '{path}' on {self.server}: a file is in the way"
                )
            await sftp.makedirs(path, exist_ok=True)
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("create directory", path, error) from None

    async def set_mode(self, path: str, mode: int) -> None:
        sftp = await self._sftp("change the mode of", path)
        try:
            await sftp.chmod(path, mode)
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("change the mode of", path, error) from None

    # ---- the rest

    async def http(self, request: HttpRequest) -> HttpAnswer:
        """Made on the server by its python3, which http_request.py needs there."""
        output: list[str] = []
        errors: list[str] = []

        def collect(line: str, is_error: bool) -> None:
            (errors if is_error else output).append(line)

        code = await self.run(
            ["python3", "-c", HTTP_SCRIPT],
            on_output=collect,
            stdin=json.dumps(request.as_json()).encode(),
        )
        if code != 0:
            raise AgentError(
                f"cannot send the HTTP request from {self.server}: python3 there exited with "
                f"code {code}" + (f" ({errors[-1]})" if errors else "")
            )
        try:
            return http_answer(json.loads("\n".join(output)))
        except (ValueError, KeyError) as error:
            raise AgentError(
                f"the HTTP request from {self.server} gave no answer to read ({error})"
            ) from None

    def join(self, *parts: str) -> str:
        return posixpath.join(*parts)

    async def close(self) -> None:
        pass  # the connection is the execution's (SshConnections.close)


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
        raise AgentError(f"{target.where} answered, but not to uname: {_reason(error)}") from None
    finally:
        connection.close()
    lines = str(result.stdout or "").splitlines()
    return ServerFacts(
        latency_ms=round(latency, 1),
        host_key=offered,
        kernel=lines[0].strip() if lines else "",
        os_name=lines[1].strip() if len(lines) > 1 else "",
    )


def _info(path: str, attributes: asyncssh.SFTPAttrs) -> FileInfo:
    permissions = attributes.permissions or 0
    return FileInfo(
        path=path,
        name=posixpath.basename(path.rstrip("/")) or path,
        is_directory=attributes.type == asyncssh.FILEXFER_TYPE_DIRECTORY
        or stat_module.S_ISDIR(permissions),
        size=attributes.size or 0,
        modified=float(attributes.mtime or 0),
        mode=stat_module.S_IMODE(permissions),
    )


def _reason(error: BaseException) -> str:
    return str(getattr(error, "reason", "") or getattr(error, "strerror", "") or error)


async def _pump(
    stream: asyncssh.SSHReader, on_output: OutputHandler, is_error: bool, group: list[int] | None
) -> None:
    """Each line of a stream to ``on_output``; on standard output the first line is the shell's
    process id, kept in ``group``."""
    while raw := await stream.readline():
        text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if group is not None and not group:
            group.append(int(text) if text.isdigit() else 0)
            continue
        on_output(text, is_error)
