"""Firing due schedules, exactly once across every process that keeps house.

Every process that runs executions (`manage.py serve`, each Celery worker, on any number of
machines) calls ``fire_due`` every OTTERWEB_SCHEDULER_SECONDS from its housekeeper
(otterweb.executions.dispatch). The database is the lock: a due schedule is claimed by one
conditional UPDATE that moves its ``next_run`` on (WHERE pk = ... AND next_run = <the value
read>), and only the process whose UPDATE changed the row fires it. A run missed while no
process was up fires once, and the next run is the first time after now, not after the missed
one. Whatever goes wrong starting a run is recorded on the schedule and logged, never raised."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from otterweb.audit import services as audit
from otterweb.audit.context import origin
from otterweb.executions.models import Execution
from otterweb.executions.services import launch_template
from otterweb.schedules import owners
from otterweb.schedules.cron import next_time
from otterweb.schedules.models import Schedule

logger = logging.getLogger(__name__)

# What a schedule of each kind but a job's starts (the execution it links, or None). The app
# the kind belongs to, above the schedules, adds it from its AppConfig.ready: the
# configuration app its routine checks.
STARTERS: dict[str, Callable[[Schedule], Execution | None]] = {}


def starts(kind: str, starter: Callable[[Schedule], Execution | None]) -> None:
    """Have the schedules of ``kind`` start ``starter(schedule)`` when they fire."""
    STARTERS[kind] = starter


def interval() -> float:
    """Seconds between two rounds of ``fire_due`` in each process (0: this process fires
    none): the setting OTTERWEB_SCHEDULER_SECONDS."""
    return max(0.0, float(settings.OTTERWEB_SCHEDULER_SECONDS))


def fire_due(*, now: datetime | None = None) -> list[int]:
    """Fire the enabled schedules whose next run has come, each claimed first; returns the ids
    of those this process fired. Enabled schedules without a next run get one."""
    now = now or timezone.now()
    _plan_unplanned(now)
    fired = []
    due = Schedule.objects.filter(enabled=True, next_run__lte=now).select_related(
        "template", "environment", "owner"
    )
    for schedule in due.order_by("next_run", "pk"):
        # the claim and the start commit together: a process that dies between them (or while
        # starting) leaves the schedule due, for the next round of any process to fire
        with transaction.atomic():
            if _claim(schedule, now):
                fire(schedule, now=now)
                fired.append(schedule.pk)
    return fired


def _claim(schedule: Schedule, now: datetime) -> bool:
    """Move the schedule's next run on past ``now``, if no other process has yet."""
    due_at = schedule.next_run
    if due_at is None:  # never due (fire_due claims those with a next run)
        return False
    try:
        following = next_time(schedule.cron, schedule.time_zone, after=now)
    except Exception as error:  # changed behind the forms' back: it cannot run again
        _unschedulable(schedule, due_at, error)
        return False
    claimed = Schedule.objects.filter(pk=schedule.pk, enabled=True, next_run=due_at).update(
        next_run=following, last_fired=now
    )
    if claimed != 1:
        return False
    schedule.next_run, schedule.last_fired = following, now
    logger.info(
        "schedule=%s due=%s next_run=%s message='claimed'",
        schedule.pk,
        due_at.isoformat(),
        following.isoformat(),
    )
    return True


def fire(schedule: Schedule, *, now: datetime) -> Execution | None:
    """Start what ``schedule`` runs and record how it went (the execution, or why none)."""
    execution, error = None, ""
    try:
        with transaction.atomic(), origin(f"schedule {schedule.name}"):
            # a failed start undoes what it wrote, not the claim
            execution = _start(schedule)
    except ValidationError as refused:
        error = " ".join(refused.messages)
        logger.warning(
            "schedule=%s kind=%s message='not started: %s'", schedule.pk, schedule.kind, error
        )
    except Exception as failed:
        error = f"{type(failed).__name__}: {failed}"
        logger.exception(
            "schedule=%s kind=%s message='not started: it failed'", schedule.pk, schedule.kind
        )
    else:
        logger.info(
            "schedule=%s kind=%s execution=%s message='fired'",
            schedule.pk,
            schedule.kind,
            execution.pk if execution else "none",
        )
    Schedule.objects.filter(pk=schedule.pk).update(last_execution=execution, last_error=error)
    schedule.last_execution, schedule.last_error = execution, error
    return execution


def _start(schedule: Schedule) -> Execution | None:
    if schedule.kind == Schedule.Kind.JOB:
        template = schedule.template
        if template is None:  # the database refuses it (schedule_kind_matches_what_it_runs)
            raise ValidationError("A job schedule runs a job template.")
        # on the owner's behalf, with the owner's rights as they are now, against the
        # template's targets and script as they are now
        owners.check_owner(
            owner=schedule.owner, template=template, what=f"The schedule {schedule.name}"
        )
        return launch_template(
            template=template, requested_by=schedule.owner, variables=schedule.variables
        )
    starter = STARTERS.get(schedule.kind)
    if starter is None:
        raise ValidationError(f"Nothing starts the schedules of kind {schedule.kind!r}.")
    return starter(schedule)


def _plan_unplanned(now: datetime) -> None:
    """A next run for each enabled schedule without one (made by a migration or a fixture)."""
    for schedule in Schedule.objects.filter(enabled=True, next_run__isnull=True):
        try:
            following = next_time(schedule.cron, schedule.time_zone, after=now)
        except Exception as error:
            _unschedulable(schedule, None, error)
            continue
        Schedule.objects.filter(pk=schedule.pk, enabled=True, next_run__isnull=True).update(
            next_run=following
        )


def _unschedulable(schedule: Schedule, due_at: datetime | None, error: Exception) -> None:
    """A schedule whose cron expression or time zone no longer reads: disabled, and why."""
    message = f"Disabled: its cron expression {schedule.cron!r} in {schedule.time_zone} names no time ({error})."
    disabled = Schedule.objects.filter(pk=schedule.pk, enabled=True, next_run=due_at).update(
        enabled=False, next_run=None, last_error=message
    )
    if disabled:
        audit.record_changed(obj=schedule, changes={"enabled": [True, False]})
        logger.error("schedule=%s message=%r", schedule.pk, message)
