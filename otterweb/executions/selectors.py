"""Reading executions: who may see them, the list's filters, the dashboard, and where a run
would go."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils import timezone

from engine import Mode, RunState
from otterweb.execution_logs.models import LogScope
from otterweb.executions.models import Execution, Job, JobTemplate
from otterweb.inventory.models import Environment, Role, Server
from otterweb.inventory.selectors import servers_for
from otterweb.privileges.checks import may, visible
from otterweb.rafts.models import Raft

VIEW = "executions.view_execution"


def may_view_executions(*, user) -> bool:
    """Whether ``user`` may see executions anywhere (an active superuser: without the database)."""
    return user.has_perm(VIEW)


def visible_execution(*, execution_id: int, user) -> Execution | None:
    """The execution ``execution_id``, when there is one that ``user`` may see."""
    execution = Execution.objects.filter(pk=execution_id).first()
    return execution if execution is not None and may(user, VIEW, execution) else None


# ---- outcomes

DRIFTED = "drifted"
# How an ended execution ended, for the list's status filter.
ENDED_OUTCOMES = [
    (Execution.Status.NORMAL, "Normal"),
    (Execution.Status.WARNING, "Warning"),
    (Execution.Status.ERROR, "Error"),
    (Execution.Status.CANCELLED, "Cancelled"),
    (DRIFTED, "Drifted"),
]

# The database side of Execution.outcome == "drifted": a collect that ended with drift and was
# not cancelled.
_DRIFTED = (
    Q(run_state=RunState.COMPLETED, mode=Mode.COLLECT)
    & ~Q(drift=[])
    & ~Q(status=Execution.Status.CANCELLED)
)


def with_outcome(executions: QuerySet[Execution], outcome: str) -> QuerySet[Execution]:
    """The executions whose ``outcome`` is ``outcome`` (see Execution.outcome); an unknown one
    leaves them as they are."""
    if outcome in (RunState.PENDING, RunState.EXECUTING):
        return executions.filter(run_state=outcome)
    if outcome == DRIFTED:
        return executions.filter(_DRIFTED)
    if outcome in Execution.Status.values:
        return executions.filter(run_state=RunState.COMPLETED, status=outcome).exclude(_DRIFTED)
    return executions


def executions_list(
    *, run_state: str = "", outcome: str = "", name: str = "", since: datetime | None = None
) -> QuerySet[Execution]:
    """Executions, newest first, with what a list shows of each (job and who ran it)."""
    executions = Execution.objects.select_related("job__requested_by")
    if run_state in Execution.RunState.values:
        executions = executions.filter(run_state=run_state)
    if outcome:
        executions = with_outcome(executions, outcome)
    if name:
        executions = executions.filter(job__name__icontains=name)
    if since is not None:
        executions = executions.filter(created__gte=since)
    return executions


# ---- the dashboard

RUNNING = 20
RECENT = 10


@dataclass(frozen=True)
class Activity:
    running: list[Execution]  # pending or executing, newest first
    recent: list[Execution]  # ended, the last to end first
    failed: int  # made since failed_since and ended in error
    failed_since: datetime


def activity(*, user=None, now: datetime | None = None) -> Activity:
    """What runs now, what ran last, and how many runs failed in the last day, of what ``user``
    may see (None: all): three queries."""
    failed_since = (now or timezone.now()) - timedelta(days=1)
    executions = visible(user, Execution.objects.select_related("job__requested_by"))
    running = executions.exclude(run_state=RunState.COMPLETED).order_by("-created")
    recent = executions.filter(run_state=RunState.COMPLETED).order_by("-ended")
    failed = executions_list(outcome=Execution.Status.ERROR, since=failed_since)
    return Activity(
        running=list(running[:RUNNING]),
        recent=list(recent[:RECENT]),
        failed=visible(user, failed).count(),
        failed_since=failed_since,
    )


@dataclass(frozen=True)
class Counts:
    servers: int
    roles: int
    environments: int
    rafts: int
    executions: int

    @property
    def nothing_yet(self) -> bool:
        """A new installation: no server, no raft, no run. The dashboard says what to do first."""
        return not (self.servers or self.rafts or self.executions)


def counts(*, user=None) -> Counts:
    """How many of each thing there are that ``user`` may see (None: all)."""
    return Counts(
        servers=visible(user, Server.objects.all()).count(),
        roles=visible(user, Role.objects.all()).count(),
        environments=visible(user, Environment.objects.all()).count(),
        rafts=visible(user, Raft.objects.all()).count(),
        executions=visible(user, Execution.objects.all()).count(),
    )


# ---- where a run would go


def preview_targets(
    *,
    servers: Collection[str] = (),
    roles: Collection[str] = (),
    environments: Collection[str] = (),
) -> list[Server]:
    """The active servers a job with these targets runs on, by the rules of create_job
    (through servers_for), sorted by name. Raises ValidationError, by field, for names that are
    not in the inventory (or a server that is not active)."""
    servers, roles, environments = list(servers), list(roles), list(environments)
    targets = servers_for(servers=servers, roles=roles, environments=environments)
    problems: dict[str, list[str]] = {}
    missing = sorted(set(servers) - {server.name for server in targets})
    if missing:
        problems["servers"] = [f"No active server named {', '.join(missing)}."]
    for field, names, model in (
        ("roles", roles, Role),
        ("environments", environments, Environment),
    ):
        if not names:
            continue
        known = set(model.objects.filter(name__in=names).values_list("name", flat=True))
        unknown = sorted(set(names) - known)
        if unknown:
            noun = model._meta.verbose_name
            problems[field] = [f"No {noun} named {', '.join(unknown)}."]
    if problems:
        raise ValidationError(problems)
    return targets


def recent_executions(*, server: Server, limit: int = 10, scanned: int = 500) -> list:
    """The newest executions of jobs that targeted ``server``, looked for among the last
    ``scanned`` jobs: a job's targets are a JSON list of names, which SQLite and PostgreSQL
    cannot both search inside, so the (bounded) filtering is done here."""
    job_ids = [
        pk
        for pk, targets in Job.objects.order_by("-created", "-pk").values_list("pk", "targets")[
            :scanned
        ]
        if isinstance(targets, list) and server.name in targets
    ]
    return list(
        Execution.objects.filter(job_id__in=job_ids)
        .select_related("job__requested_by")
        .order_by("-created", "-pk")[:limit]
    )


def job_templates_running(*, items) -> list[str]:
    """The names of the job templates that run any of ``items`` (raft items: a queryset or a
    list), in order."""
    return list(
        JobTemplate.objects.filter(raft_item__in=items)
        .order_by("name")
        .values_list("name", flat=True)
    )


def server_statuses(*, execution: Execution) -> dict[str, str]:
    """How the run went on each of its target servers that it finished: the status of the
    server's log scope, once closed (a run cancelled or lost midway left some open)."""
    targets = set(execution.job.targets)
    scopes = LogScope.objects.filter(
        execution_id=execution.pk, name__in=targets, ended__isnull=False
    )
    return {scope.name: scope.status for scope in scopes}


def failed_servers(*, execution: Execution) -> list[str]:
    """The targets of an ended execution on which it failed: those whose part ended in an error,
    or never ended (cancelled, lost, or an error before it got there). None before it ends, nor
    when it went well everywhere."""
    if execution.run_state != RunState.COMPLETED or execution.status in (
        Execution.Status.NORMAL,
        Execution.Status.WARNING,
    ):
        return []
    statuses = server_statuses(execution=execution)
    return [
        name
        for name in execution.job.targets
        if statuses.get(name) not in (LogScope.Status.NORMAL, LogScope.Status.WARNING)
    ]
