"""What operations read of a server that many of them need (its installed packages, a file's
lines), read once and shared until something changes the server: a drift check of 50 packages
asks the server once, not 50 times.

Each agent of the run is a WatchedAgent: what it reads leaves the facts known of its server as
they are; what may change the server (a program run, a file written, moved or deleted) makes
the run forget them, before and after the change. A program run to read a fact, or by an
operation's collect (which by contract changes nothing), is not a change.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TypeVar

from engine.agents import Agent, FileInfo, HttpAnswer, HttpRequest
from engine.agents.base import OutputHandler

T = TypeVar("T")

# set in the task that reads a fact: its programs read, they do not change the server
_READING = contextvars.ContextVar("reading_a_fact", default=False)


class Facts:
    """The facts of the run's servers, by agent and name."""

    __slots__ = ("known",)

    def __init__(self) -> None:
        self.known: dict[tuple[int, str], asyncio.Future] = {}

    async def get(self, agent: Agent, name: str, load: Callable[[], Awaitable[T]]) -> T:
        """The fact ``name`` of what ``agent`` reaches: ``load``-ed by its first reader (the
        others wait for that), then the same until the server changes."""
        key = (id(agent), name)
        known = self.known.get(key)
        if known is None:
            known = asyncio.ensure_future(_read(load))
            self.known[key] = known
            known.add_done_callback(lambda done: self._forget_failure(key, done))
        return await asyncio.shield(known)  # a reader cancelled leaves the others theirs

    def forget(self, agent: Agent) -> None:
        """The server that ``agent`` reaches changed (or may have): nothing known of it holds."""
        for key in [key for key in self.known if key[0] == id(agent)]:
            del self.known[key]

    def _forget_failure(self, key: tuple[int, str], done: asyncio.Future) -> None:
        if (done.cancelled() or done.exception() is not None) and self.known.get(key) is done:
            del self.known[key]  # the next reader tries again


async def _read(load: Callable[[], Awaitable[T]]) -> T:
    _READING.set(True)  # in this task's own context only
    return await load()


@contextlib.contextmanager
def reading() -> Iterator[None]:
    """Around what only reads the servers (an operation's collect): the programs it runs are
    no change."""
    token = _READING.set(True)
    try:
        yield
    finally:
        _READING.reset(token)


class WatchedAgent(Agent):
    """An agent whose changes to its server make the run forget the facts known of it."""

    def __init__(self, agent: Agent, facts: Facts) -> None:
        self.agent = agent
        self.facts = facts
        self.server = agent.server

    async def _changing(self, change: Awaitable[T]) -> T:
        self.facts.forget(self)
        try:
            return await change
        finally:
            self.facts.forget(self)  # what was read while it changed is forgotten too

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
        running = self.agent.run(
            command, on_output=on_output, cwd=cwd, env=env, stdin=stdin, privileged=privileged
        )
        return await running if _READING.get() else await self._changing(running)

    async def read_file(self, path: str) -> bytes:
        return await self.agent.read_file(path)

    async def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        await self._changing(self.agent.write_file(path, data, mode=mode))

    async def read_chunk(self, path: str, offset: int, size: int) -> bytes:
        return await self.agent.read_chunk(path, offset, size)

    async def write_chunk(self, path: str, data: bytes, offset: int) -> None:
        await self._changing(self.agent.write_chunk(path, data, offset))

    async def stat(self, path: str) -> FileInfo | None:
        return await self.agent.stat(path)

    async def list_dir(self, path: str, *, recursive: bool = False) -> list[FileInfo]:
        return await self.agent.list_dir(path, recursive=recursive)

    async def delete(self, path: str) -> None:
        await self._changing(self.agent.delete(path))

    async def move(self, source: str, destination: str) -> None:
        await self._changing(self.agent.move(source, destination))

    async def make_dirs(self, path: str) -> None:
        await self._changing(self.agent.make_dirs(path))

    async def set_mode(self, path: str, mode: int) -> None:
        await self._changing(self.agent.set_mode(path, mode))

    async def set_modified(self, path: str, modified: float) -> None:
        await self._changing(self.agent.set_modified(path, modified))

    async def http(self, request: HttpRequest) -> HttpAnswer:
        # a request from the server may reach the server itself, and change it
        return await self._changing(self.agent.http(request))

    async def environment_variables(self) -> dict[str, str]:
        return await self.agent.environment_variables()

    def join(self, *parts: str) -> str:
        return self.agent.join(*parts)

    async def close(self) -> None:
        self.facts.forget(self)
        await self.agent.close()
