"""The logs' migrations keep every stored log: the log models' move from the executions app
(executions 0013, execution_logs 0001) takes the tables with their rows, either way, and drops
or restores the foreign keys' constraints; executions 0009 counts a log stored before the sink
counted (after_seq, the runs, the counts). Each test migrates the test database back and then
forward to the latest migrations, as ``migrate`` does on an existing installation."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from otterweb.execution_logs.models import LogEntry, LogRun, LogScope
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from tests.web.execution_logs.test_log_counters import NESTED, counted, runs

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_MOVE = ("executions", "0012_job_origin")
BEFORE_COUNTS = ("executions", "0008_run_on_local_server")
COLUMNS = {
    "LogEntry": ("execution_id", "seq", "scope_id", "level", "message", "line", "time"),
    "LogScope": ("execution_id", "scope_id", "parent_id", "name", "status", "after_seq"),
    "LogRun": ("execution_id", "scope_id", "first_seq", "last_seq", "count"),
}


def migrate(target: tuple[str, str] | None = None):
    """Migrate the database to ``target`` (None: the latest migrations); the models as they
    are there."""
    executor = MigrationExecutor(connection)
    targets = [target] if target else executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def logged(here) -> Execution:
    """A finished execution with a log of scopes, warnings and errors; the database is at
    the latest migrations again after the test, whatever happened in it."""
    execution = create_job(script=NESTED, servers=["here"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    yield execution
    migrate()


def rows(models: dict) -> dict[str, list[tuple]]:
    return {
        name: list(model.objects.order_by(*COLUMNS[name][:2]).values_list(*COLUMNS[name]))
        for name, model in models.items()
    }


def foreign_keys(table: str) -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table).values()
    return [constraint["foreign_key"] for constraint in found if constraint["foreign_key"]]


def test_migration_moves_the_log_tables_with_their_rows_and_back(logged) -> None:
    stored = rows({"LogEntry": LogEntry, "LogScope": LogScope, "LogRun": LogRun})
    assert len(stored["LogEntry"]) == 6 and stored["LogScope"] and stored["LogRun"]
    assert all(foreign_keys(f"execution_logs_{name.lower()}") == [] for name in COLUMNS)

    old = migrate(BEFORE_MOVE)
    assert rows({name: old.get_model("executions", name) for name in COLUMNS}) == stored
    for name in COLUMNS:
        assert foreign_keys(f"executions_{name.lower()}") == [("executions_execution", "id")]

    migrate()
    assert rows({"LogEntry": LogEntry, "LogScope": LogScope, "LogRun": LogRun}) == stored
    assert all(foreign_keys(f"execution_logs_{name.lower()}") == [] for name in COLUMNS)


@pytest.mark.slow
def test_migration_counts_logs_stored_before_the_sink_counted_them(logged) -> None:
    made = (runs(logged), counted(logged), logged.log_lines, logged.log_warnings)
    after = dict(LogScope.objects.values_list("scope_id", "after_seq"))

    migrate(BEFORE_COUNTS)  # the log stays, without what the sink keeps beside it
    migrate()

    execution = Execution.objects.get(pk=logged.pk)
    assert (runs(execution), counted(execution), execution.log_lines, execution.log_warnings) == (
        made
    )
    assert dict(LogScope.objects.values_list("scope_id", "after_seq")) == after
