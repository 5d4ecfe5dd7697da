"""The frame cache of late viewers: what it finds, what it keeps and for how long, the database
pages it reads once for concurrent viewers, and the backlogs consumers send from it, exactly
(nothing lost, nothing repeated)."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from otterweb.execution_logs import publish
from otterweb.execution_logs.events import batch_event, group_name
from otterweb.execution_logs.frame_cache import CachedFrame, FrameCache, frame_cache, read_page
from otterweb.execution_logs.models import LogEntry
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from tests.web.execution_logs.sockets import communicator


def frame(after: int, through: int, text: str = "x", scope: int = 0) -> CachedFrame:
    return CachedFrame(after=after, through=through, scope=scope, text=text)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---- the cache on its own


def test_frame_cache_finds_the_frame_holding_the_entry_after_a_seq() -> None:
    cache = FrameCache()
    cache.add(7, [frame(0, 300), frame(300, 600), frame(900, 1000)])
    assert cache.frame_after(7, 0) == frame(0, 300)
    assert cache.frame_after(7, 300) == frame(300, 600)
    assert cache.frame_after(7, 450) == frame(300, 600)  # a client that has part of it
    assert cache.frame_after(7, 600) is None  # 601 to 900 are not held
    assert cache.frame_after(7, 1000) is None
    assert cache.frame_after(8, 0) is None


def test_frame_cache_keeps_no_frame_within_another() -> None:
    cache = FrameCache()
    cache.add(7, [frame(100, 200), frame(200, 250)])
    cache.add(7, [frame(120, 180)])  # already held
    assert cache.frame_after(7, 120) == frame(100, 200)
    cache.add(7, [frame(0, 220, text="page")])  # a database page that holds the first whole
    assert cache.frame_after(7, 100) == frame(0, 220, text="page")
    assert cache.frame_after(7, 220) == frame(200, 250)  # it reaches past the page
    assert cache.size == frame(0, 220, text="page").size + frame(200, 250).size


def test_frame_cache_drops_the_oldest_frames_past_an_executions_bound() -> None:
    one = frame(0, 100, text="a" * 1000)
    cache = FrameCache(execution_bytes=3 * one.size)
    cache.add(7, [frame(100 * i, 100 * (i + 1), text="a" * 1000) for i in range(5)])
    assert cache.frame_after(7, 0) is None
    assert cache.frame_after(7, 100) is None
    assert [cache.frame_after(7, seq) is not None for seq in (200, 300, 400)] == [True] * 3
    assert cache.size == 3 * one.size


def test_frame_cache_drops_the_least_recently_used_execution_past_the_total_bound() -> None:
    clock = Clock()
    one = frame(0, 100, text="a" * 1000)
    cache = FrameCache(total_bytes=2 * one.size, clock=clock)
    cache.add(1, [one])
    clock.now += 1
    cache.add(2, [one])
    clock.now += 1
    cache.frame_after(1, 0)  # 1 was used last
    clock.now += 1
    cache.add(3, [one])
    assert cache.frame_after(1, 0) == one
    assert cache.frame_after(2, 0) is None
    assert cache.frame_after(3, 0) == one
    assert cache.size == 2 * one.size


def test_frame_cache_forgets_an_execution_after_its_grace_period() -> None:
    clock = Clock()
    cache = FrameCache(grace_seconds=60, clock=clock)
    cache.add(1, [frame(0, 100)])
    cache.add(2, [frame(0, 100)])
    cache.completed(1)
    clock.now += 30
    cache.add(2, [frame(100, 200)])
    assert cache.frame_after(1, 0) is not None  # within the grace period
    clock.now += 31
    cache.add(2, [frame(200, 300)])
    assert cache.frame_after(1, 0) is None
    assert cache.frame_after(2, 0) is not None


def test_frame_cache_forgets_an_execution_left_idle() -> None:
    clock = Clock()
    cache = FrameCache(idle_seconds=600, clock=clock)
    cache.add(1, [frame(0, 100)])
    clock.now += 601
    cache.add(2, [frame(0, 100)])
    assert cache.frame_after(1, 0) is None
    assert cache.size == frame(0, 100).size


@given(
    st.lists(
        st.tuples(st.integers(0, 60), st.integers(1, 20)).map(lambda r: (r[0], r[0] + r[1])),
        max_size=25,
    )
)
def test_frame_cache_finds_a_frame_for_every_seq_some_frame_held(ranges) -> None:
    """Whatever frames come, in whatever order: the entry after a seq is found exactly when a
    frame added holds it, in a frame that does hold it; the size is what the frames held take."""
    cache = FrameCache()
    cache.add(1, [frame(after, through) for after, through in ranges])
    held = {seq for after, through in ranges for seq in range(after + 1, through + 1)}
    found = set()
    for seq in range(0, 90):
        got = cache.frame_after(1, seq)
        if got is not None:
            assert got.after <= seq < got.through
            found.add(seq + 1)
    assert found == held
    log = cache._logs.get(1)
    assert cache.size == (sum(f.size for f in log.frames.values()) if log else 0)


# ---- pages read from the database

pytestmark_db = pytest.mark.django_db(transaction=True)


def stored(execution, seqs, scope_id=None) -> list[LogEntry]:
    """Entries stored as the sink stores them: the execution's last_seq follows."""
    entries = LogEntry.objects.bulk_create(
        LogEntry(
            execution_id=execution.pk,
            seq=seq,
            scope_id=scope_id,
            level=20,
            message=f"line {seq}",
            time=timezone.now(),
        )
        for seq in seqs
    )
    Execution.objects.filter(pk=execution.pk).update(last_seq=max(seqs))
    return entries


def seqs_of(frames: list[CachedFrame]) -> list[int]:
    return [e["seq"] for f in frames if f.text for e in json.loads(f.text)["entries"]]


@pytest.fixture
def execution(here):
    return create_job(script="Log-Information x;", servers=["here"])


@pytestmark_db
def test_read_page_covers_a_range_up_to_the_next_cached_frame(execution) -> None:
    stored(execution, [1, 2, 3, 6, 7])  # 4 and 5 dropped past the log's limit
    frames, count = read_page(execution.pk, 0, 3)
    assert [(f.after, f.through) for f in frames] == [(0, 3)]
    assert (seqs_of(frames), count) == ([1, 2, 3], 3)
    frames, count = read_page(execution.pk, 3, 5)  # the gap: held, so it is read once
    assert frames == [CachedFrame(after=3, through=5, scope=0, text=None)]
    frames, count = read_page(execution.pk, 3, None)
    assert [(f.after, f.through) for f in frames] == [(3, 7)]
    assert seqs_of(frames) == [6, 7]
    assert read_page(execution.pk, 7, None) == ([], 0)


@pytestmark_db
def test_read_page_stops_at_a_full_page(execution) -> None:
    stored(execution, range(1, 1201))
    frames, count = read_page(execution.pk, 0, 1100)
    assert (frames[0].after, frames[-1].through, count) == (0, 1000, 1000)
    assert seqs_of(frames) == list(range(1, 1001))
    assert all(a.through == b.after for a, b in itertools.pairwise(frames))


@pytestmark_db
async def test_frame_cache_reads_a_page_once_for_concurrent_viewers(execution) -> None:
    await sync_to_async(stored)(execution, range(1, 501))
    cache = FrameCache()
    pages = await asyncio.gather(*(cache.read(execution.pk, 0) for _ in range(20)))
    assert all(seqs_of(page) == list(range(1, 501)) for page in pages)
    assert (cache.pages_read, cache.entries_read) == (1, 500)
    assert cache.frame_after(execution.pk, 0) is not None  # kept for later viewers


@pytestmark_db
async def test_frame_cache_shares_a_read_a_leaving_viewer_gave_up(execution) -> None:
    await sync_to_async(stored)(execution, range(1, 11))
    cache = FrameCache()
    leaving = asyncio.ensure_future(cache.read(execution.pk, 0))
    staying = asyncio.ensure_future(cache.read(execution.pk, 0))
    await asyncio.sleep(0)
    leaving.cancel()
    assert seqs_of(await staying) == list(range(1, 11))


@pytestmark_db
async def test_frame_cache_keeps_no_page_of_a_finished_execution_unless_held(execution) -> None:
    await sync_to_async(stored)(execution, range(1, 11))
    cache = FrameCache()
    assert seqs_of(await cache.read(execution.pk, 0, keep=False)) == list(range(1, 11))
    assert cache.frame_after(execution.pk, 0) is None
    assert cache.size == 0


# ---- consumers


@pytest.fixture
def viewer(user_with):
    return user_with("executions.view_execution", username="watcher")


async def received(connection: WebsocketCommunicator, until: int) -> list[int]:
    """The seqs of the log messages a client gets until it has ``until``, or complete."""
    seqs: list[int] = []
    while not seqs or seqs[-1] < until:
        message = await connection.receive_json_from(timeout=10)
        if message["type"] == "complete":
            break
        if message["type"] == "log":
            seqs += [e["seq"] for e in message["entries"]]
    return seqs


async def published(execution, seqs) -> list[LogEntry]:
    """Stored and published by the worker (in this process: the embedded mode)."""
    entries = await sync_to_async(stored)(execution, seqs)
    await publish.publish_batch(execution.pk, entries, [])
    return entries


@pytestmark_db
async def test_consumer_sends_late_viewers_their_backlog_from_memory(execution, viewer) -> None:
    for start in range(1, 3001, 300):
        await published(execution, range(start, start + 300))
    frame_cache.pages_read = frame_cache.entries_read = 0
    connections = [communicator(execution.pk, viewer) for _ in range(20)]
    connections.append(communicator(execution.pk, viewer, after=1450))  # resumes mid-batch
    assert all([ok for ok, _code in await asyncio.gather(*(c.connect() for c in connections))])
    backlogs = await asyncio.gather(*(received(c, 3000) for c in connections))
    assert backlogs[:20] == [list(range(1, 3001))] * 20
    assert backlogs[20] == list(range(1451, 3001))
    assert frame_cache.entries_read == 0
    await published(execution, range(3001, 3101))  # then the live tail, once
    assert [await received(c, 3100) for c in connections] == [list(range(3001, 3101))] * 21
    for connection in connections:
        assert await connection.receive_nothing(timeout=0.05)
        await connection.disconnect()


@pytestmark_db
async def test_consumer_reads_the_part_older_than_the_cache_once(execution, viewer) -> None:
    """The cache holds 2,001 to 3,000 only: 20 late viewers read 1 to 2,000 from the database
    once in all, then the rest from memory."""
    await sync_to_async(stored)(execution, range(1, 2001))
    await published(execution, range(2001, 3001))
    connections = [communicator(execution.pk, viewer) for _ in range(20)]
    await asyncio.gather(*(c.connect() for c in connections))
    backlogs = await asyncio.gather(*(received(c, 3000) for c in connections))
    assert backlogs == [list(range(1, 3001))] * 20
    assert (frame_cache.pages_read, frame_cache.entries_read) == (2, 2000)
    for connection in connections:
        assert await connection.receive_nothing(timeout=0.05)
        await connection.disconnect()


@pytestmark_db
async def test_consumer_refills_a_dropped_batch_from_memory(execution, viewer) -> None:
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    assert await connection.receive_nothing(timeout=0.2)  # the backlog, empty, is over
    dropped = await sync_to_async(stored)(execution, range(1, 301))
    # another viewer's consumer in this process received it; this one's message was lost
    frame_cache.add_live(execution.pk, batch_event(dropped, [])["frames"])
    frame_cache.pages_read = frame_cache.entries_read = 0
    await published(execution, range(301, 401))
    assert await received(connection, 400) == list(range(1, 401))
    assert frame_cache.entries_read == 0
    await connection.disconnect()


@pytestmark_db
async def test_consumer_keeps_the_frames_of_the_messages_it_receives(execution, viewer) -> None:
    """The distributed mode: the worker publishes from another process, so this process's
    cache is filled by the consumers that receive the batches."""
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    entries = await sync_to_async(stored)(execution, range(1, 301))
    await get_channel_layer().group_send(group_name(execution.pk), batch_event(entries, []))
    assert await received(connection, 300) == list(range(1, 301))
    assert frame_cache.frame_after(execution.pk, 0) == CachedFrame(
        after=0, through=300, scope=0, text=batch_event(entries, [])["frames"][0]["text"]
    )
    await connection.disconnect()


@pytestmark_db
async def test_consumer_sends_a_log_with_dropped_lines_once_and_in_order(execution, viewer) -> None:
    """Lines past the log's limit were not stored: the seqs jump. Late viewers get every stored
    line once, the gap read once from the database and kept."""
    await published(execution, [1, 2, 3])
    await published(execution, [6, 7])
    frame_cache.pages_read = 0
    first, second = communicator(execution.pk, viewer), communicator(execution.pk, viewer)
    await first.connect()
    assert await received(first, 7) == [1, 2, 3, 6, 7]
    await second.connect()
    assert await received(second, 7) == [1, 2, 3, 6, 7]
    assert frame_cache.pages_read == 1
    for connection in (first, second):
        await connection.disconnect()


@pytestmark_db
async def test_consumer_finished_execution_gets_its_log_then_complete(execution, viewer) -> None:
    await published(execution, range(1, 101))
    await sync_to_async(Execution.objects.filter(pk=execution.pk).update)(
        run_state=Execution.RunState.COMPLETED
    )
    frame_cache.completed(execution.pk)
    connection = communicator(execution.pk, viewer, after=40)
    await connection.connect()
    assert await received(connection, 10**9) == list(range(41, 101))
    await connection.disconnect()


@pytestmark_db
async def test_consumer_late_viewers_of_a_run_get_every_line_once(here, viewer) -> None:
    """A run by a worker thread; viewers join as it goes, some from the start, one after a seq
    it has. Each gets every line after its seq once, in order, then complete."""
    lines = 3000
    script = f"foreach $i in @Range(1, {lines}) {{ Log-Information line $i; }}"
    execution = await sync_to_async(create_job)(script=script, servers=["here"])
    publish.use_server_loop(asyncio.get_running_loop())
    try:
        early = communicator(execution.pk, viewer)
        await early.connect()
        worker = threading.Thread(
            target=run_execution, args=(execution.pk,), kwargs={"worker": "thread"}
        )
        worker.start()

        async def watch(connection: WebsocketCommunicator) -> list[int]:
            seqs: list[int] = []
            while True:
                message = await connection.receive_json_from(timeout=20)
                if message["type"] == "log":
                    seqs += [e["seq"] for e in message["entries"]]
                elif message["type"] == "complete":
                    assert message["last_seq"] == lines
                    await connection.disconnect()
                    return seqs

        watching = [asyncio.ensure_future(watch(early))]
        late = []
        for after in (0, 0, 0, 0, 100):
            while not frame_cache.frame_after(execution.pk, 100 * len(late)):
                await asyncio.sleep(0.005)
            late.append(after)
            connection = communicator(execution.pk, viewer, after=after)
            await connection.connect()
            watching.append(asyncio.ensure_future(watch(connection)))
        results = await asyncio.gather(*watching)
        await asyncio.to_thread(worker.join, 10)
        assert results[0] == list(range(1, lines + 1))
        for after, seqs in zip(late, results[1:], strict=True):
            assert seqs == list(range(after + 1, lines + 1))
    finally:
        publish.use_server_loop(None)
