"""The local agent: processes and files on the machine the engine runs on."""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import signal
import stat as stat_module
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from engine.agents import http_request
from engine.agents.base import (
    AgentError,
    FileInfo,
    HttpAnswer,
    HttpRequest,
    OutputHandler,
    http_answer,
)

KILL_GRACE_SECONDS = 2.0
# The variables of the server's own process that the processes of its runs never see: its
# settings, keys and database addresses.
HIDDEN_PREFIXES = ("OTTERWEB_", "DJANGO_", "CELERY_")

# On Linux, util-linux's setpriv starts each process with a parent-death signal: when the thread
# that started it dies (the whole server killed), the kernel kills it. Its children are found by
# their recorded process group instead (``on_process``).
PARENT_DEATH = shutil.which("setpriv") if sys.platform == "linux" else None

# Told each process group a run starts (True) and ends (False), to kill what a crash left behind.
ProcessHandler = Callable[[int, bool], None]


def run_environment(
    base: Mapping[str, str] | None = None, *, user: str | None = None
) -> dict[str, str]:
    """The environment local processes start with: ``base`` (this process's by default) without
    the server's own variables; for another ``user``, that user's HOME, USER and LOGNAME."""
    environment = {
        name: value
        for name, value in (os.environ if base is None else base).items()
        if not name.upper().startswith(HIDDEN_PREFIXES)
    }
    if user:
        try:
            account = pwd.getpwnam(user)
        except KeyError:
            raise AgentError(f"the user '{user}' that local runs use does not exist") from None
        environment.update(HOME=account.pw_dir, USER=user, LOGNAME=user)
    return environment


class LocalAgent:
    """Runs on this machine. Blocking file work goes to a thread so the event loop stays free.

    Processes run as ``user`` when given (the server must be root to switch), in
    ``working_directory`` unless a step names another, with ``environment`` (by default this
    process's without the server's own variables). ``on_process`` hears of each process group."""

    def __init__(
        self,
        server: str = "localhost",
        *,
        user: str | None = None,
        environment: Mapping[str, str] | None = None,
        working_directory: str | None = None,
        on_process: ProcessHandler | None = None,
    ) -> None:
        self.server = server
        self.user = user or None
        self.environment = dict(
            run_environment(user=self.user) if environment is None else environment
        )
        self.working_directory = working_directory
        self.on_process = on_process

    async def run(
        self,
        command: list[str],
        *,
        on_output: OutputHandler,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
    ) -> int:
        cwd = cwd or self.working_directory
        environment = {**self.environment, **(env or {})}
        launched = command
        if PARENT_DEATH is not None:
            _check_runnable(command[0], cwd, environment, self.server)
            launched = [PARENT_DEATH, "--pdeathsig", "KILL", "--", *command]
        try:
            process = await asyncio.create_subprocess_exec(
                *launched,
                cwd=cwd,
                env=environment,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group, so a kill reaches its children
                user=self.user,
            )
        except FileNotFoundError as error:
            raise AgentError(
                f"cannot run '{command[0]}' on {self.server}: no such program or directory ({error.filename})"
            ) from None
        except PermissionError:
            raise AgentError(
                f"cannot run '{command[0]}' on {self.server}: permission denied"
            ) from None
        except NotADirectoryError:
            raise AgentError(
                f"cannot run '{command[0]}' on {self.server}: working directory '{cwd}' is not a directory"
            ) from None
        if self.on_process is not None:
            self.on_process(process.pid, True)
        try:
            if stdin is not None and process.stdin is not None:  # a pipe when there is input
                process.stdin.write(stdin)
                await process.stdin.drain()
                process.stdin.close()
            assert process.stdout is not None and process.stderr is not None  # both are pipes
            await asyncio.gather(
                _pump(process.stdout, on_output, False),
                _pump(process.stderr, on_output, True),
            )
            return await process.wait()
        except BaseException:
            await _kill(process)
            raise
        finally:
            if self.on_process is not None:
                self.on_process(process.pid, False)

    async def read_file(self, path: str) -> bytes:
        try:
            return await asyncio.to_thread(Path(path).read_bytes)
        except FileNotFoundError:
            raise AgentError(f"file '{path}' does not exist on {self.server}") from None
        except IsADirectoryError:
            raise AgentError(f"'{path}' on {self.server} is a directory, not a file") from None
        except PermissionError:
            raise AgentError(f"cannot read '{path}' on {self.server}: permission denied") from None

    async def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        def write() -> None:
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if mode is not None:
                target.chmod(mode)

        try:
            await asyncio.to_thread(write)
        except PermissionError:
            raise AgentError(f"cannot write '{path}' on {self.server}: permission denied") from None
        except IsADirectoryError:
            raise AgentError(f"cannot write '{path}' on {self.server}: it is a directory") from None

    async def stat(self, path: str) -> FileInfo | None:
        def look() -> FileInfo | None:
            try:
                result = os.stat(path)
            except (FileNotFoundError, NotADirectoryError):
                return None
            return _info(path, result)

        return await asyncio.to_thread(look)

    async def list_dir(self, path: str, *, recursive: bool = False) -> list[FileInfo]:
        def scan() -> list[FileInfo]:
            found: list[FileInfo] = []
            pending = [path]
            while pending:
                current = pending.pop()
                with os.scandir(current) as entries:
                    for entry in entries:
                        info = _info(entry.path, entry.stat(follow_symlinks=False))
                        found.append(info)
                        if recursive and info.is_directory:
                            pending.append(entry.path)
            return sorted(found, key=lambda i: i.path)

        try:
            return await asyncio.to_thread(scan)
        except FileNotFoundError:
            raise AgentError(f"directory '{path}' does not exist on {self.server}") from None
        except NotADirectoryError:
            raise AgentError(f"'{path}' on {self.server} is not a directory") from None

    async def delete(self, path: str) -> None:
        def remove() -> None:
            target = Path(path)
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            else:
                target.unlink(missing_ok=True)

        try:
            await asyncio.to_thread(remove)
        except PermissionError:
            raise AgentError(
                f"cannot delete '{path}' on {self.server}: permission denied"
            ) from None

    async def move(self, source: str, destination: str) -> None:
        try:
            await asyncio.to_thread(shutil.move, source, destination)
        except FileNotFoundError:
            raise AgentError(
                f"cannot move '{source}' on {self.server}: it does not exist"
            ) from None

    async def make_dirs(self, path: str) -> None:
        try:
            await asyncio.to_thread(os.makedirs, path, exist_ok=True)
        except FileExistsError:
            raise AgentError(
                f"cannot create directory '{path}' on {self.server}: a file is in the way"
            ) from None

    async def set_mode(self, path: str, mode: int) -> None:
        try:
            await asyncio.to_thread(os.chmod, path, mode)
        except FileNotFoundError:
            raise AgentError(f"'{path}' does not exist on {self.server}") from None

    async def http(self, request: HttpRequest) -> HttpAnswer:
        return http_answer(await asyncio.to_thread(http_request.send, request.as_json()))

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)

    async def close(self) -> None:
        pass


def _check_runnable(
    program: str, cwd: str | None, environment: Mapping[str, str], server: str
) -> None:
    """The errors that starting ``program`` itself would give, said before a wrapper starts it."""
    if cwd is not None and not os.path.isdir(cwd):
        if os.path.exists(cwd):
            raise AgentError(
                f"cannot run '{program}' on {server}: working directory '{cwd}' is not a directory"
            )
        raise AgentError(
            f"cannot run '{program}' on {server}: no such program or directory ({cwd})"
        )
    if "/" in program:  # a path, from the working directory when relative
        path = os.path.join(cwd or "", program)
        found = path if os.path.exists(path) else None
    else:
        found = shutil.which(program, mode=os.F_OK, path=environment.get("PATH", os.defpath))
    if found is None:
        raise AgentError(
            f"cannot run '{program}' on {server}: no such program or directory ({program})"
        )
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise AgentError(f"cannot run '{program}' on {server}: permission denied")


def _info(path: str, result: os.stat_result) -> FileInfo:
    return FileInfo(
        path=path,
        name=os.path.basename(path.rstrip("/")) or path,
        is_directory=stat_module.S_ISDIR(result.st_mode),
        size=result.st_size,
        modified=result.st_mtime,
        mode=stat_module.S_IMODE(result.st_mode),
    )


async def _pump(stream: asyncio.StreamReader, on_output: OutputHandler, is_error: bool) -> None:
    while True:
        line = await stream.readline()
        if not line:
            return
        on_output(line.decode("utf-8", errors="replace").rstrip("\r\n"), is_error)


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Stop a process and its children: SIGTERM to its group, then SIGKILL after a grace period."""
    if process.returncode is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), KILL_GRACE_SECONDS)
            return
        except TimeoutError:
            continue
