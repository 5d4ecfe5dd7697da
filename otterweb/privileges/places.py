"""Where an object is, for privileges: the environments it is in and the raft it belongs to.

A grant on an environment covers an object when every environment the object is in lies within
it (the environment or one inside it); a grant on a raft covers the raft's objects. An object in
no environment and no raft (a global variable, a credential for any environment) is covered only
by grants on everything; an inventory role is seen by whoever may see roles anywhere."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from otterweb.configuration.models import Check, ConfigurationRun, RemediationPlan
from otterweb.executions.models import Execution, Job, JobTemplate, JobTemplatePrompt
from otterweb.inventory.models import Credential, Environment, Role, Server, Variable
from otterweb.privileges.models import Grant
from otterweb.privileges.models import Role as PrivilegeRole
from otterweb.rafts.models import Raft, RaftItem, RaftItemDraft, RaftItemVersion
from otterweb.schedules.models import Schedule, Trigger, TriggerDelivery


@dataclass(frozen=True, slots=True)
class Place:
    environments: frozenset[int] = frozenset()
    raft: int | None = None
    # seen by whoever may see its kind anywhere (an inventory role: its name is on the pages of
    # the servers that have it); changed only under a grant on everything
    shared: bool = False


NOWHERE = Place()
SHARED = Place(shared=True)


def _environments(manager) -> frozenset[int]:
    return frozenset(e.pk for e in manager.all())


def template_environments(template: JobTemplate) -> frozenset[int]:
    """The environments a template's targets are in: its environments, and those of its servers
    and of the servers with its roles."""
    found = set(_environments(template.environments))
    for server in template.servers.all():
        found |= _environments(server.environments)
    if template.roles.exists() and not found:
        for role in template.roles.all():
            for server in role.servers.all():
                found |= _environments(server.environments)
    return frozenset(found)


def place_of(obj) -> Place:
    """Where ``obj`` is (see the module's text)."""
    match obj:
        case Environment():
            return Place(frozenset({obj.pk}))
        case Server() | Credential():
            return Place(_environments(obj.environments))
        case Variable():
            if obj.environment_id:
                return Place(frozenset({obj.environment_id}))
            if obj.server_id:
                return Place(_environments(obj.server.environments))
            return NOWHERE
        case Raft():
            return Place(raft=obj.pk)
        case RaftItem():
            return Place(raft=obj.raft_id)
        case RaftItemVersion() | RaftItemDraft():
            return Place(raft=obj.item.raft_id)
        case JobTemplate():
            return Place(template_environments(obj), raft=obj.raft_item.raft_id)
        case JobTemplatePrompt():
            return place_of(obj.template)
        case Job():
            return job_place(obj)
        case Execution():
            return job_place(obj.job)
        case Schedule():
            if obj.template_id:
                return place_of(obj.template)
            if obj.environment_id:
                return Place(frozenset({obj.environment_id}))
            return NOWHERE
        case Trigger():
            return place_of(obj.template)
        case TriggerDelivery():
            return place_of(obj.trigger)
        case Check():
            return Place(_environments(obj.server.environments))
        case ConfigurationRun():
            return job_place(obj.execution.job) if obj.execution_id else NOWHERE
        case RemediationPlan():
            found: set[int] = set()
            for planned in obj.servers.all():
                found |= _environments(planned.server.environments)
            return Place(frozenset(found))
        case Grant():
            return Place(
                frozenset({obj.environment_id}) if obj.environment_id else frozenset(),
                raft=obj.raft_id,
            )
    if isinstance(obj, Role | PrivilegeRole):
        return SHARED
    if isinstance(obj, Group | get_user_model()):
        return NOWHERE
    raise TypeError(f"privileges know no place for a {type(obj).__name__}")


def job_place(job: Job) -> Place:
    """A job is in the environments of the servers it targeted when it was made; a job that
    targeted none (its script chose its servers) is in the raft of its script."""
    environments = _environments(job.environments)
    return Place(environments, raft=None if environments else job.raft_id)
