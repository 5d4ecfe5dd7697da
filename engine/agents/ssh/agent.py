"""The SSH agent: processes and files on one server, over a connection that SshConnections
opened and shares.

A command runs in the shell sshd starts for its channel, which is the leader of a process group
of its own (sshd starts each session in a new session): it first prints its process id, then
becomes the command. Cancelling the run signals that group over another channel, so the
command's children die with it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import posixpath
import secrets
import shlex
import stat as stat_module
from collections.abc import Mapping
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
from engine.agents.ssh.target import SshTarget, reason

# OpenSSH's MaxSessions is 10 by default: one channel is SFTP's, one is kept for stopping
# commands, and the rest run commands at once.
COMMAND_CHANNELS = 8
KILL_GRACE_SECONDS = 2.0
CHANNEL_OPEN_TRIES = 20  # 50 ms apart
PUMP_BYTES = 65536  # read from a command's output at a time
HTTP_SCRIPT = (Path(__file__).parent.parent / "http_request.py").read_text(encoding="utf-8")


class Connection:
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

    def __init__(self, target: SshTarget, connection: Connection) -> None:
        self.server = target.server
        self.target = target
        self._connection = connection
        self._variables: dict[str, str] | None = None

    # ---- processes

    async def run(
        self,
        command: list[str],
        *,
        on_output: OutputHandler,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
        privileged: bool = True,
    ) -> int:
        line = _remote_command(command, cwd, env, self.target.sudo and privileged)
        async with self._connection.channels:
            process = await self._start(line, command[0])
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
                await self._stop(process, group)
                raise
            finally:
                # the channel is free for another once the server has closed it too (which it
                # does only when the command has ended: a stop that failed must not hang here)
                process.close()
                with contextlib.suppress(asyncssh.Error, OSError, TimeoutError):
                    await asyncio.wait_for(process.wait_closed(), KILL_GRACE_SECONDS + 5)
            if result.exit_status is not None and result.exit_status >= 0:
                return result.exit_status
            if not result.exit_signal:
                raise AgentError(
                    f"the connection to {self.target.where} was lost while '{command[0]}' ran"
                )
            on_output(f"killed by the signal {result.exit_signal[0]}", True)
            return 255

    async def _start(self, line: str, program: str) -> asyncssh.SSHClientProcess:
        """``_open_process``, which a cancel does not interrupt: once sshd was asked to run the
        command it may be running, so a cancel waits for its channel and stops it."""
        opening = asyncio.ensure_future(self._open_process(line, program))
        try:
            return await asyncio.shield(opening)
        except asyncio.CancelledError:
            with contextlib.suppress(AgentError, TimeoutError):
                process = await asyncio.wait_for(opening, KILL_GRACE_SECONDS + 5)
                try:
                    await self._stop(process, [])
                finally:
                    process.close()
            raise

    async def _stop(self, process: asyncssh.SSHClientProcess, group: list[int]) -> None:
        """Kill the command's process group. A command stopped before its first line was read
        has sent its process id or is about to: it is read here first."""
        if not group:
            with contextlib.suppress(asyncssh.Error, OSError, TimeoutError, ValueError):
                first = await asyncio.wait_for(process.stdout.readline(), KILL_GRACE_SECONDS + 5)
                group.append(int(first))
        if group and group[0] > 0:
            await self._kill(group[0])

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
                        f"another session ({reason(error)}; is its MaxSessions below 10?)"
                    ) from None
                await asyncio.sleep(0.05)
            except (asyncssh.Error, OSError) as error:
                raise AgentError(
                    f"cannot run '{program}' on {self.target.where}: {reason(error)}"
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
                f"({reason(error)})"
            ) from None

    def _failed(self, doing: str, path: str, error: Exception) -> AgentError:
        if isinstance(error, asyncssh.SFTPNoSuchFile):
            return AgentError(f"cannot {doing} '{path}' on {self.server}: it does not exist")
        if isinstance(error, asyncssh.SFTPPermissionDenied):
            return AgentError(f"cannot {doing} '{path}' on {self.server}: permission denied")
        return AgentError(f"cannot {doing} '{path}' on {self.server}: {reason(error)}")

    async def read_file(self, path: str) -> bytes:
        sftp = await self._sftp("read", path)
        try:
            async with sftp.open(path, "rb") as handle:
                return await handle.read()
        except (asyncssh.SFTPError, OSError) as error:
            # what it is, asked only when it could not be read (not a trip more for every file)
            directory = False
            with contextlib.suppress(asyncssh.SFTPError, OSError):
                directory = await sftp.isdir(path)
            if directory:
                raise AgentError(f"'{path}' on {self.server} is a directory, not a file") from None
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

    async def read_chunk(self, path: str, offset: int, size: int) -> bytes:
        sftp = await self._sftp("read", path)
        try:
            async with sftp.open(path, "rb") as handle:
                await handle.seek(offset)
                return await handle.read(size)
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("read", path, error) from None

    async def write_chunk(self, path: str, data: bytes, offset: int) -> None:
        sftp = await self._sftp("write", path)
        try:
            if offset == 0 and posixpath.dirname(path):
                await sftp.makedirs(posixpath.dirname(path), exist_ok=True)
            async with sftp.open(path, "wb" if offset == 0 else "r+b") as handle:
                await handle.seek(offset)
                await handle.write(data)
        except (asyncssh.SFTPError, OSError) as error:
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

    async def set_modified(self, path: str, modified: float) -> None:
        sftp = await self._sftp("change the time of", path)
        try:
            await sftp.utime(path, (modified, modified))
        except (asyncssh.SFTPError, OSError) as error:
            raise self._failed("change the time of", path, error) from None

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

    async def environment_variables(self) -> dict[str, str]:
        """What ``env -0`` prints on the server (the login's environment, as commands see it),
        read once per agent."""
        if self._variables is None:
            lines: list[str] = []

            def keep(line: str, is_error: bool) -> None:
                if not is_error:
                    lines.append(line)

            code = await self.run(["env", "-0"], on_output=keep)
            if code != 0:
                raise AgentError(
                    f"cannot read the environment of {self.server}: env exited with code {code}"
                )
            self._variables = dict(
                entry.partition("=")[::2] for entry in "\n".join(lines).split("\0") if "=" in entry
            )
        return dict(self._variables)

    def join(self, *parts: str) -> str:
        return posixpath.join(*parts)

    async def close(self) -> None:
        pass  # the connection is the execution's (SshConnections.close)


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


async def _pump(
    stream: asyncssh.SSHReader, on_output: OutputHandler, is_error: bool, group: list[int] | None
) -> None:
    """Each line of a stream to ``on_output``; on standard output the first line is the shell's
    process id, kept in ``group``. Read as it comes, a piece at a time (a line at a time cost
    a package list of 1,000 lines 1,000 reads)."""
    pending: list[bytes] = []  # a line's start, in the pieces it came in
    while piece := await stream.read(PUMP_BYTES):
        if b"\n" not in piece:
            pending.append(piece)
            continue
        first, *lines, last = piece.split(b"\n")
        _line(b"".join([*pending, first]), on_output, is_error, group)
        for raw in lines:
            _line(raw, on_output, is_error, group)
        pending = [last] if last else []
    if pending:
        _line(b"".join(pending), on_output, is_error, group)


def _line(raw: bytes, on_output: OutputHandler, is_error: bool, group: list[int] | None) -> None:
    text = raw.decode("utf-8", errors="replace").rstrip("\r")
    if group is not None and not group:
        group.append(int(text) if text.isdigit() else 0)
        return
    on_output(text, is_error)
