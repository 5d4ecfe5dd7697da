"""Global locks (`lock=!token`) across every worker: rows of the database (GlobalLock) by
default, Redis leases in the distributed mode. A lock whose execution died is freed: a row when
its execution is no longer executing (the reaper closes it), a Redis lease when it is not renewed
for LEASE_SECONDS."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from django.conf import settings
from django.db import IntegrityError, transaction

from engine import LockProvider, RunState
from otterweb.executions.models import GlobalLock

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.2  # how often a waiting block tries again
LEASE_SECONDS = 30.0  # a Redis lock not renewed for this long is free; holders renew it every third


def lock_provider(execution_id: int, database: Callable[..., Awaitable]) -> LockProvider:
    """The locks of one execution; ``database`` runs a function on its database thread."""
    if settings.REDIS_URL:
        return RedisLocks(settings.REDIS_URL, prefix=settings.REDIS_PREFIX)
    return DatabaseLocks(execution_id, database)


class DatabaseLocks(LockProvider):
    def __init__(self, execution_id: int, database: Callable[..., Awaitable]) -> None:
        self.execution_id = execution_id
        self.database = database

    @asynccontextmanager
    async def hold(self, token: str) -> AsyncIterator[None]:
        key = token.casefold()[:200]
        while (lock_id := await self.database(take, key, self.execution_id)) is None:
            await asyncio.sleep(POLL_SECONDS)
        try:
            yield
        finally:
            await asyncio.shield(self.database(release, lock_id))


def take(token: str, execution_id: int) -> int | None:
    """The id of the new lock row, or None while another block holds ``token``."""
    with transaction.atomic():
        GlobalLock.objects.filter(token=token).exclude(
            execution__run_state=RunState.EXECUTING
        ).delete()
        try:
            with transaction.atomic():
                return GlobalLock.objects.create(token=token, execution_id=execution_id).pk
        except IntegrityError:
            return None


def release(lock_id: int) -> None:
    GlobalLock.objects.filter(pk=lock_id).delete()


class RedisLocks(LockProvider):
    def __init__(self, url: str, *, prefix: str, lease_seconds: float = LEASE_SECONDS) -> None:
        self.url = url
        self.prefix = prefix
        self.lease_seconds = lease_seconds

    @asynccontextmanager
    async def hold(self, token: str) -> AsyncIterator[None]:
        from redis.asyncio import Redis
        from redis.exceptions import LockError

        async with Redis.from_url(self.url) as client:
            lock = client.lock(
                f"{self.prefix}:lock:{token.casefold()}",
                timeout=self.lease_seconds,
                sleep=POLL_SECONDS,
            )
            await lock.acquire()
            renewing = asyncio.create_task(self._renew(lock))
            try:
                yield
            finally:
                renewing.cancel()
                with contextlib.suppress(LockError):
                    await asyncio.shield(lock.release())

    async def _renew(self, lock) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await lock.reacquire()
            except Exception as error:
                logger.error(
                    "lock=%s message='could not renew the lock; another block may take it' error=%r",
                    lock.name,
                    str(error),
                )
