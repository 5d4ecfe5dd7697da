"""The local agent: processes and files on the machine the engine runs on, through a helper.

Nothing the agent does to the machine happens in the engine's own process. On a run's first
local action the agent starts a helper process (engine/agents/local_helper.py) as the run user
(its uid, primary group and supplementary groups: ``setgroups``, ``setgid``, ``setuid``) with the
run's environment, and asks it for every process, file, directory, HTTP request and environment
variable, over its standard input and output, as the SSH agent asks sshd. The kernel checks
each of them against the run user's rights, not OtterWeb's. The helper is started with the
system's base interpreter in isolated mode and reads its code from its standard input, so that
the run user needs no access to the repository or the virtual environment.

Closing the agent (the end of the run) makes the helper kill every process the run started,
``setsid`` and double-forked ones included (the helper is their subreaper), and exit; so does the
death of the process that started it (its parent-death signal)."""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import importlib.util
import itertools
import json
import marshal
import os
import pwd
import shutil
import stat as stat_module
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

# util-linux's setpriv, which starts a process with a parent-death signal (bench/engine.py
# measures what it costs; the helper sets its own with prctl).
PARENT_DEATH = shutil.which("setpriv") if sys.platform == "linux" else None

# Told each process group a run starts (True) and ends (False), the helper's own included, to
# kill what a crash left behind.
ProcessHandler = Callable[[int, bool], None]

_HERE = Path(__file__).parent
HELPER_SOURCE = (_HERE / "local_helper.py").read_text(encoding="utf-8")
HTTP_SOURCE = (_HERE / "http_request.py").read_text(encoding="utf-8")
# What the helper's interpreter runs: read a length, then that many bytes, and run them: "C" and
# the helper compiled (marshal), or "S" and its source. Its standard input is the protocol's from
# then on, so it reads no byte more.
BOOTSTRAP = """import marshal, os
size = b""
while not size.endswith(b"\\n"):
    byte = os.read(0, 1)
    if not byte:
        raise SystemExit(1)
    size += byte
source = bytearray()
while len(source) < int(size):
    part = os.read(0, int(size) - len(source))
    if not part:
        raise SystemExit(1)
    source += part
body = bytes(source[1:])
if source[:1] == b"C":
    exec(marshal.loads(body))
else:
    exec(compile(body, "otterweb-local-helper", "exec"))
"""
PROGRAM_NAME = "otterweb-local-helper"  # its first argument: what `ps` shows of it

# Said for the errno names the helper reports, after "cannot <do> '<path>' on <server>: ".
REASONS = {
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "ENOENT": "it does not exist",
    "ENOTDIR": "a part of the path is not a directory",
    "EISDIR": "it is a directory",
    "EEXIST": "a file is in the way",
    "ENOTEMPTY": "the directory is not empty",
    "ENOSPC": "no space is left on the device",
    "EDQUOT": "the disk quota is exceeded",
    "EROFS": "the file system is read-only",
    "ELOOP": "too many symbolic links",
    "ENAMETOOLONG": "the name is too long",
    "EXDEV": "it is on another file system",
}


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
        account = _account(user)
        environment.update(HOME=account.pw_dir, USER=user, LOGNAME=user)
    return environment


class LocalAgent:
    """Runs on this machine, through a helper process started on the first action.

    The helper (and so every process and file operation) runs as ``user`` when given (the
    server must be root to switch), in ``working_directory`` unless a step names another, with
    ``environment`` (by default this process's without the server's own variables).
    ``on_process`` hears of each process group: the helper's, and each process's."""

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
        self._helper: _Helper | None = None
        self._starting: asyncio.Lock | None = None
        self._closed = False
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
        privileged: bool = True,  # the local agent runs everything as the run's user
    ) -> int:
        if not command:
            raise AgentError(f"no program to run on {self.server}")
        helper = await self._started()
        cwd = cwd or self.working_directory
        started: list[int] = []

        def on_message(message: dict) -> None:
            if "started" in message:
                started.append(message["started"])
                if self.on_process is not None:
                    self.on_process(message["started"], True)
            for line in message.get("out", ()):
                on_output(line, bool(message.get("err")))

        request = helper.request(
            "run",
            {
                "command": list(command),
                "cwd": cwd,
                "env": dict(env or {}),
                "stdin": _encode(stdin) if stdin is not None else None,
            },
            on_message,
        )
        try:
            result = await asyncio.shield(request.answer)
        except asyncio.CancelledError:
            await helper.cancel(request)
            raise
        except _Refused as refused:
            raise self._run_error(command[0], cwd, refused.error) from None
        except BaseException:  # on_output failed: the process is stopped, the error goes on
            await helper.cancel(request)
            raise
        finally:
            if started and self.on_process is not None:
                self.on_process(started[0], False)
        return result["code"]

    # ---- files

    async def read_file(self, path: str) -> bytes:
        return _decode(await self._ask("read_file", "read", path, path=path))

    async def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        await self._ask("write_file", "write", path, path=path, data=_encode(data), mode=mode)

    async def read_chunk(self, path: str, offset: int, size: int) -> bytes:
        return _decode(
            await self._ask("read_chunk", "read", path, path=path, offset=offset, size=size)
        )

    async def write_chunk(self, path: str, data: bytes, offset: int) -> None:
        await self._ask("write_chunk", "write", path, path=path, data=_encode(data), offset=offset)

    async def stat(self, path: str) -> FileInfo | None:
        found = await self._ask("stat", "look at", path, path=path)
        return FileInfo(**found) if found is not None else None

    async def list_dir(self, path: str, *, recursive: bool = False) -> list[FileInfo]:
        found = await self._ask("list_dir", "list", path, path=path, recursive=recursive)
        return [FileInfo(**item) for item in found]

    async def delete(self, path: str) -> None:
        await self._ask("delete", "delete", path, path=path)

    async def move(self, source: str, destination: str) -> None:
        await self._ask("move", "move", source, source=source, destination=destination)

    async def make_dirs(self, path: str) -> None:
        await self._ask("make_dirs", "create directory", path, path=path)

    async def set_mode(self, path: str, mode: int) -> None:
        await self._ask("set_mode", "change the mode of", path, path=path, mode=mode)

    async def set_modified(self, path: str, modified: float) -> None:
        await self._ask("set_modified", "change the time of", path, path=path, modified=modified)

    # ---- the rest

    async def http(self, request: HttpRequest) -> HttpAnswer:
        return http_answer(
            await self._ask(
                "http", "send an HTTP request to", request.url, request=request.as_json()
            )
        )

    async def environment_variables(self) -> dict[str, str]:
        if self._variables is None:
            self._variables = await self._ask("environment", "read the environment of", "")
        return dict(self._variables)

    def join(self, *parts: str) -> str:
        return os.path.join(*parts)

    async def close(self) -> None:
        """Kill every process the run started, and stop the helper."""
        self._closed = True
        helper, self._helper = self._helper, None
        if helper is not None:
            await helper.close()
            if self.on_process is not None:
                self.on_process(helper.pid, False)

    @property
    def helper_pid(self) -> int | None:
        """The helper's process id, once it is started."""
        return self._helper.pid if self._helper is not None else None

    # ---- the helper

    async def _started(self) -> _Helper:
        if self._helper is not None:
            return self._helper
        if self._closed:
            raise AgentError(f"the local agent of {self.server} is closed")
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._helper is None:
                self._helper = await _Helper.start(
                    server=self.server,
                    user=self.user,
                    environment=self.environment,
                    directory=self.working_directory or os.getcwd(),
                )
                if self.on_process is not None:
                    self.on_process(self._helper.pid, True)
        return self._helper

    async def _ask(self, op: str, doing: str, path: str, /, **arguments: Any) -> Any:
        helper = await self._started()
        try:
            return await helper.request(op, arguments).answer
        except _Refused as refused:
            raise self._error(op, doing, path, refused.error) from None

    def _error(self, op: str, doing: str, path: str, error: dict) -> AgentError:
        """The error of a file operation, in the words the operations have always used."""
        code = error.get("errno")
        # the path asked for, or the one inside it that failed (a folder met while listing)
        named = error.get("filename") or path
        if not named.startswith(path):
            named = path
        if "message" in error:
            return AgentError(f"cannot {doing} '{path}' on {self.server}: {error['message']}")
        if op in ("read_file", "read_chunk") and code == "ENOENT" and named == path:
            return AgentError(f"file '{path}' does not exist on {self.server}")
        if op in ("read_file", "read_chunk") and code == "EISDIR":
            return AgentError(f"'{path}' on {self.server} is a directory, not a file")
        if op == "list_dir" and named == path and code in ("ENOENT", "ENOTDIR"):
            if code == "ENOENT":
                return AgentError(f"directory '{path}' does not exist on {self.server}")
            return AgentError(f"'{path}' on {self.server} is not a directory")
        if op == "set_mode" and code == "ENOENT" and named == path:
            return AgentError(f"'{path}' does not exist on {self.server}")
        reason = REASONS.get(code or "") or str(error.get("strerror", "")).lower()
        return AgentError(f"cannot {doing} '{named}' on {self.server}: {reason}")

    def _run_error(self, program: str, cwd: str | None, error: dict) -> AgentError:
        code = error.get("errno")
        where = f"cannot run '{program}' on {self.server}"
        if code == "ENOENT":
            return AgentError(
                f"{where}: no such program or directory ({error.get('filename') or program})"
            )
        if code == "EACCES":
            return AgentError(f"{where}: permission denied")
        if code == "ENOTDIR" and cwd and error.get("filename") == cwd:
            return AgentError(f"{where}: working directory '{cwd}' is not a directory")
        if "message" in error:
            return AgentError(f"{where}: {error['message']}")
        return AgentError(
            f"{where}: {REASONS.get(code or '') or str(error.get('strerror', '')).lower()}"
        )


# ---- the helper process


class _Refused(Exception):
    """The helper could not do what was asked: ``error`` is its report."""

    def __init__(self, error: dict) -> None:
        super().__init__(error)
        self.error = error


@dataclass(eq=False)
class _Request:
    number: int
    answer: asyncio.Future
    on_message: Callable[[dict], None] | None = None
    failure: BaseException | None = None


class _Helper:
    """One helper process and the requests waiting for its answers."""

    def __init__(self, process: asyncio.subprocess.Process, server: str, user: str | None) -> None:
        self.process = process
        self.pid = process.pid
        self.server = server
        self.user = user
        self.numbers = itertools.count(1)
        self.waiting: dict[int, _Request] = {}
        self.errors: collections.deque[str] = collections.deque(maxlen=20)
        self.gone: str | None = None  # why the helper stopped answering
        self.reading = asyncio.ensure_future(self._read())
        self.reading_errors = asyncio.ensure_future(self._read_errors())

    @classmethod
    async def start(
        cls, *, server: str, user: str | None, environment: Mapping[str, str], directory: str
    ) -> _Helper:
        switch: dict[str, Any] = {}
        account = None
        if user is not None:
            account = _account(user)
            switch = {
                "user": account.pw_uid,
                "group": account.pw_gid,
                "extra_groups": os.getgrouplist(user, account.pw_gid),
            }
        python = interpreter(account)
        as_whom = f" as the user '{user}'" if user else ""
        # entered before the switch to the run user: the run's own folder, even where the
        # folders above it are not the run user's to pass through
        directory = directory if os.path.isdir(directory) else "/"
        try:
            process = await asyncio.create_subprocess_exec(
                python,
                "-I",
                "-S",
                "-c",
                BOOTSTRAP,
                PROGRAM_NAME,
                str(os.getpid()),
                directory,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=dict(environment),
                cwd=directory,
                start_new_session=True,
                **switch,
            )
        except OSError as error:
            raise AgentError(
                f"cannot start the local helper on {server}{as_whom} with {python}: "
                f"{error.strerror or error}"
            ) from None
        code = await _program(python)
        assert process.stdin is not None  # a pipe
        process.stdin.write(b"%d\n" % len(code) + code)
        return cls(process, server, user)

    def request(
        self, op: str, arguments: dict, on_message: Callable[[dict], None] | None = None
    ) -> _Request:
        """Send a request; its answer arrives in ``.answer`` (a _Refused when refused)."""
        request = _Request(next(self.numbers), asyncio.get_running_loop().create_future())
        request.on_message = on_message
        if self.gone is not None:
            request.answer.set_exception(AgentError(self.gone))
            return request
        self.waiting[request.number] = request
        self._send({"id": request.number, "op": op, **arguments})
        return request

    async def cancel(self, request: _Request) -> None:
        """Stop a run's process, and wait until it is stopped."""
        if request.answer.done():
            return
        self._send({"op": "cancel", "target": request.number})
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(request.answer), KILL_GRACE_SECONDS + 5)

    async def close(self) -> None:
        """Have the helper kill every process of the run and exit; kill it if it does not."""
        # What the helper could not kill (a set-user-ID program's process) is left to the
        # housekeeper, which checks each process's markers itself: the helper's answers are
        # the run user's word, never a list of processes to kill with OtterWeb's rights.
        if self.gone is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.request("close", {}).answer, KILL_GRACE_SECONDS + 5)
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), KILL_GRACE_SECONDS + 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        for task in (self.reading, self.reading_errors):
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 1)

    def _send(self, message: dict) -> None:
        assert self.process.stdin is not None  # a pipe
        data = json.dumps(message, separators=(",", ":")).encode("utf-8", "surrogateescape")
        self.process.stdin.write(data + b"\n")

    async def _read(self) -> None:
        """Hand each message to the request it answers; when the helper stops, fail the rest."""
        stream = self.process.stdout
        assert stream is not None  # a pipe
        buffer = bytearray()
        scanned = 0
        try:
            while chunk := await stream.read(1 << 18):
                buffer += chunk
                while (end := buffer.find(b"\n", scanned)) >= 0:
                    self._receive(json.loads(bytes(buffer[:end])))
                    del buffer[: end + 1]
                    scanned = 0
                scanned = len(buffer)
        except asyncio.CancelledError:  # the event loop ends with the agent never closed
            self._fail(f"the local agent of {self.server} was dropped before it was closed")
            if self.process.stdin is not None:
                self.process.stdin.close()  # the helper kills what the run started, and exits
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self.process.wait(), KILL_GRACE_SECONDS + 3)
            raise
        except Exception as error:  # a message that is not one: the helper is not trusted on
            self._fail(f"the local helper of {self.server} said what cannot be read ({error})")
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            return
        try:
            code = await asyncio.wait_for(self.process.wait(), KILL_GRACE_SECONDS + 5)
        except TimeoutError:
            code = None
        last = f" ({self.errors[-1]})" if self.errors else ""
        self._fail(
            f"the local helper of {self.server} stopped (exit code {code}){last}"
            if code
            else f"the local helper of {self.server} has ended"
        )

    def _fail(self, reason: str) -> None:
        """No more answers will come: every request waiting fails with ``reason``."""
        if self.gone is None:
            self.gone = reason
        for request in self.waiting.values():
            if not request.answer.done():
                request.answer.set_exception(AgentError(self.gone))
        self.waiting.clear()

    def _receive(self, message: dict) -> None:
        request = self.waiting.get(message.get("id", -1))
        if request is None:
            return
        if "result" in message or "error" in message:
            del self.waiting[request.number]
            if request.answer.done():
                return
            if request.failure is not None:
                request.answer.set_exception(request.failure)
            elif "error" in message:
                request.answer.set_exception(_Refused(message["error"]))
            else:
                request.answer.set_result(message["result"])
        elif request.on_message is not None and request.failure is None:
            try:
                request.on_message(message)
            except Exception as failure:  # the process is stopped; the run hears of it
                request.failure = failure
                self._send({"op": "cancel", "target": request.number})

    async def _read_errors(self) -> None:
        stream = self.process.stderr
        assert stream is not None  # a pipe
        while chunk := await stream.read(1 << 16):
            for line in chunk.decode("utf-8", "replace").splitlines():
                if line.strip():
                    self.errors.append(line.strip()[:500])


# ---- the interpreter, the program and the user

_programs: dict[str, bytes] = {}


async def _program(python: str) -> bytes:
    """What the bootstrap of ``python`` runs: the helper compiled here (it starts faster: no
    compile at each start) when that interpreter reads this one's bytecode, else its source."""
    if python not in _programs:
        source = HELPER_SOURCE + f"\nmain(http_source={HTTP_SOURCE!r})\n"
        if await _magic(python) == importlib.util.MAGIC_NUMBER:
            _programs[python] = b"C" + marshal.dumps(compile(source, PROGRAM_NAME, "exec"))
        else:
            _programs[python] = b"S" + source.encode("utf-8")
    return _programs[python]


async def _magic(python: str) -> bytes | None:
    """The bytecode version of ``python`` (asked once, of the interpreter run as OtterWeb's
    user: nothing a run could answer for it)."""
    if python == os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable):
        return importlib.util.MAGIC_NUMBER
    try:
        process = await asyncio.create_subprocess_exec(
            python,
            "-I",
            "-S",
            "-c",
            "import importlib.util, sys; sys.stdout.write(importlib.util.MAGIC_NUMBER.hex())",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env={"PATH": os.defpath},
        )
        output, _ = await asyncio.wait_for(process.communicate(), 10)
        return bytes.fromhex(output.decode("ascii").strip())
    except (OSError, ValueError, TimeoutError):
        return None


def _account(user: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(user)
    except KeyError:
        raise AgentError(f"the user '{user}' that local runs use does not exist") from None


_interpreters: dict[int | None, str] = {}


def interpreter(account: pwd.struct_passwd | None = None) -> str:
    """A Python the helper's user may run: this one's base interpreter, or the system's when
    that user cannot reach it (e.g. one under root's 0700 home)."""
    key = account.pw_uid if account is not None else None
    if key in _interpreters:
        return _interpreters[key]
    candidates = [
        getattr(sys, "_base_executable", None) or sys.executable,
        sys.executable,
        "/usr/bin/python3",
        "/usr/local/bin/python3",
        shutil.which("python3") or "",
    ]
    chosen = None
    for candidate in candidates:
        if not candidate:
            continue
        real = os.path.realpath(candidate)
        if not os.path.isfile(real):
            continue
        if account is None or _reachable(real, account):
            chosen = real
            break
    if chosen is None:
        raise AgentError(
            "no Python interpreter that the user "
            f"'{account.pw_name if account else 'of OtterWeb'}' may run was found "
            f"(tried {', '.join(c for c in candidates if c)})"
        )
    _interpreters[key] = chosen
    return chosen


def _reachable(path: str, account: pwd.struct_passwd) -> bool:
    """Whether ``account`` may run the program at ``path`` and read what beside it it needs:
    every folder on the way searchable, the program readable and executable, its folder's
    parent (where the standard library is) searchable."""
    if account.pw_uid == 0:
        return True
    groups = set(os.getgrouplist(account.pw_name, account.pw_gid))

    def allows(target: str, wanted: int) -> bool:
        try:
            info = os.stat(target)
        except OSError:
            return False
        if info.st_uid == account.pw_uid:
            bits = (info.st_mode >> 6) & 7
        elif info.st_gid in groups:
            bits = (info.st_mode >> 3) & 7
        else:
            bits = info.st_mode & 7
        return bits & wanted == wanted

    folder = os.path.dirname(path)
    while True:
        if not allows(folder, 1):
            return False
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return allows(path, 5) and stat_module.S_ISREG(os.stat(path).st_mode)


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _decode(text: str) -> bytes:
    return base64.b64decode(text)
