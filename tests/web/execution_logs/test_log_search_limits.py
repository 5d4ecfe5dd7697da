"""The log search's time limit: a regular expression that backtracks without end, on
one line or over many, stops the search within SEARCH_SECONDS with a 400 in the API's error
body, on SQLite (matched in Python) and on PostgreSQL (a statement timeout); and the site keeps
answering other requests meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time
from urllib.parse import urlencode

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.core.asgi import get_asgi_application
from django.db import connection
from django.utils import timezone

from engine import Level
from otterweb.execution_logs import selectors
from otterweb.execution_logs.models import LogEntry
from otterweb.executions.models import Execution, Job

pytestmark = pytest.mark.django_db(transaction=True)

ASGI = get_asgi_application()

LIMIT = 2.0  # the search's limit in these tests (10 s in use), to keep them short
# slower than any limit on both databases: PostgreSQL's engine backtracks on back references
# (and not on (a|a)+, which the regex package does)
BACK_REFERENCES = (r"^(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1!$", "a" * 200 + "!")
NESTED = (r"^(a|a)+$", "a" * 44 + "!")

# How long a stopped search may take. PostgreSQL's statement timeout is wall time (the request's
# own work comes on top). In Python (SQLite) the regex package counts CPU time: the bound is on
# the CPU time of the thread that searched (the process's would count the requests other threads
# answer meanwhile), and wall time only loosely bounded, since a machine other tests keep busy (a
# load of 14 on 2 cores) hands the process a seventh of a core.
CPU_SLACK = 1.0
WALL_SLACK = {"postgresql": 3.0, "sqlite": 10 * LIMIT}


class Took:
    """The wall time inside it, and the CPU time of the thread that runs it."""

    def __enter__(self) -> Took:
        self.wall, self.cpu = time.monotonic(), time.thread_time()
        return self

    def __exit__(self, *error) -> None:
        self.wall, self.cpu = time.monotonic() - self.wall, time.thread_time() - self.cpu


@pytest.fixture
def limit(monkeypatch):
    monkeypatch.setattr(selectors, "SEARCH_SECONDS", LIMIT)
    return LIMIT


@pytest.fixture
def viewer(client_with):
    return client_with("executions.view_execution")


def logged(*messages: str) -> Execution:
    execution = Execution.objects.create(job=Job.objects.create(name="slow", script="x"))
    now = timezone.now()
    LogEntry.objects.bulk_create(
        LogEntry(
            execution_id=execution.pk, seq=seq, level=Level.INFORMATION, message=text, time=now
        )
        for seq, text in enumerate(messages, start=1)
    )
    Execution.objects.filter(pk=execution.pk).update(last_seq=len(messages))
    return execution


def url(execution: Execution, what: str, **query) -> str:
    return f"/api/executions/{execution.pk}/log/{what}/?{urlencode(query)}"


def catastrophic() -> list[tuple[str, str]]:
    """The patterns that take longer than any limit on this database, with a line for each."""
    if connection.vendor == "postgresql":
        return [BACK_REFERENCES]
    return [NESTED, BACK_REFERENCES]


def assert_stopped(response, took: Took) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    [message] = body["errors"]["q"]
    assert message.startswith(f"The search took longer than {LIMIT:g} s and was stopped")
    assert body["detail"] == f"invalid request: {message}"
    print(f"vendor={connection.vendor} limit={LIMIT:g}s wall={took.wall:.2f}s cpu={took.cpu:.2f}s")
    assert LIMIT * 0.9 < took.wall < LIMIT + WALL_SLACK[connection.vendor]
    assert took.cpu < LIMIT + CPU_SLACK


def test_log_search_limits_stop_a_catastrophic_pattern_with_a_400(viewer, limit) -> None:
    for pattern, line in catastrophic():
        execution = logged("starting", line, "done")
        with Took() as took:
            response = viewer.get(url(execution, "search", q=pattern, regex=1))
        assert_stopped(response, took)
        # the connection is fine afterwards
        found = viewer.get(url(execution, "search", q="done"))
        assert found.status_code == 200 and found.json()["seqs"] == [3]


def test_log_search_limits_count_for_the_whole_search_not_each_line(viewer, limit) -> None:
    # each line takes a fraction of the limit, all of them together several times it
    if connection.vendor == "postgresql":
        lines = [BACK_REFERENCES[1][:120] + "!"] * 200
        pattern = BACK_REFERENCES[0]
    else:
        lines = ["a" * 20 + "!"] * 60  # about 0.25 s each on this machine
        pattern = NESTED[0]
    execution = logged(*lines)
    with Took() as took:
        response = viewer.get(url(execution, "search", q=pattern, regex=1))
    assert_stopped(response, took)


def test_log_search_limits_leave_other_requests_fast(viewer, client_with, limit) -> None:
    pattern, line = catastrophic()[-1]
    execution = logged("starting", line, "done")
    searcher = client_with("executions.view_execution")
    answered: dict = {}

    def lines() -> float:
        started = time.monotonic()
        response = viewer.get(url(execution, "lines"))
        assert response.status_code == 200 and len(response.json()["entries"]) == 3
        return time.monotonic() - started

    def search() -> None:
        with Took() as took:
            answered["response"] = searcher.get(url(execution, "search", q=pattern, regex=1))
        answered["took"] = took
        connection.close()  # this thread's connection ends with it

    before = sorted(lines() for _ in range(10))  # the same request with no search running
    thread = threading.Thread(target=search)
    thread.start()
    time.sleep(0.3)  # the search is matching by now
    during = []
    while thread.is_alive() and len(during) < 40:
        during.append(lines())
        time.sleep(0.02)
    thread.join()
    assert_stopped(answered["response"], answered["took"])
    assert len(during) >= 5, during
    during.sort()
    median, usual = during[len(during) // 2], before[len(before) // 2]
    print(
        f"vendor={connection.vendor} others={len(during)} median={median * 1000:.0f}ms "
        f"max={during[-1] * 1000:.0f}ms (no search: median={usual * 1000:.0f}ms "
        f"max={before[-1] * 1000:.0f}ms)"
    )
    # a match holding the GIL made every other request wait for the whole match
    assert median < 3 * usual + 0.05 and during[-1] < max(1.0, 3 * before[-1]), during


async def asgi_get(address: str, cookie: str) -> tuple[int, bytes]:
    """A GET through Django's own ASGI handler, as daphne makes it: each request's view runs
    on a thread of its own (Django's test AsyncClient runs them all on one)."""
    path, _, query = address.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    talk = ApplicationCommunicator(ASGI, scope)
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await talk.receive_output(60)
    body = b""
    while True:
        part = await talk.receive_output(60)
        body += part.get("body", b"")
        if not part.get("more_body"):
            return start["status"], body


async def test_log_search_limits_leave_other_requests_fast_under_asgi(client_with, limit) -> None:
    pattern, line = catastrophic()[-1]
    execution = await sync_to_async(logged)("starting", line, "done")
    client = await sync_to_async(client_with)("executions.view_execution")
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def lines() -> float:
        started = time.monotonic()
        status, _ = await asgi_get(url(execution, "lines"), cookie)
        assert status == 200
        return time.monotonic() - started

    before = sorted([await lines() for _ in range(10)])
    started = time.monotonic()
    searching = asyncio.ensure_future(
        asgi_get(url(execution, "search", q=pattern, regex=1), cookie)
    )
    await asyncio.sleep(0.3)
    during = []
    while not searching.done() and len(during) < 40:
        during.append(await lines())
        await asyncio.sleep(0.02)
    status, body = await searching
    took = time.monotonic() - started
    assert status == 400 and b"The search took longer than" in body, body
    assert took < LIMIT + WALL_SLACK[connection.vendor]
    during.sort()
    median, usual = during[len(during) // 2], before[len(before) // 2]
    print(
        f"vendor={connection.vendor} asgi search_wall={took:.2f}s others={len(during)} "
        f"median={median * 1000:.0f}ms max={during[-1] * 1000:.0f}ms "
        f"(no search: median={usual * 1000:.0f}ms max={before[-1] * 1000:.0f}ms)"
    )
    assert len(during) >= 5, during
    assert median < 3 * usual + 0.05 and during[-1] < max(1.0, 3 * before[-1]), during


def test_log_search_limits_leave_quick_patterns_alone(viewer, limit) -> None:
    execution = logged("deploy 4.2 to web1", "deploy 4.3 to web2", "done")
    response = viewer.get(url(execution, "search", q=r"deploy \d\.\d to web[12]", regex=1))
    assert response.status_code == 200 and response.json()["seqs"] == [1, 2]
