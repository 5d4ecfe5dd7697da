"""Retention (otterweb.retention): which executions the policies no longer keep, and purging
them with their logs and a check's drift, a little at a time."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from otterweb.configuration.models import Check, ConfigurationRun, DriftItem, ServerState, State
from otterweb.execution_logs.models import LogEntry, LogRun, LogScope
from otterweb.executions.models import Execution, Job, JobTemplate
from otterweb.inventory.models import Server
from otterweb.rafts.models import Raft, RaftItem
from otterweb.retention import services
from otterweb.retention.services import Policy

pytestmark = pytest.mark.django_db

NOW = timezone.now()
POLICY = Policy(days=90, failed_days=365, checks_days=30, last_per_template=2)


def ran(days_ago: float, *, status="normal", template=None, lines=0, state="completed"):
    """An execution that ended ``days_ago``, with ``lines`` log entries in two scopes."""
    job = Job.objects.create(name="run", script="Log-Information hi;", template=template)
    ended = NOW - timedelta(days=days_ago)
    execution = Execution.objects.create(
        job=job, status=status, run_state=state, ended=None if state != "completed" else ended
    )
    Execution.objects.filter(pk=execution.pk).update(created=ended, log_lines=lines)
    for scope in (1, 2):
        LogScope.objects.create(execution_id=execution.pk, scope_id=scope, name="s", started=ended)
    LogRun.objects.create(
        execution_id=execution.pk, scope_id=1, first_seq=1, last_seq=lines, count=lines
    )
    LogEntry.objects.bulk_create(
        LogEntry(execution_id=execution.pk, seq=seq, scope_id=1, level=20, message="m", time=ended)
        for seq in range(1, lines + 1)
    )
    return execution


def template(name: str) -> JobTemplate:
    item = RaftItem.objects.create(raft=Raft.objects.get_or_create(name="ops")[0], name=name)
    return JobTemplate.objects.create(name=name, raft_item=item)


def check(days_ago: float, server: Server, *, current: bool = False) -> Execution:
    execution = ran(days_ago)
    run = ConfigurationRun.objects.create(execution=execution, purpose="check")
    found = Check.objects.create(server=server, run=run, state=State.DRIFTED, finished=True)
    DriftItem.objects.create(server_check=found, key="Ensure-File /etc/motd")
    if current:
        ServerState.objects.update_or_create(server=server, defaults={"last_check": found})
    return execution


def test_retention_keeps_what_is_young_failed_or_last_of_its_template_and_purges_the_rest() -> None:
    young = ran(10)
    old = ran(100)
    failed_old = ran(100, status="error")
    failed_older = ran(400, status="error")
    running = ran(500, state="executing")
    nightly = template("nightly")
    last_two = [ran(200 - n, template=nightly) for n in range(2)]
    before_them = ran(300, template=nightly)
    web = Server.objects.create(name="web")
    old_check = check(40, web)
    current_check = check(400, Server.objects.create(name="db"), current=True)
    young_check = check(20, web)
    assert set(services.expired(POLICY, now=NOW)) == {old, failed_older, before_them, old_check}
    kept = {young, failed_old, running, *last_two, current_check, young_check}
    assert kept.isdisjoint(services.expired(POLICY, now=NOW))


def test_retention_of_zero_days_keeps_everything() -> None:
    ran(1000)
    ran(1000, status="error")
    check(1000, Server.objects.create(name="web"))
    forever = Policy(days=0, failed_days=0, checks_days=0, last_per_template=0)
    assert forever.keeps_everything
    assert not services.expired(forever, now=NOW).exists()


def test_retention_purge_deletes_the_log_in_batches_the_drift_and_an_emptied_job() -> None:
    old = ran(100, lines=2345)
    young = ran(1, lines=10)
    gone_check = check(40, Server.objects.create(name="web"))
    assert services.purge(POLICY, now=NOW, rows=500) == 2
    assert list(Execution.objects.all()) == [young]
    assert not LogEntry.objects.filter(execution_id__in=[old.pk, gone_check.pk]).exists()
    assert not LogScope.objects.filter(execution_id=old.pk).exists()
    assert not LogRun.objects.filter(execution_id=old.pk).exists()
    assert LogEntry.objects.filter(execution_id=young.pk).count() == 10
    assert not Job.objects.filter(pk=old.job_id).exists()
    assert not Check.objects.exists() and not DriftItem.objects.exists()


def test_retention_purge_stops_at_its_time_and_goes_on_in_the_next_round() -> None:
    for _ in range(3):
        ran(100, lines=5)
    assert services.purge(POLICY, now=NOW, seconds=0) == 1  # the first, then its time was up
    assert services.purge(POLICY, now=NOW) == 2
    assert not Execution.objects.exists()


def test_retention_purge_command_dry_run_says_what_would_go_and_deletes_nothing(settings) -> None:
    settings.OTTERWEB_KEEP_LAST_PER_TEMPLATE = 0
    ran(100, lines=1200)
    ran(1, lines=30)
    out = io.StringIO()
    call_command("purge", "--dry-run", stdout=out)
    said = out.getvalue()
    assert "executions kept 90 days, failed ones kept 365 days" in said
    table = [line.split() for line in said.splitlines() if line.startswith(("executions", "log"))]
    assert table == [["executions", "2", "1"], ["log", "lines", "1,230", "1,200"]]
    assert "Dry run: nothing was deleted." in said
    assert Execution.objects.count() == 2
    out = io.StringIO()
    call_command("purge", stdout=out)
    assert "Purged 1 executions with their logs." in out.getvalue()
    assert Execution.objects.count() == 1


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_retention_purges_a_million_log_lines_while_another_run_writes() -> None:
    """The writer never waits more than 200 ms on the purge, and the purge ends (issue 24), on
    SQLite and PostgreSQL."""
    from tests.purging import Writer, old_execution

    old = old_execution(1_000_000)
    writer = Writer()
    writer.start()
    try:
        while services.purge(Policy(days=90, failed_days=365, checks_days=30, last_per_template=0)):
            pass
    finally:
        writer.stop()
    assert not Execution.objects.filter(pk=old).exists()
    assert not LogEntry.objects.filter(execution_id=old).exists()
    assert len(writer.seconds) > 10  # it wrote all along
    assert max(writer.seconds) < 0.2, sorted(writer.seconds)[-5:]
    assert LogEntry.objects.filter(execution_id=writer.execution.pk).count() == 100 * len(
        writer.seconds
    )


def test_retention_database_page_shows_what_is_held_and_what_goes_to_staff_only(
    client_with, settings
) -> None:
    settings.OTTERWEB_KEEP_LAST_PER_TEMPLATE = 0
    ran(100, lines=1500)
    ran(1, lines=30)
    page = client_with(is_staff=True).get("/database/")
    assert page.status_code == 200
    text = page.content.decode()
    assert '<th scope="row">Log lines</th><td class="num">1,530</td><td class="num">1,500</td>' in (
        text
    )
    assert "kept 90 days after they end" in text and "kept 365 days" in text
    assert client_with("executions.view_execution").get("/database/").status_code == 403
