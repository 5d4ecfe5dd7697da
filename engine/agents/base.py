"""The agent interface."""

from __future__ import annotations

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
    ) -> int:
        """Run a program, stream its output line by line, return its exit code. Cancelling the
        caller kills the process."""
        ...

    async def read_file(self, path: str) -> bytes: ...

    async def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None: ...

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

    def join(self, *parts: str) -> str: ...

    async def close(self) -> None: ...
