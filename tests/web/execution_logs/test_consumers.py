"""The execution log websocket: refusal, backlog then live, resume after a seq, gap refill, and
a whole execution watched from another thread."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from otterweb.accounts import tokens
from otterweb.asgi import application
from otterweb.execution_logs import publish
from otterweb.execution_logs.consumers import may_view
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from tests.web.execution_logs.sockets import communicator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("here")]


@pytest.fixture
def viewer(user_with):
    return user_with("executions.view_execution", username="watcher")


def store(execution, *seqs: int) -> list[LogEntry]:
    """Entries stored as the sink stores them: the execution's last_seq follows."""
    entries = [
        LogEntry.objects.create(
            execution_id=execution.pk, seq=s, level=10, message=f"line {s}", time=timezone.now()
        )
        for s in seqs
    ]
    Execution.objects.filter(pk=execution.pk).update(last_seq=max(seqs))
    return entries


async def test_consumer_refuses_anonymous_and_users_without_permission(user_with) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    connected, code = await communicator(execution.pk, AnonymousUser()).connect()
    assert (connected, code) == (False, 4403)
    plain = await sync_to_async(user_with)(username="plain")
    connected, code = await communicator(execution.pk, plain).connect()
    assert (connected, code) == (False, 4403)


async def test_consumer_sends_backlog_then_live_batches(viewer) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    await sync_to_async(store)(execution, 1, 2)
    connection = communicator(execution.pk, viewer)
    assert (await connection.connect())[0]
    assert (await connection.receive_json_from()) == {
        "type": "status",
        "run_state": "pending",
        "status": "normal",
        "outcome": "pending",
        "outcome_label": "Pending",
    }
    backlog = await connection.receive_json_from()
    assert [e["seq"] for e in backlog["entries"]] == [1, 2]
    live = await sync_to_async(store)(execution, 3)
    await publish.publish_batch(execution.pk, live, [])
    assert [e["seq"] for e in (await connection.receive_json_from())["entries"]] == [3]
    await connection.disconnect()


async def test_consumer_resumes_after_a_seq_and_drops_what_the_client_has(viewer) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    entries = await sync_to_async(store)(execution, 1, 2, 3)
    connection = communicator(execution.pk, viewer, after=2)
    await connection.connect()
    await connection.receive_json_from()  # status
    assert [e["seq"] for e in (await connection.receive_json_from())["entries"]] == [3]
    await publish.publish_batch(execution.pk, entries, [])  # already sent: nothing new
    assert await connection.receive_nothing(timeout=0.2)
    await connection.disconnect()


async def test_consumer_sends_only_the_new_part_of_a_batch_it_partly_sent(viewer) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    stored = await sync_to_async(store)(execution, 1, 2, 3)
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    assert [e["seq"] for e in (await connection.receive_json_from())["entries"]] == [1, 2, 3]
    stored += await sync_to_async(store)(execution, 4, 5)
    await publish.publish_batch(execution.pk, stored[2:], [])  # 3 was sent with the backlog
    assert [e["seq"] for e in (await connection.receive_json_from())["entries"]] == [4, 5]
    assert await connection.receive_nothing(timeout=0.2)
    await connection.disconnect()


async def test_consumer_sends_a_scope_before_refilled_lines_of_it(viewer) -> None:
    """The message with a scope was dropped; the lines refilled from the database come after
    their scope (and its parent), never before."""
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    assert await connection.receive_nothing(timeout=0.2)  # the backlog, empty, is over

    def stored_in_scopes():
        now = timezone.now()
        for scope_id, parent_id in ((1, None), (2, 1)):
            LogScope.objects.create(
                execution_id=execution.pk,
                scope_id=scope_id,
                parent_id=parent_id,
                name=f"scope {scope_id}",
                started=now,
            )
        return [
            LogEntry.objects.create(
                execution_id=execution.pk,
                seq=seq,
                scope_id=2,
                level=10,
                message=f"line {seq}",
                time=now,
            )
            for seq in (1, 2, 3)
        ]

    stored = await sync_to_async(stored_in_scopes)()
    await publish.publish_batch(execution.pk, stored[2:], [])  # lines 1 and 2, and the scopes, lost
    scopes = await connection.receive_json_from()
    assert scopes["type"] == "scope"
    assert [(s["scope_id"], s["parent_id"]) for s in scopes["scopes"]] == [(1, None), (2, 1)]
    received = []
    while len(received) < 3:
        message = await connection.receive_json_from()
        assert message["type"] == "log"
        received += [e["seq"] for e in message["entries"]]
    assert received == [1, 2, 3]
    await connection.disconnect()


async def test_consumer_sends_scopes_of_a_dropped_message_before_newer_ones(viewer) -> None:
    """The batch that opened scopes 1 and 2 was dropped; the next one opens scope 3. The client
    gets 1 and 2 from the database first, then 3, then the lines (refilled ones included)."""
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    assert await connection.receive_nothing(timeout=0.2)  # the backlog, empty, is over

    def stored():
        now = timezone.now()
        scopes = [
            LogScope.objects.create(
                execution_id=execution.pk,
                scope_id=i,
                parent_id=None if i == 1 else 1,
                name=f"scope {i}",
                started=now,
            )
            for i in (1, 2, 3)
        ]
        entries = [
            LogEntry.objects.create(
                execution_id=execution.pk,
                seq=seq,
                scope_id=scope,
                level=10,
                message=f"line {seq}",
                time=now,
            )
            for seq, scope in ((1, 2), (2, 3))
        ]
        return scopes, entries

    scopes, entries = await sync_to_async(stored)()
    await publish.publish_batch(execution.pk, entries[1:], scopes[2:])
    first = await connection.receive_json_from()
    second = await connection.receive_json_from()
    assert [s["scope_id"] for s in first["scopes"]] == [1, 2]
    assert [s["scope_id"] for s in second["scopes"]] == [3]
    received = []
    while len(received) < 2:
        received += [e["seq"] for e in (await connection.receive_json_from())["entries"]]
    assert received == [1, 2]
    await connection.disconnect()


async def test_consumer_refills_a_gap_from_the_database(viewer) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    assert await connection.receive_nothing(timeout=0.2)  # the backlog, empty, is over
    stored = await sync_to_async(store)(execution, 1, 2, 3)
    await publish.publish_batch(execution.pk, stored[2:], [])  # the batch with 1 and 2 was dropped
    received = [e["seq"] for e in (await connection.receive_json_from())["entries"]]
    received += (
        [e["seq"] for e in (await connection.receive_json_from())["entries"]]
        if received != [1, 2, 3]
        else []
    )
    assert received == [1, 2, 3]
    await connection.disconnect()


async def test_consumer_forwards_live_batches_without_a_trip_to_the_database_thread(
    viewer, monkeypatch
) -> None:
    """Channels would close stale connections on the one database thread before every message:
    a trip per batch per viewer, that new viewers' queries wait behind."""
    trips = []

    async def close_old_connections() -> None:
        trips.append(1)

    monkeypatch.setattr("channels.consumer.aclose_old_connections", close_old_connections)
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    for seq in range(1, 21):
        await publish.publish_batch(execution.pk, await sync_to_async(store)(execution, seq), [])
        assert [e["seq"] for e in (await connection.receive_json_from())["entries"]] == [seq]
    assert trips == []
    await connection.disconnect()


async def test_consumer_authenticates_api_clients_by_token_header(viewer) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    _token, text = await sync_to_async(tokens.create)(user=viewer)
    connection = WebsocketCommunicator(
        application,
        f"/ws/executions/{execution.pk}/",
        headers=[
            (b"authorization", f"Token {text}".encode()),
            (b"origin", b"http://127.0.0.1"),
            (b"host", b"127.0.0.1"),
        ],
    )
    connected, _code = await connection.connect()
    assert connected
    assert (await connection.receive_json_from())["type"] == "status"
    await connection.disconnect()
    refused = WebsocketCommunicator(
        application,
        f"/ws/executions/{execution.pk}/",
        headers=[
            (b"authorization", b"Token wrong"),
            (b"origin", b"http://127.0.0.1"),
            (b"host", b"127.0.0.1"),
        ],
    )
    assert (await refused.connect())[0] is False


async def test_consumer_watches_a_whole_execution_run_by_a_worker_thread(viewer) -> None:
    script = "foreach $i in @Range(1, 400) { Log-Information line $i; }"
    execution = await sync_to_async(create_job)(script=script, servers=["here"])
    publish.use_server_loop(asyncio.get_running_loop())
    try:
        connection = communicator(execution.pk, viewer)
        await connection.connect()
        worker = threading.Thread(
            target=run_execution, args=(execution.pk,), kwargs={"worker": "thread"}
        )
        worker.start()
        seqs: list[int] = []
        while True:
            message = await connection.receive_json_from(timeout=10)
            if message["type"] == "log":
                seqs += [e["seq"] for e in message["entries"]]
            if message["type"] == "complete":
                assert message["last_seq"] == 400
                break
        await asyncio.to_thread(worker.join, 10)
        assert seqs == list(range(1, 401))
        await connection.disconnect()
    finally:
        publish.use_server_loop(None)


async def test_consumer_sends_long_backlogs_and_long_lines_in_bounded_messages(viewer) -> None:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])

    def store_many() -> None:
        LogEntry.objects.bulk_create(
            [
                LogEntry(
                    execution_id=execution.pk,
                    seq=s,
                    level=10,
                    message="x" * (100_000 if s == 5 else 1000),
                    time=timezone.now(),
                )
                for s in range(1, 1501)
            ]
        )
        Execution.objects.filter(pk=execution.pk).update(last_seq=1500)

    await sync_to_async(store_many)()
    connection = communicator(execution.pk, viewer)
    await connection.connect()
    await connection.receive_json_from()  # status
    seqs, largest = [], 0
    while len(seqs) < 1500:
        raw = await connection.receive_from()
        largest = max(largest, len(raw))
        seqs += [e["seq"] for e in json.loads(raw)["entries"]]
    assert seqs == list(range(1, 1501))
    assert largest < 1_000_000
    await connection.disconnect()


def test_may_view_answers_as_has_perm_and_superusers_need_no_query(
    user_with, django_user_model, django_assert_num_queries
) -> None:
    """A websocket viewer who is an active superuser is let in without a trip off the loop."""
    root = django_user_model.objects.create_superuser("root")
    with django_assert_num_queries(0):
        assert async_to_sync(may_view)(root)
    gone = django_user_model.objects.create_superuser("gone", is_active=False)
    assert not async_to_sync(may_view)(gone)
    assert async_to_sync(may_view)(user_with("executions.view_execution"))
    assert not async_to_sync(may_view)(user_with())
    assert not async_to_sync(may_view)(None)
