"""What every part of a run shares: the host, whether the run is a simulation, the log (secrets
masked), the agents open on the servers and the facts read of them."""

from __future__ import annotations

import contextlib
from typing import Any

from engine.agents import Agent
from engine.interpreter.context import Context
from engine.interpreter.errors import ExecutionError
from engine.interpreter.facts import Facts, WatchedAgent
from engine.interpreter.host import (
    CredentialRefused,
    Host,
    RunCredential,
    check_credential_kind,
)
from engine.interpreter.logs import Level, Logger, Masker
from engine.interpreter.results import Status


class Session:
    """The run's host, log and agents; a log line's warning or error sets its strand's status."""

    __slots__ = ("agents", "facts", "host", "logger", "masker", "simulate")

    def __init__(self, host: Host, *, simulate: bool) -> None:
        self.host = host
        self.simulate = simulate
        self.masker = Masker()
        self.logger = Logger(host.sink, self.masker)
        # one per server and credential; an isolation block keeps its own (Context.agents)
        self.agents: dict[tuple[str, str], Agent] = {}
        self.facts = Facts()

    def log(self, level: Level, message: str, context: Context | None, line: int | None) -> None:
        """Write a line in the context's log scope; a warning or an error sets the status of the
        context's strand."""
        self.logger.write(level, message, context.log if context else None, line)
        if context is None:
            return
        strand = context.strand
        if level >= Level.ERROR:
            strand.status = Status.ERROR
        elif level >= Level.WARNING and strand.status < Status.WARNING:
            strand.status = Status.WARNING

    def report(
        self, error: ExecutionError, context: Context | None, line: int | None = None
    ) -> None:
        """Log an error with its position, unless that was done where it happened."""
        if not error.logged:
            where = error.span.line if error.span else line
            self.log(Level.ERROR, error.message + error.where(), context, where)
            error.logged = True

    def credential(
        self, name: str, context: Context, span: Any, *, kinds=None, use: str = ""
    ) -> RunCredential:
        """The credential ``name`` for use on the server in context (its secret masked from
        now on); an ExecutionError when it does not exist, the host refuses it there, or it is
        of none of ``kinds`` (what ``use`` accepts; None: any)."""
        try:
            credential = self.host.credential(
                name, server=context.server if context.targeted else None
            )
            if credential is not None and kinds is not None:
                check_credential_kind(credential, kinds, use=use)
        except CredentialRefused as refused:
            raise ExecutionError(str(refused), span) from None
        if credential is None:
            raise ExecutionError(
                f"credential '{name}' does not exist, or this execution may not use it", span
            )
        self.masker.add(credential.secret)
        self.masker.add(credential.passphrase)
        return credential

    async def agent(self, context: Context) -> Agent:
        """The agent for the server in context (one per server and credential, or per
        isolation block)."""
        cache = context.agents if context.agents is not None else self.agents
        key = (context.server.casefold(), context.credential.name if context.credential else "")
        agent = cache.get(key)
        if agent is None:
            opened = await self.host.agent(context.server, credential=context.credential)
            agent = cache[key] = WatchedAgent(opened, self.facts)
        return agent


async def close_agents(agents: dict[tuple[str, str], Agent]) -> None:
    for agent in agents.values():
        with contextlib.suppress(Exception):
            await agent.close()
    agents.clear()
