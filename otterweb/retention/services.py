"""Retention: which finished executions (with their logs, and a check's drift) the policies no
longer keep, and purging them a little at a time, so that a run with a million log lines goes
while new runs write.

The policies (settings, docs/deploy.md "Retention"): an execution is kept while it ended less than
OTTERWEB_KEEP_EXECUTIONS_DAYS ago (OTTERWEB_KEEP_FAILED_DAYS for one that failed,
OTTERWEB_KEEP_CHECKS_DAYS for a configuration check), or while it is one of the last
OTTERWEB_KEEP_LAST_PER_TEMPLATE of its job template. 0 days keeps them all. Never purged: what is
not finished, and a check that holds some server's current configuration state.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Sum, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from engine import RunState
from otterweb.audit import services as audit
from otterweb.audit.models import Entry
from otterweb.configuration.models import Check, ConfigurationRun, DriftItem, ServerState
from otterweb.execution_logs.services import delete_log_in_batches
from otterweb.executions.models import Execution, Job

logger = logging.getLogger(__name__)

# A round purges for about this long, this many executions at most; a delete takes this many
# rows at most (each delete one short transaction).
ROUND_SECONDS = 20.0
ROUND_EXECUTIONS = 1000
BATCH_ROWS = 5000


@dataclass(frozen=True)
class Policy:
    days: float
    failed_days: float
    checks_days: float
    last_per_template: int

    @classmethod
    def from_settings(cls) -> Policy:
        return cls(
            days=settings.OTTERWEB_KEEP_EXECUTIONS_DAYS,
            failed_days=settings.OTTERWEB_KEEP_FAILED_DAYS,
            checks_days=settings.OTTERWEB_KEEP_CHECKS_DAYS,
            last_per_template=settings.OTTERWEB_KEEP_LAST_PER_TEMPLATE,
        )

    @property
    def keeps_everything(self) -> bool:
        return not (self.days or self.failed_days or self.checks_days)


def purge_interval() -> float:
    """How often the housekeeper purges (seconds; 0: never, when every policy keeps all)."""
    return 0.0 if Policy.from_settings().keeps_everything else settings.OTTERWEB_PURGE_SECONDS


def expired(policy: Policy | None = None, *, now: datetime | None = None) -> QuerySet[Execution]:
    """The executions the policies no longer keep."""
    policy = policy or Policy.from_settings()
    now = now or timezone.now()
    is_check = Q(is_check=True)
    failed = Q(status=Execution.Status.ERROR)

    def older_than(days: float) -> Q:
        # 0 days: kept, whatever their age
        return Q(ended__lt=now - timedelta(days=days)) if days else Q(pk__in=[])

    past = (
        (is_check & older_than(policy.checks_days))
        | (~is_check & failed & older_than(policy.failed_days))
        | (~is_check & ~failed & older_than(policy.days))
    )
    checks = ConfigurationRun.objects.filter(
        execution=OuterRef("pk"), purpose=ConfigurationRun.Purpose.CHECK
    )
    found = (
        Execution.objects.annotate(is_check=Exists(checks))
        .filter(past, run_state=RunState.COMPLETED.value)
        .exclude(
            # a server's current state is read from its last check
            configuration_run__checks__pk__in=ServerState.objects.filter(
                last_check__isnull=False
            ).values("last_check")
        )
    )
    if policy.last_per_template:
        newest = (
            Execution.objects.filter(job__template__isnull=False)
            .annotate(
                place=Window(
                    RowNumber(), partition_by=F("job__template"), order_by=F("created").desc()
                )
            )
            .filter(place__lte=policy.last_per_template)
            .values_list("pk", flat=True)
        )
        found = found.exclude(pk__in=list(newest))
    return found.order_by("ended", "pk")


@dataclass(frozen=True)
class Held:
    """What the database holds of one kind, and what the next purge removes of it."""

    kind: str
    held: int
    purged: int


def summary(policy: Policy | None = None, *, now: datetime | None = None) -> list[Held]:
    """What the database holds by kind and what a purge now would remove: the database page's
    table and `manage.py purge --dry-run`'s."""
    going = expired(policy, now=now)
    executions = Execution.objects.all()
    checks = Check.objects.all()
    drift = DriftItem.objects.all()
    return [
        Held("executions", executions.count(), going.count()),
        Held("log lines", _lines(executions), _lines(going)),
        Held("server checks", checks.count(), checks.filter(run__execution__in=going).count()),
        Held(
            "drift items",
            drift.count(),
            drift.filter(server_check__run__execution__in=going).count(),
        ),
        # on a policy of its own, which the audit app keeps (OTTERWEB_AUDIT_RETENTION_DAYS)
        Held("audit entries", Entry.objects.count(), audit.expired(now=now).count()),
    ]


def database_bytes() -> int | None:
    """The database's size on disk (SQLite: its file, without the write-ahead log)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("select pg_database_size(current_database())")
        elif connection.vendor == "sqlite":
            cursor.execute(
                "select page_count * page_size from pragma_page_count(), pragma_page_size()"
            )
        else:
            return None
        return cursor.fetchone()[0]


def _lines(executions: QuerySet[Execution]) -> int:
    return executions.aggregate(lines=Sum("log_lines"))["lines"] or 0


def purge(
    policy: Policy | None = None,
    *,
    now: datetime | None = None,
    seconds: float = ROUND_SECONDS,
    rows: int = BATCH_ROWS,
) -> int:
    """Purge the executions the policies no longer keep, oldest first, for about ``seconds``
    (one at least; what is left is the next round's): each one's log in deletes of ``rows``
    rows, each its own short transaction, then the execution (with a check's drift) and a job
    left with none. How many executions went."""
    stop = time.monotonic() + seconds
    purged = lines = 0
    due = list(expired(policy, now=now).values_list("pk", "job_id")[:ROUND_EXECUTIONS])
    for execution_id, job_id in due:
        lines += delete_log_in_batches(execution_id=execution_id, rows=rows)
        Execution.objects.filter(pk=execution_id).delete()
        Job.objects.filter(pk=job_id, executions__isnull=True).delete()
        purged += 1
        if time.monotonic() > stop:
            break
    if purged:
        logger.info(
            "executions=%d log_lines=%d message='purged what the retention policies no longer keep'",
            purged,
            lines,
        )
    return purged
