"""The engine's host for executions of the web application: the inventory as it was when the
execution started, rafts from the database, and the database log sink."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from engine import (
    Agent,
    AgentError,
    CredentialRefused,
    Host,
    HostKeyUntrusted,
    LockProvider,
    Manager,
    Package,
    RunCredential,
    SmtpServer,
    SshConnections,
    Value,
)
from otterweb.execution_logs.sink import DatabaseLogSink
from otterweb.executions.local_runs import local_agent
from otterweb.inventory.checks import (
    record_offered_key,
    remember_host_key,
    run_credential,
    ssh_target,
)
from otterweb.inventory.models import Credential, Environment, Role, Server
from otterweb.inventory.selectors import (
    ResolvedVariable,
    active_servers,
    global_variables,
    resolve_variables,
    variable_at,
    variable_table,
)
from otterweb.inventory.services import record_packages, set_variable
from otterweb.privileges.checks import RUN, forget, may
from otterweb.rafts.models import RaftItem
from otterweb.rafts.selectors import find_item

LOCAL_SERVER = "localhost"
RAFT_KINDS = {
    "module": (RaftItem.Kind.MODULE, RaftItem.Kind.SCRIPT),
    "script": (RaftItem.Kind.SHELL_SCRIPT, RaftItem.Kind.SCRIPT),
    "template": (RaftItem.Kind.TEMPLATE, RaftItem.Kind.ASSET),
    "asset": (RaftItem.Kind.ASSET, RaftItem.Kind.TEMPLATE),
}


class DjangoHost(Host):
    """Build it with ``DjangoHost.load(...)`` in synchronous code: the engine calls the
    inventory methods on its event loop, where the database must not be touched."""

    sink: DatabaseLogSink
    may_run_locally: bool
    # by case-folded server name
    _servers: dict[str, Server]
    _roles: dict[str, list[str]]
    _environments: dict[str, list[str]]
    _lineages: dict[str, set[str]]
    _logins: dict[str, Credential]
    _principal: Any  # on whose behalf it runs (None: OtterWeb itself)
    _runnable: set[str] | None  # the servers the principal may run on (None: any)
    # by case-folded server name and role name (None: outside any role), then variable name
    _variables: dict[tuple[str, str | None], dict[str, ResolvedVariable]]
    _global: dict[str, ResolvedVariable]
    _sensitive: list[Value]
    _credentials: dict[str, tuple[Credential, list[str]]]  # and the environments it is limited to
    _connections: SshConnections | None
    _new_host_keys: list[tuple[str, str]]

    @classmethod
    def load(
        cls,
        *,
        sink: DatabaseLogSink,
        execution_id: str,
        working_directory: str,
        raft: str | None = None,
        locks: LockProvider | None = None,
        may_run_locally: bool = True,
        principal=None,
        targets: Collection[str] = (),
    ) -> DjangoHost:
        """``principal``: on whose behalf it runs (None: OtterWeb itself). Besides ``targets``
        (checked when the job was made, with the permission its kind needs), a script may reach
        only the servers where the principal may run scripts."""
        host = cls(
            sink=sink,
            execution_id=execution_id,
            default_server=LOCAL_SERVER,
            working_directory=working_directory,
        )
        if locks is not None:
            host.locks = locks
        host.raft = raft
        host.may_run_locally = may_run_locally
        host._principal = principal
        servers = active_servers()
        host._servers = {s.name.casefold(): s for s in servers}
        host._runnable = (
            None
            if principal is None
            else {n.casefold() for n in targets}
            | {name for name, s in host._servers.items() if may(principal, RUN, s)}
        )
        host._roles = {s.name.casefold(): [r.name for r in s.roles.all()] for s in servers}
        host._environments = {
            s.name.casefold(): [e.name for e in s.environments.all()] for s in servers
        }
        # each server's environments and the ones they are inside: what a credential's limits
        # are compared with
        host._lineages = {
            s.name.casefold(): {a.name for e in s.environments.all() for a in e.lineage()}
            for s in servers
        }
        variables = variable_table()
        host._variables = {}
        host._sensitive = []  # texts, lists and maps: the engine masks every text inside
        for server in servers:
            for role in [None, *server.roles.all()]:
                resolved = resolve_variables(server=server, role=role, variables=variables)
                host._variables[
                    (server.name.casefold(), role.name.casefold() if role else None)
                ] = resolved
                host._sensitive.extend(v.value for v in resolved.values() if v.sensitive)
        host._global = global_variables(variables=variables)
        host._sensitive.extend(v.value for v in host._global.values() if v.sensitive)
        host._credentials = {}
        by_id: dict[int, Credential] = {}
        for stored in Credential.objects.prefetch_related("environments"):
            by_id[stored.pk] = stored
            host._credentials[stored.name.casefold()] = (
                stored,
                [e.name for e in stored.environments.all()],
            )
        # the credential each SSH server logs in with when the script chooses none
        host._logins = {
            s.name.casefold(): by_id[s.credential_id] for s in servers if s.credential_id in by_id
        }
        host._connections = None
        host._new_host_keys = []
        return host

    async def pace(self) -> None:
        """Wait while the log sink is far behind: the run goes no faster than its log is stored.
        Either way give the event loop a turn, so a run busy in its own loop still has its log
        stored, and hears a cancel or its time limit."""
        await self.sink.wait_for_room()
        await asyncio.sleep(0)

    # ---- inventory

    def servers(self) -> list[str]:
        return [
            LOCAL_SERVER,
            *[s.name for s in self._servers.values() if s.name.casefold() != LOCAL_SERVER],
        ]

    def roles(self) -> list[str]:
        return sorted({r for roles in self._roles.values() for r in roles})

    def environments(self) -> list[str]:
        return sorted({e for environments in self._environments.values() for e in environments})

    def roles_of(self, server: str) -> list[str]:
        return self._roles.get(server.casefold(), [])

    def environment_of(self, server: str) -> str | None:
        environments = self._environments.get(server.casefold(), [])
        return environments[0] if environments else None

    def variable(self, name: str, server: str | None, role: str | None) -> Value | None:
        key = name.casefold()
        resolved = self._variables.get(
            ((server or "").casefold(), role.casefold() if role else None)
        )
        if resolved is None:
            resolved = self._variables.get(((server or "").casefold(), None), self._global)
        found = resolved.get(key)
        return found.value if found is not None else None

    def sensitive_values(self) -> list[Value]:
        return list(self._sensitive)

    def credential(self, name: str, *, server: str | None = None) -> RunCredential | None:
        """A credential limited to environments is refused unless the server in context is in
        one of them (or inside one); a run with no target is in none."""
        entry = self._credentials.get(name.casefold())
        if entry is None:
            return None
        stored, environments = entry
        if environments:
            inside = self._lineages.get(server.casefold(), set()) if server else set()
            if not inside & set(environments):
                if server is None:
                    where = "this run has no target server, so it is in no environment"
                else:
                    where = f"server {server} is in {', '.join(sorted(inside)) or 'no environment'}"
                raise CredentialRefused(
                    f"credential '{stored.name}' may only be used in the environments "
                    f"{', '.join(sorted(environments))}, and {where}: it was not used"
                )
        return run_credential(stored)

    async def raft_item(self, raft: str | None, name: str, kind: str) -> str | None:
        item = await sync_to_async(find_item)(
            raft=raft or self.raft, name=name, kinds=RAFT_KINDS.get(kind, (kind,))
        )
        if item is None and raft is None and self.raft is not None:
            item = await sync_to_async(find_item)(
                raft=None, name=name, kinds=RAFT_KINDS.get(kind, (kind,))
            )
        return item.content if item is not None else None

    async def agent(self, server: str, *, credential: RunCredential | None = None) -> Agent:
        stored = self._servers.get(server.casefold())
        if stored is None or stored.agent_type == Server.AgentType.LOCAL:
            if not self.may_run_locally:
                raise AgentError(
                    f"server {server} is OtterWeb's own machine, and whoever started this run "
                    "may not run scripts there (it needs the permission 'Can run scripts on the "
                    "local server')"
                )
            return local_agent(server, self.execution_id, self.working_directory)
        if self._runnable is not None and server.casefold() not in self._runnable:
            raise AgentError(
                f"whoever started this run may not run scripts on server {server} (it needs the "
                "privilege to run scripts in the server's environments)"
            )
        if self._connections is None:
            self._connections = SshConnections(
                max_connecting=settings.OTTERWEB_SSH_MAX_CONNECTING,
                on_new_host_key=lambda name, key: self._new_host_keys.append((name, key)),
            )
        login = self._logins.get(server.casefold())
        if credential is None and login is not None:
            credential = run_credential(login)
        try:
            return await self._connections.agent(ssh_target(stored, credential))
        except HostKeyUntrusted as untrusted:
            await sync_to_async(record_offered_key)(stored.name, untrusted.offered)
            raise
        finally:
            while self._new_host_keys:
                await sync_to_async(remember_host_key)(*self._new_host_keys.pop())

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
        scope = {"server": server, "role": role, "environment": environment}
        await sync_to_async(self._set_variable)(name, literal, scope, sensitive)

    def _set_variable(self, name: str, literal: str, scope: dict, sensitive: bool) -> None:
        found: dict = {}
        for kind, model in (("server", Server), ("role", Role), ("environment", Environment)):
            if scope[kind]:
                found[kind] = model.objects.filter(name__iexact=scope[kind]).first()
                if found[kind] is None:
                    raise ValueError(f"there is no {kind} {scope[kind]}")
        action = "change" if variable_at(name=name, **found) else "add"
        try:
            with transaction.atomic():
                variable = set_variable(name=name, value=literal, sensitive=sensitive, **found)
                forget(self._principal)
                if not may(self._principal, f"inventory.{action}_variable", variable):
                    raise ValueError(
                        f"whoever started this run may not {action} variables on "
                        f"{variable.scope_label}"
                    )
        except ValidationError as refused:
            raise ValueError(" ".join(refused.messages)) from None

    def smtp_server(self) -> SmtpServer:
        if not settings.OTTERWEB_SMTP_HOST:
            raise ValueError(
                "no SMTP server is set up to send mail through: an administrator sets "
                "OTTERWEB_SMTP_HOST (docs/deploy.md)"
            )
        username = password = ""
        if settings.OTTERWEB_SMTP_CREDENTIAL:
            entry = self._credentials.get(settings.OTTERWEB_SMTP_CREDENTIAL.casefold())
            if entry is None:
                raise ValueError(
                    f"the SMTP login credential '{settings.OTTERWEB_SMTP_CREDENTIAL}' "
                    "(OTTERWEB_SMTP_CREDENTIAL) does not exist"
                )
            login = run_credential(entry[0])
            username, password = login.username, login.secret
        return SmtpServer(
            host=settings.OTTERWEB_SMTP_HOST,
            port=settings.OTTERWEB_SMTP_PORT,
            security=settings.OTTERWEB_SMTP_SECURITY,
            sender=settings.OTTERWEB_SMTP_FROM,
            username=username,
            password=password,
            ca_file=settings.OTTERWEB_SMTP_CA_FILE,
        )

    def server_facts(self, server: str) -> dict:
        stored = self._servers.get(server.casefold())
        if stored is None or stored.facts_collected is None:
            return {}
        return {**stored.facts, "os_name": stored.os_name, "kernel": stored.kernel}

    async def record_packages(self, server: str, manager: Manager, packages: list[Package]) -> str:
        stored = self._servers.get(server.casefold())
        if stored is None:
            return f"{server} is not a server of the inventory"
        await sync_to_async(record_packages)(
            server=stored, manager=manager, packages=packages, collected=timezone.now()
        )
        return ""

    def working_directory_of(self, server: str) -> str:
        stored = self._servers.get(server.casefold())
        return "" if stored is not None and stored.is_ssh else self.working_directory

    async def run_ended(self) -> None:
        if self._connections is not None:
            await self._connections.close()
