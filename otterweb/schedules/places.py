"""Where schedules and triggers are, for privileges (otterweb.privileges.places): where their
template is; a configuration schedule in its environment."""

from __future__ import annotations

from otterweb.executions.places import template_place
from otterweb.privileges.places import NOWHERE, Place, register
from otterweb.schedules.models import Schedule, Trigger, TriggerDelivery


def schedule_place(schedule: Schedule) -> Place:
    if schedule.template is not None:
        return template_place(schedule.template)
    if schedule.environment_id:
        return Place(frozenset({schedule.environment_id}))
    return NOWHERE


def register_places() -> None:
    register(Schedule, schedule_place)
    register(Trigger, lambda trigger: template_place(trigger.template))
    register(TriggerDelivery, lambda delivery: template_place(delivery.trigger.template))
