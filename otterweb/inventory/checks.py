"""Servers over SSH: how the agent reaches a server, its trusted host keys, and the server
check (reachability, latency, host key, OS), run every OTTERWEB_SERVER_CHECK_MINUTES by the
housekeeper of whichever process claims the server first, and on demand ("Check now")."""

from __future__ import annotations

import asyncio
import logging
import platform
import subprocess
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine import (
    SSH_CREDENTIAL_KINDS,
    AgentError,
    CredentialRefused,
    HostKeyChanged,
    HostKeyUntrusted,
    RunCredential,
    ServerFacts,
    SshTarget,
    check_credential_kind,
    fingerprint,
    inventory_script,
    probe,
    read_inventory,
)
from otterweb.audit import services as audit
from otterweb.inventory import services
from otterweb.inventory.models import Credential, Server

logger = logging.getLogger(__name__)

# how many servers one round of checks contacts at once
CHECKS_AT_ONCE = 50
# how often the housekeeper looks for servers due for their check
DUE_EVERY_SECONDS = 30


# The engine's name for each kind of stored credential: what an operation (or the SSH agent)
# checks against the kinds it accepts. A kind missing here is refused by all of them.
RUN_KINDS: dict[str, str] = {
    Credential.Kind.PASSWORD: "password",
    Credential.Kind.PRIVATE_KEY: "private_key",
    Credential.Kind.TOKEN: "token",
}


def run_credential(stored: Credential) -> RunCredential:
    """A stored credential as a run uses it, its secrets in clear."""
    return RunCredential(
        name=stored.name,
        username=stored.username,
        secret=stored.secret(),
        kind=RUN_KINDS.get(stored.kind, f"unknown ({stored.kind})"),
        passphrase=stored.passphrase(),
    )


def ssh_target(server: Server, credential: RunCredential | None) -> SshTarget:
    """How the SSH agent reaches ``server``, logged in with ``credential`` (the server's own, or
    the one a script chose with ``with credentials=``)."""
    password = private_key = passphrase = None
    if credential is not None:
        try:  # a key or a password: never a token sent as an SSH password
            check_credential_kind(credential, SSH_CREDENTIAL_KINDS, use="SSH")
        except CredentialRefused as refused:
            raise AgentError(f"server {server.name}: {refused}") from None
        if credential.kind == RUN_KINDS[Credential.Kind.PRIVATE_KEY]:
            private_key, passphrase = credential.secret, credential.passphrase or None
        else:
            password = credential.secret
    return SshTarget(
        server=server.name,
        address=server.address,
        port=server.port,
        user=server.user or (credential.username if credential else ""),
        password=password,
        private_key=private_key,
        passphrase=passphrase,
        trusted_host_keys=server.trusted_host_keys(),
        trust_on_first_use=settings.OTTERWEB_SSH_TRUST_ON_FIRST_USE,
        sudo=server.sudo,
        connect_timeout=settings.OTTERWEB_SSH_CONNECT_TIMEOUT_SECONDS,
    )


# ---- host keys


def record_offered_key(server: str, key: str) -> None:
    """The key a server with no trusted key offered: it waits for an admin to trust it."""
    updated = Server.objects.filter(name=server, host_keys="").update(pending_host_key=key)
    if updated:
        logger.warning(
            "message='a server offered a host key that is not trusted yet' server=%s "
            "fingerprint=%s action='trust it on the server page'",
            server,
            fingerprint(key),
        )


def remember_host_key(server: str, key: str) -> None:
    """A key trusted on first use (OTTERWEB_SSH_TRUST_ON_FIRST_USE) is kept as the server's."""
    updated = Server.objects.filter(name=server, host_keys="").update(
        host_keys=key, pending_host_key=""
    )
    if updated:
        audit.record_changed(obj=Server.objects.get(name=server), changes={"host_keys": ["", key]})
        logger.warning(
            "message='host key trusted on first use' server=%s fingerprint=%s",
            server,
            fingerprint(key),
        )


@transaction.atomic
def trust_host_key(*, server: Server, fingerprint_seen: str) -> Server:
    """Trust the key ``server`` offered and is waiting with, if it is the one the admin checked:
    ``fingerprint_seen`` must be its fingerprint (``SHA256:...``)."""
    server = Server.objects.select_for_update().get(pk=server.pk)
    pending = server.pending_host_key
    if not pending:
        raise ValidationError(
            {
                "fingerprint": [
                    f"Server {server.name} has no host key waiting to be trusted: check it "
                    "first, and trust the key it offers."
                ]
            }
        )
    offered = fingerprint(pending)
    if fingerprint_seen.strip() != offered:
        raise ValidationError(
            {
                "fingerprint": [
                    f"Server {server.name} offered the key {offered}, not "
                    f"{fingerprint_seen.strip() or 'an empty fingerprint'}: nothing was trusted."
                ]
            }
        )
    server.host_keys = "\n".join([*server.trusted_host_keys(), pending])
    server.pending_host_key = ""
    server.save(update_fields=["host_keys", "pending_host_key", "updated"])
    logger.info("message='host key trusted' server=%s fingerprint=%s", server.name, offered)
    return server


def forget_host_keys(*, server: Server) -> Server:
    """Trust no key of ``server`` any more (it was reinstalled): its next contact offers one."""
    server.host_keys = ""
    server.pending_host_key = ""
    server.save(update_fields=["host_keys", "pending_host_key", "updated"])
    logger.warning("message='host keys forgotten' server=%s", server.name)
    return server


# ---- checks


def check_server(server: Server) -> Server:
    """Check ``server`` now and record what was found."""
    check_servers([server])
    server.refresh_from_db()
    return server


def due_interval() -> float:
    """Seconds between two rounds of ``check_due_servers`` in each process that keeps house
    (0: periodic checks are off, OTTERWEB_SERVER_CHECK_MINUTES is 0)."""
    return DUE_EVERY_SECONDS if settings.OTTERWEB_SERVER_CHECK_MINUTES else 0


def check_due_servers(now: datetime | None = None) -> int:
    """Check the active servers not checked for OTTERWEB_SERVER_CHECK_MINUTES. Each is claimed
    first by a conditional update of its ``last_checked``, so that of several processes keeping
    house at once only one checks it. Returns how many this process checked."""
    minutes = settings.OTTERWEB_SERVER_CHECK_MINUTES
    if not minutes:
        return 0
    now = now or timezone.now()
    due = Q(last_checked__isnull=True) | Q(last_checked__lt=now - timedelta(minutes=minutes))
    claimed = [
        server
        for server in Server.objects.filter(due, active=True).select_related("credential")
        if Server.objects.filter(due, pk=server.pk).update(last_checked=now)
    ]
    check_servers(claimed)
    return len(claimed)


def check_servers(servers: Iterable[Server]) -> None:
    """Check ``servers`` and record what was found on each. What goes wrong with one server
    (its settings, its credential, the SSH library) is that server's check error: it never
    stops the others' checks."""
    servers = list(servers)
    targets: dict[int, SshTarget] = {}
    failed: dict[int, AgentError] = {}
    for server in servers:
        if not server.is_ssh:
            continue
        try:
            targets[server.pk] = ssh_target(
                server, run_credential(server.credential) if server.credential else None
            )
        except Exception as error:  # recorded on the server, never raised
            failed[server.pk] = _failure(error)
    found = asyncio.run(_probe_all(list(targets.values()))) if targets else {}
    for server in servers:
        try:
            if server.pk in failed:
                _record(server, failed[server.pk])
            elif server.is_ssh:
                _record(server, found[targets[server.pk].server])
            else:
                _record(server, _this_machine())
        except Exception:
            logger.exception("message='server check not recorded' server=%s", server.name)


def _failure(error: Exception) -> AgentError:
    """An unexpected error of one server's check, as the check error it records."""
    if isinstance(error, AgentError):
        return error
    return AgentError(f"the check failed: {type(error).__name__}: {error}")


async def _probe_all(targets: list[SshTarget]) -> dict[str, ServerFacts | AgentError]:
    at_once = asyncio.Semaphore(CHECKS_AT_ONCE)

    async def one(target: SshTarget) -> ServerFacts | AgentError:
        async with at_once:
            try:
                return await probe(target)
            except Exception as error:  # one server's failure is its own
                return _failure(error)

    results = await asyncio.gather(*(one(target) for target in targets))
    return {target.server: result for target, result in zip(targets, results, strict=True)}


def _this_machine() -> ServerFacts:
    started = time.perf_counter()
    uname = platform.uname()
    os_name = ""
    release = Path("/etc/os-release")
    if release.is_file():
        for line in release.read_text(errors="replace").splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.partition("=")[2].strip().strip('"')
    latency_ms = round((time.perf_counter() - started) * 1000, 1)
    try:
        listed = subprocess.run(
            ["/bin/sh", "-c", inventory_script()],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=60,
            check=False,
        )
        inventory = read_inventory(listed.stdout)
    except (OSError, subprocess.TimeoutExpired):
        inventory = None
    return ServerFacts(
        latency_ms=latency_ms,
        host_key="",
        os_name=os_name,
        kernel=f"{uname.system} {uname.release} {uname.machine}",
        inventory=inventory,
    )


def _record(server: Server, result: ServerFacts | AgentError) -> None:
    now = timezone.now()
    fields: dict = {"last_checked": now}
    if isinstance(result, ServerFacts):
        fields.update(
            reachable=True,
            latency_ms=result.latency_ms,
            os_name=result.os_name[:200],
            kernel=result.kernel[:200],
            last_seen=now,
            check_error="",
        )
        if result.inventory is not None:
            services.record_inventory(server=server, inventory=result.inventory, collected=now)
        else:
            logger.warning(
                "message='server answered the check but not its inventory script: its facts "
                "and packages are kept as they were' server=%s",
                server.name,
            )
        logger.info(
            "message='server checked' server=%s address=%s reachable=true latency_ms=%.1f os=%r",
            server.name,
            f"{server.address}:{server.port}" if server.is_ssh else "local",
            result.latency_ms,
            result.os_name,
        )
    else:
        fields.update(reachable=False, check_error=str(result))
        if isinstance(result, HostKeyUntrusted | HostKeyChanged):
            fields["last_seen"] = now  # it answered: only its key is not trusted
        if isinstance(result, HostKeyUntrusted) and not server.host_keys:
            fields["pending_host_key"] = result.offered
        logger.warning(
            "message='server check failed' server=%s address=%s:%d error=%r",
            server.name,
            server.address,
            server.port,
            str(result),
        )
    Server.objects.filter(pk=server.pk).update(**fields)
