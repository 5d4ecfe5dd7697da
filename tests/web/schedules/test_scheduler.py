"""The scheduler on a frozen clock: a schedule fires when due and not before, missed runs are
run once, daylight saving time is kept in two zones, disabled schedules never fire, failures are
recorded and never raised, configuration schedules call the configuration app, and processes
racing for one due schedule fire it once."""

from __future__ import annotations

import threading
import time
import types
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection

from otterweb.configuration import services as configuration
from otterweb.executions import dispatch
from otterweb.executions.models import Execution, Job
from otterweb.housekeeping import ROUNDS
from otterweb.inventory.models import Environment
from otterweb.schedules import scheduler
from otterweb.schedules.models import Schedule
from otterweb.schedules.services import save_schedule, set_enabled
from tests.web.schedules.conftest import owner

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_schedules")]


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def job_schedule(template, *, cron: str = "0 * * * *", time_zone: str = "UTC", **fields):
    return save_schedule(
        name=fields.pop("name", f"{template.name} {cron} {time_zone}"),
        template=template,
        cron=cron,
        time_zone=time_zone,
        user=fields.pop("user", None) or owner(),
        **fields,
    )


def test_scheduler_fires_when_due_and_not_before(deploy) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 59, 50), tick=False) as clock:
        schedule = job_schedule(deploy, variables={"Version": "2.0"})
        assert schedule.next_run == utc(2026, 1, 5, 10)
        assert scheduler.fire_due() == []
        clock.move_to(utc(2026, 1, 5, 9, 59, 59, 999999))
        assert scheduler.fire_due() == []
        clock.move_to(utc(2026, 1, 5, 10, 0, 0))
        assert scheduler.fire_due() == [schedule.pk]
        assert scheduler.fire_due() == []  # once
    execution = Execution.objects.get()
    schedule.refresh_from_db()
    assert (schedule.last_fired, schedule.next_run) == (utc(2026, 1, 5, 10), utc(2026, 1, 5, 11))
    assert (schedule.last_execution, schedule.last_error) == (execution, "")
    job = execution.job
    assert (job.template, job.requested_by, job.targets) == (deploy, owner(), ["here"])
    assert job.variables == {"Version": "2.0", "Verbose": "false", "Channel": "stable"}


def test_scheduler_runs_missed_runs_once_and_counts_the_next_from_now(deploy) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = job_schedule(deploy)  # hourly: due at 10:00
        clock.move_to(utc(2026, 1, 5, 20, 0, 7))  # the server was down for ten hours
        assert scheduler.fire_due() == [schedule.pk]
        assert scheduler.fire_due() == []
    schedule.refresh_from_db()
    assert Execution.objects.count() == 1
    assert schedule.next_run == utc(2026, 1, 5, 21)


def fire_every(step: timedelta, start: datetime, end: datetime) -> list[datetime]:
    """Call fire_due every ``step`` from ``start`` to ``end`` on a frozen clock; the times it
    fired at."""
    fired = []
    with time_machine.travel(start, tick=False) as clock:
        now = start
        while now <= end:
            clock.move_to(now)
            if scheduler.fire_due():
                fired.append(now)
            now += step
    return fired


@pytest.mark.parametrize(
    ("time_zone", "cron", "start", "expected"),
    [
        # Berlin, spring forward (2026-03-29, 02:00 CET -> 03:00 CEST): 02:30 does not exist
        (
            "Europe/Berlin",
            "30 2 * * *",
            utc(2026, 3, 28, 0),
            [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 0), utc(2026, 3, 30, 0, 30)],
        ),
        # Berlin, fall back (2026-10-25, 03:00 CEST -> 02:00 CET): 02:30 happens twice
        (
            "Europe/Berlin",
            "30 2 * * *",
            utc(2026, 10, 24, 0),
            [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)],
        ),
        # New York, spring forward (2026-03-08, 02:00 EST -> 03:00 EDT)
        (
            "America/New_York",
            "30 2 * * *",
            utc(2026, 3, 7, 5),
            [utc(2026, 3, 7, 7, 30), utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 30)],
        ),
        # New York, fall back (2026-11-01, 02:00 EDT -> 01:00 EST): 01:30 happens twice
        (
            "America/New_York",
            "30 1 * * *",
            utc(2026, 10, 31, 5),
            [utc(2026, 10, 31, 5, 30), utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30)],
        ),
    ],
)
def test_scheduler_fires_once_a_day_at_the_right_instant_across_dst(
    deploy, time_zone, cron, start, expected
) -> None:
    with time_machine.travel(start, tick=False):
        job_schedule(deploy, cron=cron, time_zone=time_zone)
    fired = fire_every(timedelta(minutes=5), start, start + timedelta(hours=71))
    assert fired == expected
    assert Execution.objects.count() == 3


def test_scheduler_hourly_in_berlin_runs_every_real_hour_of_the_fall_back_day(deploy) -> None:
    start = utc(2026, 10, 24, 22, 0)  # midnight CEST
    with time_machine.travel(start, tick=False):
        job_schedule(deploy, time_zone="Europe/Berlin")
    fired = fire_every(timedelta(minutes=10), start, start + timedelta(hours=25))
    assert fired == [start + timedelta(hours=hour) for hour in range(1, 26)]  # a 25-hour day


def test_scheduler_never_fires_a_disabled_schedule(deploy) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        off = job_schedule(deploy, name="off", enabled=False)
        later = job_schedule(deploy, name="later")
        set_enabled(schedule=later, enabled=False)
        assert off.next_run is None and later.next_run is None
        clock.move_to(utc(2026, 2, 1))
        assert scheduler.fire_due() == []
        # enabled again, it runs next at its next time from now, not for what it missed
        set_enabled(schedule=later, enabled=True)
        assert later.next_run == utc(2026, 2, 1, 1)
        assert scheduler.fire_due() == []
    assert not Execution.objects.exists()


def test_scheduler_records_a_refused_run_and_goes_on(deploy, here) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = job_schedule(deploy)
        here.active = False
        here.save()
        clock.move_to(utc(2026, 1, 5, 10, 0, 5))
        assert scheduler.fire_due() == [schedule.pk]
    schedule.refresh_from_db()
    assert not Execution.objects.exists()
    assert "no active server named here" in schedule.last_error
    assert schedule.last_fired == utc(2026, 1, 5, 10, 0, 5) and schedule.last_execution is None
    assert schedule.next_run == utc(2026, 1, 5, 11)


def test_scheduler_records_an_unexpected_failure_and_logs_it(deploy, monkeypatch, caplog) -> None:
    def broken(**_):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(scheduler, "launch_template", broken)
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = job_schedule(deploy)
        clock.move_to(utc(2026, 1, 5, 10))
        assert scheduler.fire_due() == [schedule.pk]
    schedule.refresh_from_db()
    assert schedule.last_error == "RuntimeError: the disk is full"
    assert f"schedule={schedule.pk} kind=job message='not started: it failed'" in caplog.text


def test_scheduler_process_dying_while_it_starts_a_run_leaves_the_schedule_due(
    deploy, monkeypatch
) -> None:
    # the claim and the start commit together: a process killed between them fires nothing
    # and claims nothing, and the next round (of any process) fires the run
    def dies(**_):
        raise SystemExit("killed")

    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = job_schedule(deploy)
        clock.move_to(utc(2026, 1, 5, 10))
        with monkeypatch.context() as patched:
            patched.setattr(scheduler, "launch_template", dies)
            with pytest.raises(SystemExit):
                scheduler.fire_due()
        schedule.refresh_from_db()
        assert schedule.next_run == utc(2026, 1, 5, 10) and schedule.last_fired is None
        assert not Execution.objects.exists()
        assert scheduler.fire_due() == [schedule.pk]
    assert Execution.objects.count() == 1


def test_scheduler_clears_the_last_error_once_a_run_starts(deploy, here) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = job_schedule(deploy)
        here.active = False
        here.save()
        clock.move_to(utc(2026, 1, 5, 10))
        scheduler.fire_due()
        here.active = True
        here.save()
        clock.move_to(utc(2026, 1, 5, 11))
        scheduler.fire_due()
    schedule.refresh_from_db()
    assert schedule.last_error == "" and schedule.last_execution == Execution.objects.get()


@pytest.fixture
def routine_checks(monkeypatch):
    """A stand-in for the configuration app's routine check: records the environments it is
    asked to check and answers with ``answer`` (its executions)."""
    calls: list = []
    found = types.SimpleNamespace(calls=calls, answer=[])

    def start_routine_check(*, environment=None):
        calls.append(environment)
        return found.answer

    # the configuration app has configuration schedules start its routine check
    assert scheduler.STARTERS["configuration"] is configuration.start_scheduled_check
    monkeypatch.setattr(configuration, "start_routine_check", start_routine_check)
    return found


def test_scheduler_configuration_schedules_start_routine_checks(routine_checks) -> None:
    staging = Environment.objects.create(name="staging")
    job = Job.objects.create(name="configuration check", script="")
    execution = Execution.objects.create(job=job)
    routine_checks.answer = [execution]
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        everywhere = save_schedule(name="everywhere", kind="configuration", cron="0 * * * *")
        only = save_schedule(
            name="staging", kind="configuration", cron="*/30 * * * *", environment=staging
        )
        clock.move_to(utc(2026, 1, 5, 10))
        assert sorted(scheduler.fire_due()) == sorted([everywhere.pk, only.pk])
    assert sorted(routine_checks.calls, key=str) == sorted([None, staging], key=str)
    everywhere.refresh_from_db()
    assert (everywhere.last_execution, everywhere.last_error) == (execution, "")
    # a list of executions (one per group of servers): the first is linked; none: none
    second = Execution.objects.create(job=job)
    routine_checks.answer = [execution, second]
    with time_machine.travel(utc(2026, 1, 5, 11), tick=False):
        assert everywhere.pk in scheduler.fire_due()
    everywhere.refresh_from_db()
    assert everywhere.last_execution == execution
    routine_checks.answer = []
    with time_machine.travel(utc(2026, 1, 5, 12), tick=False):
        assert everywhere.pk in scheduler.fire_due()
    everywhere.refresh_from_db()
    assert (everywhere.last_execution, everywhere.last_error) == (None, "")


def test_scheduler_gives_an_enabled_schedule_without_a_next_run_one(deploy) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False):
        schedule = job_schedule(deploy)
        Schedule.objects.filter(pk=schedule.pk).update(next_run=None)
        assert scheduler.fire_due() == []
    schedule.refresh_from_db()
    assert schedule.next_run == utc(2026, 1, 5, 10)


def test_scheduler_disables_a_schedule_whose_expression_no_longer_reads(deploy, caplog) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = job_schedule(deploy)
        Schedule.objects.filter(pk=schedule.pk).update(time_zone="Mars/Olympus_Mons")
        clock.move_to(utc(2026, 1, 5, 10))
        assert scheduler.fire_due() == []
    schedule.refresh_from_db()
    assert not schedule.enabled and "names no time" in schedule.last_error
    assert not Execution.objects.exists()


def test_scheduler_interval_is_the_setting_never_below_zero(settings) -> None:
    settings.OTTERWEB_SCHEDULER_SECONDS = 2.5
    assert scheduler.interval() == 2.5
    settings.OTTERWEB_SCHEDULER_SECONDS = -1
    assert scheduler.interval() == 0


# ---- several processes at once


def race(callers: int) -> list[list[int]]:
    """``callers`` threads call fire_due at the same instant; what each fired."""
    start = threading.Barrier(callers)
    results: list[list[int]] = [[] for _ in range(callers)]
    errors: list[BaseException] = []

    def call(index: int) -> None:
        try:
            start.wait()
            results[index] = scheduler.fire_due()
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=call, args=(i,)) for i in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return results


@pytest.mark.django_db(transaction=True)
def test_scheduler_threads_racing_fire_each_due_schedule_once(deploy) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedules = [job_schedule(deploy, name=f"s{i}") for i in range(8)]
        clock.move_to(utc(2026, 1, 5, 10))
        results = race(4)
        fired = [pk for result in results for pk in result]
        assert sorted(fired) == sorted(s.pk for s in schedules)  # each once, by one thread
        assert Execution.objects.count() == 8
        clock.move_to(utc(2026, 1, 5, 11))
        assert sorted(pk for result in race(2) for pk in result) == sorted(s.pk for s in schedules)
    assert Execution.objects.count() == 16
    assert connection.vendor in ("sqlite", "postgresql")


@pytest.mark.django_db(transaction=True)
def test_scheduler_housekeeper_fires_due_schedules(deploy, settings) -> None:
    assert "otterweb-scheduler" in ROUNDS
    settings.OTTERWEB_SCHEDULER_SECONDS = 0.05
    schedule = job_schedule(deploy)
    Schedule.objects.filter(pk=schedule.pk).update(next_run=utc(2020, 1, 1))
    housekeeper = dispatch.Housekeeper(dispatch.Dispatcher())
    housekeeper.start()
    try:
        deadline = time.monotonic() + 20
        while not Execution.objects.exists():
            assert time.monotonic() < deadline, "the housekeeper fired nothing"
            time.sleep(0.05)
    finally:
        housekeeper.stop()
    schedule.refresh_from_db()
    assert schedule.last_execution == Execution.objects.get()


def test_scheduler_is_not_started_when_its_setting_is_zero(settings) -> None:
    settings.OTTERWEB_SCHEDULER_SECONDS = 0
    housekeeper = dispatch.Housekeeper(dispatch.Dispatcher())
    assert "otterweb-scheduler" not in [thread.name for thread in housekeeper._rounds]
    settings.OTTERWEB_SCHEDULER_SECONDS = 1
    housekeeper = dispatch.Housekeeper(dispatch.Dispatcher())
    assert "otterweb-scheduler" in [thread.name for thread in housekeeper._rounds]
