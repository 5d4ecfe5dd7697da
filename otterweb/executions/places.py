"""Where job templates, jobs and executions are, for privileges
(otterweb.privileges.places)."""

from __future__ import annotations

from otterweb.executions.models import Execution, Job, JobTemplate, JobTemplatePrompt
from otterweb.privileges.places import Place, environments_of, register


def template_environments(template: JobTemplate) -> frozenset[int]:
    """The environments a template's targets are in: its environments, and those of its servers
    and of the servers with its roles."""
    found = set(environments_of(template.environments))
    for server in template.servers.all():
        found |= environments_of(server.environments)
    if template.roles.exists() and not found:
        for role in template.roles.all():
            for server in role.servers.all():
                found |= environments_of(server.environments)
    return frozenset(found)


def template_place(template: JobTemplate) -> Place:
    return Place(template_environments(template), raft=template.raft_item.raft_id)


def job_place(job: Job) -> Place:
    """A job is in the environments of the servers it targeted when it was made; a job that
    targeted none (its script chose its servers) is in the raft of its script."""
    environments = environments_of(job.environments)
    return Place(environments, raft=None if environments else job.raft_id)


def register_places() -> None:
    register(JobTemplate, template_place)
    register(JobTemplatePrompt, lambda prompt: template_place(prompt.template))
    register(Job, job_place, lookups=("environments", "raft"))
    register(
        Execution,
        lambda execution: job_place(execution.job),
        lookups=("job__environments", "job__raft"),
    )
