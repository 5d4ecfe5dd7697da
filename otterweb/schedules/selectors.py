"""Reading schedules and triggers: the lists, a template's triggers, and what a schedule will do
next."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from otterweb.executions.models import JobTemplate
from otterweb.schedules.cron import next_times
from otterweb.schedules.models import Schedule, Trigger


def schedules() -> QuerySet[Schedule]:
    """Every schedule by name, with what a list shows of each (its template, environment and
    last execution) in the same query."""
    return Schedule.objects.select_related("template", "environment", "last_execution")


def schedules_of(*, template: JobTemplate) -> QuerySet[Schedule]:
    return schedules().filter(template=template)


def triggers_of(*, template: JobTemplate) -> QuerySet[Trigger]:
    return Trigger.objects.filter(template=template).select_related("created_by", "last_execution")


def upcoming(*, schedule: Schedule, count: int = 5, now: datetime | None = None) -> list[datetime]:
    """The next ``count`` runs of ``schedule`` (none while it is disabled): its next run, then
    the times after it."""
    if not schedule.enabled or schedule.next_run is None:
        return []
    first = schedule.next_run
    after = max(first, now or timezone.now())
    return [first, *next_times(schedule.cron, schedule.time_zone, after=after, count=count - 1)]
