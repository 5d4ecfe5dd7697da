"""The log viewer's API: the index, lines by seq, search, and the streamed downloads,
in the API and as the page's links."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test import AsyncClient
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from engine import Level, LogRecord, RunScope
from otterweb.execution_logs import selectors
from otterweb.execution_logs.events import scope_message
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.execution_logs.sink import DatabaseLogSink
from otterweb.executions.models import Execution, Job
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job

pytestmark = pytest.mark.django_db(transaction=True)

T0 = 1_700_000_000.0
DEBUG, INFO, WARNING, ERROR = Level.DEBUG, Level.INFORMATION, Level.WARNING, Level.ERROR
# (id, parent, name, after_seq)
SCOPES = [(1, None, "web1", 1), (2, 1, "Deploy", 3), (3, 2, "Check", 4), (4, None, "web2", 7)]
# (seq, scope, level, message): seq 6 was dropped (the volume limit), a gap in the seqs
LINES = [
    (1, None, INFO, "starting"),
    (2, 1, INFO, "connect web1"),
    (3, 1, DEBUG, "debug detail"),
    (4, 2, INFO, "Deploying release 4.2"),
    (5, 3, WARNING, "checksum Mismatch on app.js"),
    (7, 2, ERROR, "deploy failed:\n  disk full"),
    (8, 4, INFO, "connect web2 — café"),
    (9, None, INFO, "checksum mismatch summary"),
]
PATHS = {1: "web1", 2: "web1 / Deploy", 3: "web1 / Deploy / Check", 4: "web2"}


def store(lines=LINES, scopes=SCOPES) -> Execution:
    """A finished execution whose log is ``lines`` in ``scopes``, stored by the log sink (in
    batches of two lines, so runs go on across batches)."""
    execution = Execution.objects.create(job=Job.objects.create(name="deploy", script="x"))
    sink = DatabaseLogSink(execution.pk)
    made = {}
    for scope_id, parent, name, after in scopes:
        path = (*made[parent].path, name) if parent else (name,)
        made[scope_id] = RunScope(scope_id, parent, name, path, 3, T0 + after, after_seq=after)

    async def feed() -> None:
        storing = asyncio.create_task(sink.run())
        opened = set()
        for seq, scope_id, level, message in lines:
            for sid, _, _, after in scopes:
                if after < seq and sid not in opened:
                    opened.add(sid)
                    sink.scope_opened(made[sid])
            path = made[scope_id].path if scope_id else ()
            sink.record(LogRecord(seq, scope_id, path, level, message, seq + 10, T0 + seq))
            if seq % 2:
                await sink.flush()
        sink.close()
        await storing

    asyncio.run(feed())
    execution.finish(status="error", drift=[])
    return execution


@pytest.fixture
def viewer(client_with):
    return client_with("executions.view_execution")


@pytest.fixture
def logged(db) -> Execution:
    return store()


def url(execution: Execution, what: str, **query) -> str:
    params = urlencode(query)
    return f"/api/executions/{execution.pk}/log/{what}/" + (f"?{params}" if params else "")


def folds_beyond_ascii() -> bool:
    """SQLite's searches do (in Python); PostgreSQL's as its database's locale does (C: not)."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT upper('é') = 'É'")
        return cursor.fetchone()[0]


def search(client, execution, **query) -> dict:
    response = client.get(url(execution, "search", **query))
    assert response.status_code == 200, response.content
    return response.json()


# ---- the index


def test_log_index_gives_runs_scopes_and_counts_with_the_gap_in_seqs(viewer, logged) -> None:
    index = viewer.get(url(logged, "index")).json()
    assert index["runs"] == [
        [0, 1, 1, 1],
        [1, 2, 3, 2],
        [2, 4, 4, 1],
        [3, 5, 5, 1],
        [2, 7, 7, 1],  # seq 6 was not stored: the run from 5 to 7 changed scope at 7
        [4, 8, 8, 1],
        [0, 9, 9, 1],
    ]
    assert (index["execution"], index["run_state"], index["status"], index["outcome"]) == (
        logged.pk,
        "completed",
        "error",
        "error",
    )
    assert (index["last_seq"], index["lines"], index["warnings"], index["errors"]) == (9, 8, 1, 1)
    scopes = {s["scope_id"]: s for s in index["scopes"]}
    assert [(s["parent_id"], s["name"], s["after_seq"]) for s in scopes.values()] == [
        (None, "web1", 1),
        (1, "Deploy", 3),
        (2, "Check", 4),
        (None, "web2", 7),
    ]
    own = {sid: (s["lines"], s["warnings"], s["errors"]) for sid, s in scopes.items()}
    assert own == {1: (2, 0, 0), 2: (2, 0, 1), 3: (1, 1, 0), 4: (1, 0, 0)}
    assert set(scopes[1]) >= {"line", "status", "started", "ended"}


def test_log_index_of_a_real_run_covers_every_stored_line(viewer, here) -> None:
    script = "foreach $i in @Range(1, 40) {\n    # Item $i\n    { Log-Information item $i; }\n}"
    execution = create_job(script=script, servers=["here"])
    run_execution(execution.pk, worker="test")
    index = viewer.get(url(execution, "index")).json()
    assert sum(run[3] for run in index["runs"]) == index["lines"] == 40
    lines = viewer.get(url(execution, "lines")).json()["entries"]
    by_run = [seq for _, first, last, _ in index["runs"] for seq in range(first, last + 1)]
    assert [entry["seq"] for entry in lines] == by_run


def test_scope_messages_of_the_websocket_carry_after_seq(logged) -> None:
    message = scope_message(list(LogScope.objects.filter(execution_id=logged.pk)))
    assert [s["after_seq"] for s in message["scopes"]] == [1, 3, 4, 7]


# ---- lines


def test_log_lines_pages_by_seq_across_the_gap(viewer, logged) -> None:
    first = viewer.get(url(logged, "lines", limit=3)).json()
    assert [e["seq"] for e in first["entries"]] == [1, 2, 3] and first["next"] == 3
    rest = viewer.get(url(logged, "lines", after=3, limit=10)).json()
    assert [e["seq"] for e in rest["entries"]] == [4, 5, 7, 8, 9] and rest["next"] is None
    assert rest["entries"][2] == {
        "seq": 7,
        "scope_id": 2,
        "level": "error",
        "message": "deploy failed:\n  disk full",
        "line": 17,
        "time": "2023-11-14T22:13:27+00:00",
    }
    bounded = viewer.get(url(logged, "lines", after=4, until=7, limit=2)).json()
    assert [e["seq"] for e in bounded["entries"]] == [5, 7] and bounded["next"] is None


@pytest.mark.parametrize(
    "query", [{"limit": 0}, {"limit": 10_001}, {"after": -1}, {"after": "x"}, {"until": "1.5"}]
)
def test_log_lines_refuses_bad_parameters_with_400(viewer, logged, query) -> None:
    response = viewer.get(url(logged, "lines", **query))
    assert response.status_code == 400
    assert set(response.json()["errors"]) == set(query)


# ---- search


def test_log_search_finds_text_ignoring_case_unless_asked(viewer, logged) -> None:
    assert search(viewer, logged, q="checksum mismatch") == {
        "total": 2,
        "seqs": [5, 9],
        "next": None,
        "last_seq": 9,
    }
    assert search(viewer, logged, q="checksum mismatch", case=1)["seqs"] == [9]
    if folds_beyond_ascii():
        assert search(viewer, logged, q="CAFÉ")["seqs"] == [8]
    assert search(viewer, logged, q="100%")["total"] == 0  # LIKE's wildcards are plain text


def test_log_search_pages_keep_the_total_of_the_whole_log(viewer, logged) -> None:
    first = search(viewer, logged, q="checksum", limit=1)
    assert first == {"total": 2, "seqs": [5], "next": 5, "last_seq": 9}
    assert search(viewer, logged, q="checksum", limit=1, after=5) == {
        "total": 2,
        "seqs": [9],
        "next": None,
        "last_seq": 9,
    }


def test_log_search_covers_the_lines_stored_when_it_started(viewer, logged) -> None:
    """A line stored while a search runs is past its last_seq: the viewer searches it."""
    Execution.objects.filter(pk=logged.pk).update(last_seq=7)  # as if 8 and 9 came later
    assert search(viewer, logged, q="checksum") == {
        "total": 1,
        "seqs": [5],
        "next": None,
        "last_seq": 7,
    }


def test_log_search_by_regular_expression(viewer, logged) -> None:
    assert search(viewer, logged, q=r"dep\w+\s+fail", regex=1)["seqs"] == [7]
    assert search(viewer, logged, q=r"checksum\s+mismatch", regex=1)["seqs"] == [5, 9]
    assert search(viewer, logged, q=r"checksum\s+mismatch", regex=1, case=1)["seqs"] == [9]
    assert search(viewer, logged, q=r"^connect web\d", regex=1)["seqs"] == [2, 8]
    assert search(viewer, logged, q="disk full$", regex=1)["seqs"] == [7]  # a multi-line message


def test_log_search_refuses_a_bad_regular_expression_with_the_reason(viewer, logged) -> None:
    response = viewer.get(url(logged, "search", q="(unclosed", regex=1))
    assert response.status_code == 400
    assert "missing )" in response.json()["errors"]["q"][0]
    named = viewer.get(url(logged, "search", q="(?P<verb>deploy)", regex=1))
    if connection.vendor == "postgresql":  # Python's syntax, not PostgreSQL's
        assert named.status_code == 400 and "PostgreSQL" in named.json()["errors"]["q"][0]
    else:
        assert named.json()["seqs"] == [4, 7]


def test_log_search_that_runs_too_long_is_stopped_with_a_400(viewer, monkeypatch) -> None:
    execution = Execution.objects.create(job=Job.objects.create(name="big", script="x"))
    now = timezone.now()
    LogEntry.objects.bulk_create(
        LogEntry(
            execution_id=execution.pk,
            seq=seq,
            level=INFO,
            message=f"line {seq} of the log",
            time=now,
        )
        for seq in range(1, 30_001)
    )
    Execution.objects.filter(pk=execution.pk).update(last_seq=30_000)
    monkeypatch.setattr(selectors, "SEARCH_SECONDS", 0.001)
    stopped = viewer.get(url(execution, "search", q=r"\d{9}", regex=1))
    assert stopped.status_code == 400
    assert "took longer than 0.001 s" in stopped.json()["errors"]["q"][0]
    monkeypatch.setattr(selectors, "SEARCH_SECONDS", 60.0)  # the connection is still fine
    assert search(viewer, execution, q="line 29999 ")["seqs"] == [29_999]


def test_log_search_by_level_alone_and_with_text(viewer, logged) -> None:
    assert search(viewer, logged, levels="warning,error")["seqs"] == [5, 7]
    assert search(viewer, logged, levels="info")["seqs"] == [1, 2, 4, 8, 9]
    assert search(viewer, logged, levels="information,debug", q="de")["seqs"] == [3, 4]
    response = viewer.get(url(logged, "search", levels="fatal"))
    assert response.status_code == 400 and "fatal" in response.json()["errors"]["levels"][0]


def test_log_search_in_a_scope_includes_the_scopes_inside_it(viewer, logged, monkeypatch) -> None:
    assert search(viewer, logged, scope=2)["seqs"] == [4, 5, 7]
    assert search(viewer, logged, scope=1, q="checksum")["seqs"] == [5]
    assert search(viewer, logged, scope=3)["seqs"] == [5]
    monkeypatch.setattr(selectors, "SCOPES_AS_PARAMETERS", 1)  # the ids as one JSON value
    assert search(viewer, logged, scope=1)["seqs"] == [2, 3, 4, 5, 7]
    response = viewer.get(url(logged, "search", scope=99))
    assert response.status_code == 400 and "no scope 99" in response.json()["errors"]["scope"][0]


def test_log_search_narrows_a_regular_expression_by_its_plain_text() -> None:
    assert selectors._literal(r"checksum\s+mismatch") == "checksum"
    assert selectors._literal(r"deploy(ed)? to web\d+") == " to web"
    assert selectors._literal("abc|defgh") is None  # either branch may match
    assert selectors._literal("a.b.c") is None
    assert selectors._literal("ab") is None


# ---- permissions


@pytest.mark.parametrize("what", ["index", "lines", "search", "download"])
def test_log_endpoints_refuse_users_who_may_not_view_executions(client_with, logged, what) -> None:
    response = client_with("inventory.view_server").get(url(logged, what))
    assert response.status_code == 403


def test_log_download_pages_refuse_users_who_may_not_view_executions(client_with, logged) -> None:
    response = client_with("inventory.view_server").get(f"/executions/{logged.pk}/log.txt")
    assert response.status_code == 403


# ---- downloads


def expected_text() -> str:
    lines = []
    for seq, scope_id, level, message in LINES:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(T0 + seq))
        where = f" [{PATHS[scope_id]}]" if scope_id else ""
        lines.append(
            f"{stamp} {level.label.upper()}{where} {message.replace(chr(10), chr(10) + '    ')}\n"
        )
    return "".join(lines)


def test_log_download_streams_the_stored_log_as_text_a_page_at_a_time(
    viewer, logged, monkeypatch
) -> None:
    monkeypatch.setattr(selectors, "DOWNLOAD_PAGE", 3)
    response = viewer.get(url(logged, "download", format="text"))
    assert response.status_code == 200 and response.streaming
    # the log is read as it is sent: a query for the scopes' paths, then one a page
    with CaptureQueriesContext(connection) as queries:
        chunks = [chunk.decode() for chunk in response.streaming_content]
    assert len(chunks) == 3 and len(queries) == 1 + 3  # 8 lines, 3 a page
    assert "".join(chunks) == expected_text()
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="execution-{logged.pk}.log"'
    assert "2023-11-14T22:13:27+00:00 ERROR [web1 / Deploy] deploy failed:\n      disk full\n" in (
        "".join(chunks)
    )


def test_log_download_as_json_lines_equals_the_lines_api_with_scope_paths(viewer, logged) -> None:
    response = viewer.get(url(logged, "download", format="jsonl"))
    assert response["Content-Type"] == "application/jsonl; charset=utf-8"
    rows = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    entries = viewer.get(url(logged, "lines")).json()["entries"]
    assert [{k: v for k, v in row.items() if k != "scope"} for row in rows] == entries
    assert [row["scope"] for row in rows] == [PATHS.get(s) for _, s, _, _ in LINES]


def test_log_download_refuses_an_unknown_format_with_400(viewer, logged) -> None:
    response = viewer.get(url(logged, "download", format="xml"))
    assert response.status_code == 400 and "format" in response.json()["errors"]


def test_log_download_links_of_the_page_give_the_same_files(viewer, logged) -> None:
    text = viewer.get(f"/executions/{logged.pk}/log.txt")
    assert b"".join(text.streaming_content).decode() == expected_text()
    assert "attachment" in text["Content-Disposition"]
    jsonl = viewer.get(f"/executions/{logged.pk}/log.jsonl")
    api = viewer.get(url(logged, "download", format="jsonl"))
    assert b"".join(jsonl.streaming_content) == b"".join(api.streaming_content)
    assert viewer.get("/executions/999999/log.txt").status_code == 404


def test_log_download_under_asgi_streams_an_async_iterator(viewer, logged, monkeypatch) -> None:
    """Django reads a synchronous iterator whole before sending it under ASGI: the download
    gives an asynchronous one there."""
    monkeypatch.setattr(selectors, "DOWNLOAD_PAGE", 3)
    client = AsyncClient()
    client.cookies = viewer.cookies

    async def download():
        response = await client.get(f"/executions/{logged.pk}/log.txt")
        assert response.is_async
        return [chunk async for chunk in response.streaming_content]

    chunks = asyncio.run(download())
    assert len(chunks) == 3 and b"".join(chunks).decode() == expected_text()
