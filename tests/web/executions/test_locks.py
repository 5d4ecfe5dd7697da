"""Global locks (`lock=!token`) across workers: database rows by default, Redis leases in the
distributed mode."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid

import pytest

from otterweb.execution_logs.models import LogEntry
from otterweb.executions import runner
from otterweb.executions.locks import RedisLocks, take
from otterweb.executions.models import Execution, GlobalLock
from otterweb.executions.runner import reap_lost_executions
from otterweb.executions.services import create_job

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("here")]


def test_database_locks_serialize_executions_on_two_workers() -> None:
    """Two executions on two worker threads (each with its own event loop) never hold the same
    global lock at once; tokens compare without case."""
    first = create_job(
        script="with lock=!Deploy { Log-Information start; Sleep 1; Log-Information end; }",
        servers=["here"],
    )
    second = create_job(
        script="with lock=!DEPLOY { Log-Information start; Sleep 1; Log-Information end; }",
        servers=["here"],
    )
    workers = [
        threading.Thread(target=runner.run_on_this_thread, args=(e.pk,)) for e in (first, second)
    ]
    began = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert time.monotonic() - began >= 2.0
    spans = []
    for execution in (first, second):
        execution.refresh_from_db()
        assert execution.status == Execution.Status.NORMAL, execution.error
        times = {e.message: e.time for e in LogEntry.objects.filter(execution_id=execution.pk)}
        spans.append((times["start"], times["end"]))
    (_, first_end), (second_start, _) = sorted(spans)
    assert first_end <= second_start
    assert not GlobalLock.objects.exists()


def test_database_locks_free_the_lock_of_an_execution_no_longer_executing() -> None:
    holder, other = (
        create_job(script="Log-Information x;", servers=["here"]),
        create_job(script="Log-Information y;", servers=["here"]),
    )
    for execution in (holder, other):
        execution.start(worker="w")
    assert take("deploy", holder.pk) is not None
    assert take("deploy", other.pk) is None
    Execution.objects.filter(pk=holder.pk).update(heartbeat=holder.heartbeat.replace(year=2000))
    assert reap_lost_executions() == [holder.pk]
    assert not GlobalLock.objects.filter(execution=holder).exists()
    assert take("deploy", other.pk) is not None
    # a row left by a closed execution (its worker died between take and release) is taken over
    other.finish(status=Execution.Status.NORMAL, drift=[])
    third = create_job(script="Log-Information z;", servers=["here"])
    third.start(worker="w")
    assert take("deploy", third.pk) is not None


@pytest.fixture
def redis_locks(services):
    def make(lease_seconds: float = 30.0) -> RedisLocks:
        return RedisLocks(
            services["OTTERWEB_REDIS_URL"], prefix=prefix, lease_seconds=lease_seconds
        )

    prefix = f"test-{uuid.uuid4().hex[:8]}"
    return make


@pytest.mark.slow
async def test_redis_locks_serialize_holders_and_renew_the_lease(redis_locks) -> None:
    """Two workers' providers: the second waits for the first, whose hold outlasts its lease
    (more than twice) because it renews it. The lease leaves a renewal a second of delay: the
    test processes share two cores, and one may wait that long for its turn."""
    events: list[str] = []

    async def block(locks: RedisLocks, name: str) -> None:
        async with locks.hold("Deploy"):
            events.append(f"{name} in")
            await asyncio.sleep(3.5)
            events.append(f"{name} out")

    first = asyncio.create_task(block(redis_locks(lease_seconds=1.5), "a"))
    await asyncio.sleep(0.2)
    await asyncio.gather(first, block(redis_locks(lease_seconds=1.5), "b"))
    assert events == ["a in", "a out", "b in", "b out"]


async def test_redis_locks_expire_the_lease_of_a_dead_holder(redis_locks, services) -> None:
    from redis.asyncio import Redis

    locks = redis_locks()
    async with Redis.from_url(services["OTTERWEB_REDIS_URL"]) as client:
        # a holder that died: it took the lock for one second and never renewed or released it
        dead = client.lock(f"{locks.prefix}:lock:deploy", timeout=1.0)
        assert await dead.acquire(blocking=False)
    began = time.monotonic()
    async with locks.hold("deploy"):
        waited = time.monotonic() - began
    assert 0.5 < waited < 5
