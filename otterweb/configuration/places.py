"""Where checks, configuration runs and remediation plans are, for privileges
(otterweb.privileges.places): where their servers are."""

from __future__ import annotations

from otterweb.configuration.models import Check, ConfigurationRun, RemediationPlan
from otterweb.executions.places import job_place
from otterweb.privileges.places import NOWHERE, Place, environments_of, register


def plan_place(plan: RemediationPlan) -> Place:
    found: set[int] = set()
    for planned in plan.servers.all():
        found |= environments_of(planned.server.environments)
    return Place(frozenset(found))


def register_places() -> None:
    register(Check, lambda check: Place(environments_of(check.server.environments)))
    register(
        ConfigurationRun,
        lambda run: job_place(run.execution.job) if run.execution_id else NOWHERE,
    )
    register(RemediationPlan, plan_place)
