"""Writing the audit trail. django-auditlog records the tracked models' creates, changes and
deletes through their signals (otterweb.audit.registry); this module records what no signal
says: logins, runs started and cancelled, remediation plans approved, and rows written in bulk
(``record_created``). Every entry gets its who and where from the request being answered
(otterweb.audit.context) unless it is given. Entries are never changed; deleting those older
than the retention (``delete_expired``) is the only delete."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from auditlog.cid import get_cid
from auditlog.receivers import log_create
from auditlog.registry import auditlog
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db.models import Model, QuerySet
from django.utils import timezone

from otterweb.audit import context
from otterweb.audit.models import Entry

logger = logging.getLogger(__name__)

# ``actor`` not given: the signed-in user of the request being answered (None: OtterWeb itself)
FROM_REQUEST = object()
REPR_LENGTH = 500


def record(
    *,
    action: int,
    obj: Model | None = None,
    actor=FROM_REQUEST,
    changes: dict | None = None,
    data: dict | None = None,
    request=None,
    kind: type[Model] | None = None,
    name: str = "",
) -> Entry:
    """Write one entry: ``action`` (Entry.Action) on ``obj`` by ``actor``, with the fields it
    changed (``changes``: field -> [before, after]) and what else says what happened
    (``data``). Without an object, ``kind`` and ``name`` say what it was about (a failed
    login's unknown user name). ``request``: the request it comes from when it is not the one
    being answered (a login signal's)."""
    model = obj._meta.model if obj is not None else kind  # obj may be a lazy request.user
    if model is None:
        raise TypeError("an entry is about an object or a kind of object")
    entry = Entry(
        content_type=ContentType.objects.get_for_model(model),
        object_pk=str(obj.pk) if obj is not None else "",
        object_id=obj.pk if obj is not None and isinstance(obj.pk, int) else None,
        object_repr=(str(obj) if obj is not None else name)[:REPR_LENGTH],
        action=action,
        changes=changes,
        additional_data=data,
        cid=get_cid(),
    )
    if actor is not FROM_REQUEST:
        entry.actor = actor
        entry._actor_given = True
    if request is not None:
        entry.remote_addr = context.request_address(request)
    entry.save()
    return entry


def fill_in(sender, instance: Entry, **kwargs) -> None:
    """pre_save of every new entry, django-auditlog's included: who (unless given) and from
    where, from the request being answered."""
    if not instance._state.adding:
        return
    request = context.current_request()
    if instance.actor_id is None and not getattr(instance, "_actor_given", False):
        instance.actor = context.request_user(request)
    if instance.remote_addr is None:
        instance.remote_addr = context.request_address(request)
    if instance.actor is not None and not instance.actor_name:
        instance.actor_name = instance.actor.get_username()


def record_changed(*, obj: Model, changes: dict[str, list]) -> Entry:
    """A change written with QuerySet.update() (no signal): ``changes`` as field -> [before,
    after], as django-auditlog writes them (text)."""
    return record(
        action=Entry.Action.UPDATE,
        obj=obj,
        changes={field: [str(value) for value in pair] for field, pair in changes.items()},
    )


def record_created(objects: Iterable[Model]) -> None:
    """Rows made with bulk_create (no signal): a create entry for each, as django-auditlog
    writes for a save."""
    for obj in objects:
        if auditlog.contains(type(obj)):
            log_create(sender=type(obj), instance=obj, created=True)


# ---- logins (django.contrib.auth's signals) ------------------------------------------------


def logged_in(sender, request, user, **kwargs) -> None:
    record(action=Entry.Action.LOGIN, obj=user, actor=user, request=request)


def logged_out(sender, request, user, **kwargs) -> None:
    if user is not None:  # a logout without a login changes nothing
        record(action=Entry.Action.LOGOUT, obj=user, actor=user, request=request)


def login_failed(sender, credentials: dict, request=None, **kwargs) -> None:
    """A wrong password or an unknown user name: the user tried (the name only when there is
    no such user), never the password (Django has already hidden it)."""
    User = get_user_model()
    username = str(credentials.get(User.USERNAME_FIELD, credentials.get("username", "")))
    user = User._default_manager.filter(**{User.USERNAME_FIELD: username}).first()
    record(
        action=Entry.Action.LOGIN_FAILED,
        obj=user,
        kind=User,
        name=username,
        actor=None,
        request=request,
        data={"username": username[:REPR_LENGTH]},
    )


# ---- runs -----------------------------------------------------------------------------------


def run_started(*, execution) -> Entry:
    """A run was made: on whose behalf (its principal: the user who asked, or the owner of the
    schedule or trigger that started it), from where, what it runs and where."""
    job = execution.job
    version = job.script_version
    data = {
        "job": job.name,
        "template": job.template.name if job.template_id else None,
        "script_version": str(version) if version is not None else None,
        "targets": job.targets,
        "mode": execution.mode,
        "simulate": execution.simulate,
        "started_by": context.current_origin() or ("user" if job.requested_by_id else "OtterWeb"),
    }
    return record(action=Entry.Action.RUN_STARTED, obj=execution, actor=job.requested_by, data=data)


def run_cancelled(*, execution) -> Entry:
    return record(
        action=Entry.Action.RUN_CANCELLED,
        obj=execution,
        data={"run_state": execution.run_state},
    )


def plan_approved(*, plan, user, executions: list) -> Entry:
    return record(
        action=Entry.Action.PLAN_APPROVED,
        obj=plan,
        actor=user,
        changes={"status": ["proposed", "approved"]},
        data={
            "digest": plan.digest,
            "servers": sorted(p.server.name for p in plan.servers.select_related("server")),
            "executions": [execution.pk for execution in executions],
        },
    )


# ---- retention ------------------------------------------------------------------------------


def retention_interval() -> float:
    """How often the housekeeper deletes expired entries (seconds; 0: never)."""
    return 3600.0 if settings.OTTERWEB_AUDIT_RETENTION_DAYS else 0.0


def expired(*, now: datetime | None = None) -> QuerySet[Entry]:
    """The entries older than OTTERWEB_AUDIT_RETENTION_DAYS (0: keep them all)."""
    days = settings.OTTERWEB_AUDIT_RETENTION_DAYS
    if not days:
        return Entry.objects.none()
    return Entry.objects.filter(timestamp__lt=(now or timezone.now()) - timedelta(days=days))


def delete_expired(*, now: datetime | None = None) -> int:
    """Delete the entries past their retention; how many went."""
    deleted, _ = expired(now=now).delete()
    if deleted:
        logger.info(
            "deleted=%d retention_days=%g message='audit entries past their retention deleted'",
            deleted,
            settings.OTTERWEB_AUDIT_RETENTION_DAYS,
        )
    return deleted
