"""The counts and the skeleton the log sink keeps with each batch: an execution's
lines, warnings and errors, each scope's own, after_seq, and the runs of the log's index."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from engine import Level, LogRecord, RunScope
from otterweb.execution_logs.models import LogEntry, LogRun, LogScope
from otterweb.execution_logs.sink import DatabaseLogSink
from otterweb.executions.models import Execution
from otterweb.executions.runner import close_execution, run_execution
from otterweb.executions.services import create_job

pytestmark = pytest.mark.django_db(transaction=True)

NESTED = """Log-Information top one;
# Outer
{
    Log-Warning outer warns;
    # Inner
    {
        Log-Error inner fails;
        Log-Information inner goes on;
    }
    Log-Information outer again;
}
Log-Information top two;"""


def runs(execution: Execution) -> list[tuple[int, int, int, int]]:
    return list(
        LogRun.objects.filter(execution_id=execution.pk)
        .order_by("first_seq")
        .values_list("scope_id", "first_seq", "last_seq", "count")
    )


def counted(execution: Execution) -> dict[int, tuple[int, int, int]]:
    return {
        s.scope_id: (s.lines, s.warnings, s.errors)
        for s in LogScope.objects.filter(execution_id=execution.pk)
    }


def recounted(execution: Execution):
    """The runs and counts worked out from the stored rows, the slow way."""
    entries = list(LogEntry.objects.filter(execution_id=execution.pk).order_by("seq"))
    expected_runs = []
    for scope_id, group in itertools.groupby(entries, key=lambda e: e.scope_id or 0):
        seqs = [e.seq for e in group]
        expected_runs.append((scope_id, seqs[0], seqs[-1], len(seqs)))
    scopes = {
        s.scope_id: tuple(
            sum(1 for e in entries if e.scope_id == s.scope_id and test(e.level))
            for test in (lambda level: True, lambda level: level == 20, lambda level: level == 30)
        )
        for s in LogScope.objects.filter(execution_id=execution.pk)
    }
    total = (
        len(entries),
        sum(e.level == Level.WARNING for e in entries),
        sum(e.level == Level.ERROR for e in entries),
    )
    return expected_runs, scopes, total


def test_sink_counts_lines_warnings_and_errors_of_the_execution_and_each_scope(here) -> None:
    execution = create_job(script=NESTED, servers=["here"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    assert (execution.log_lines, execution.log_warnings, execution.log_errors) == (6, 1, 1)
    scopes = {s.name: s for s in LogScope.objects.filter(execution_id=execution.pk)}
    servers, server, outer, inner = (scopes[n] for n in ("Servers", "here", "Outer", "Inner"))
    assert counted(execution) == {
        servers.scope_id: (0, 0, 0),
        server.scope_id: (2, 0, 0),  # its own lines: the top ones of the script
        outer.scope_id: (2, 1, 0),
        inner.scope_id: (2, 0, 1),
    }
    assert (server.after_seq, outer.after_seq, inner.after_seq) == (0, 1, 2)
    assert runs(execution) == [
        (server.scope_id, 1, 1, 1),
        (outer.scope_id, 2, 2, 1),
        (inner.scope_id, 3, 4, 2),
        (outer.scope_id, 5, 5, 1),
        (server.scope_id, 6, 6, 1),
    ]


def test_sink_keeps_runs_and_counts_that_match_the_stored_rows_over_many_batches(here) -> None:
    # thousands of lines in scopes that open and close across the sink's batches
    script = (
        "foreach $i in @Range(1, 30) {\n"
        "    # Item $i\n    {\n"
        "        foreach $j in @Range(1, 80) { Log-Information item $i line $j; }\n"
        "        Log-Warning item $i warns;\n"
        "    }\n"
        "    Log-Debug between;\n"
        "}\nLog-Error last;"
    )
    execution = create_job(script=script, servers=["here"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    expected_runs, scopes, total = recounted(execution)
    assert total == (30 * 81 + 30 + 1, 30, 1)
    assert (execution.log_lines, execution.log_warnings, execution.log_errors) == total
    assert runs(execution) == expected_runs and counted(execution) == scopes
    assert sum(run[3] for run in expected_runs) == execution.log_lines


def test_sink_runs_count_only_stored_lines_when_the_volume_limit_drops_some(here, settings) -> None:
    settings.OTTERWEB_MAX_LOG_MB = 10_000 / (1024 * 1024)  # about 100 short lines
    script = (
        "# Chatty\n{\n    foreach $i in @Range(1, 1000) { Log-Information line $i; }\n"
        "    Log-Error still stored;\n}"
    )
    execution = create_job(script=script, servers=["here"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    expected_runs, scopes, total = recounted(execution)
    assert runs(execution) == expected_runs and counted(execution) == scopes
    (_, first, last, count), *_ = [r for r in expected_runs if r[0]]
    assert count < last - first + 1  # the dropped seqs are a gap inside the run
    assert execution.log_lines == total[0] < execution.last_seq


def test_sink_extends_the_last_run_when_the_next_batch_goes_on_in_its_scope(here) -> None:
    execution = create_job(script="Log-Information x;", servers=["here"])
    sink = DatabaseLogSink(execution.pk)
    scope = RunScope(1, None, "Deploy", ("Deploy",), 3, 0.0, after_seq=2)

    def record(seq: int, scope_id: int | None, level: Level = Level.INFORMATION) -> None:
        path = ("Deploy",) if scope_id else ()
        sink.record(LogRecord(seq, scope_id, path, level, f"line {seq}", None))

    async def store() -> None:
        record(1, None)
        record(2, None)
        await sink.flush()
        sink.scope_opened(scope)
        record(3, 1, Level.WARNING)
        await sink.flush()
        record(5, 1, Level.ERROR)  # seq 4 was dropped
        record(6, None)
        await sink.flush()
        sink.close()
        await sink.run()

    asyncio.run(store())
    execution.refresh_from_db()
    assert runs(execution) == [(0, 1, 2, 2), (1, 3, 5, 2), (0, 6, 6, 1)]
    assert counted(execution) == {1: (2, 1, 1)}
    assert LogScope.objects.get(execution_id=execution.pk).after_seq == 2
    counts = (execution.log_lines, execution.log_warnings, execution.log_errors)
    assert (counts, execution.last_seq) == ((5, 1, 1), 6)


def test_closing_line_of_an_execution_the_server_closes_is_counted_and_in_the_runs(here) -> None:
    execution = create_job(script=NESTED, servers=["here"])
    run_execution(execution.pk, worker="test")
    Execution.objects.filter(pk=execution.pk).update(run_state=Execution.RunState.EXECUTING)
    execution.refresh_from_db()
    close_execution(execution, "The worker w stopped responding.", status="error")
    execution.refresh_from_db()
    expected_runs, scopes, total = recounted(execution)
    assert total == (7, 1, 2) and expected_runs[-1] == (0, 7, 7, 1)
    assert runs(execution) == expected_runs and counted(execution) == scopes
    assert (execution.log_lines, execution.log_warnings, execution.log_errors) == total
    assert execution.last_seq == 7
