"""The agent interface."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

# called with each line of output as it arrives, and whether it came from standard error
OutputHandler = Callable[[str, bool], None]


class AgentError(Exception):
    """An agent could not do what was asked: the message says what, where, and why."""


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str
    name: str
    is_directory: bool
    size: int
    modified: float  # seconds since the epoch, UTC
    mode: int


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    status: int
    reason: str
    body: bytes


@dataclass(frozen=True, slots=True)
class HttpRequest:
    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes | None = None
    timeout: float = 60.0
    verify_tls: bool = True

    def as_json(self) -> dict:
        """The request as engine/agents/http_request.py takes it."""
        return {
            "method": self.method,
            "url": self.url,
            "headers": dict(self.headers),
            "body": base64.b64encode(self.body).decode("ascii") if self.body is not None else None,
            "timeout": self.timeout,
            "insecure": not self.verify_tls,
        }


def http_answer(answer: dict) -> HttpAnswer:
    """http_request.py's answer, or the AgentError it reports."""
    if "error" in answer:
        raise AgentError(answer["error"])
    return HttpAnswer(answer["status"], answer["reason"], base64.b64decode(answer["body"]))


class Agent(Protocol):
    """A connection to one server."""

    server: str

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
        """Run a program, stream its output line by line, return its exit code. Cancelling the
        caller kills the process. ``privileged=False`` is for a read that any user may make (the
        installed packages, the users): over SSH it runs as the login user, not through the
        server's sudo."""
        ...

    async def read_file(self, path: str) -> bytes: ...

    async def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None: ...

    async def read_chunk(self, path: str, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes of the file at ``path`` from ``offset`` (none past its end):
        a large file read a piece at a time."""
        ...

    async def write_chunk(self, path: str, data: bytes, offset: int) -> None:
        """``data`` written into the file at ``path`` at ``offset``; at 0 the file (and its
        folder) is made, or emptied, first."""
        ...

    async def stat(self, path: str) -> FileInfo | None:
        """The file or directory at ``path``, or None when there is none."""
        ...

    async def list_dir(self, path: str, *, recursive: bool = False) -> list[FileInfo]: ...

    async def delete(self, path: str) -> None:
        """Delete a file, or a directory and everything in it. Nothing there is not an error."""
        ...

    async def move(self, source: str, destination: str) -> None: ...

    async def make_dirs(self, path: str) -> None: ...

    async def set_mode(self, path: str, mode: int) -> None: ...

    async def set_modified(self, path: str, modified: float) -> None:
        """Set the file's modified time (seconds since the epoch)."""
        ...

    async def http(self, request: HttpRequest) -> HttpAnswer:
        """Make an HTTP request from the server (an error status is an answer, not an error)."""
        ...

    async def environment_variables(self) -> dict[str, str]:
        """The environment variables the server's processes start with (as the agent runs
        them: the run user's on the local server, the login's over SSH)."""
        ...

    def join(self, *parts: str) -> str: ...

    async def close(self) -> None: ...
