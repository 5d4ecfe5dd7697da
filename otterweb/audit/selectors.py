"""Reading the audit trail: who may, the entries a filter keeps (newest first), and the kinds
of objects there are entries of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q, QuerySet
from django.utils import timezone

from otterweb.audit.models import Entry
from otterweb.privileges.checks import may_everywhere

VIEW = "audit.view_entry"


def may_view(user) -> bool:
    """Whether ``user`` may read the audit trail: the one place that says so (pages and API).
    The trail is of everything, so it takes the permission on everything (an Administrator of
    everything, not of one environment)."""
    return bool(user and user.is_authenticated and may_everywhere(user, VIEW))


@dataclass(frozen=True, kw_only=True)
class Filters:
    """What the page and the API filter by; each empty value keeps every entry."""

    who: str = ""  # a user name (exactly, case-insensitive)
    kind: str = ""  # app_label.model ("inventory.credential")
    action: int | None = None  # Entry.Action
    since: date | None = None  # from this day on (UTC)
    until: date | None = None  # up to this day, included
    text: str = ""  # in the object's name, or its id


def entries(*, filters: Filters = Filters()) -> QuerySet[Entry]:
    found = Entry.objects.select_related("actor", "content_type")
    if filters.who:
        found = found.filter(actor_name__iexact=filters.who)
    if filters.kind:
        app_label, _, model = filters.kind.partition(".")
        found = found.filter(content_type__app_label=app_label, content_type__model=model)
    if filters.action is not None:
        found = found.filter(action=filters.action)
    if filters.since:
        found = found.filter(timestamp__gte=_day_start(filters.since))
    if filters.until:
        found = found.filter(timestamp__lt=_day_start(filters.until + timedelta(days=1)))
    if filters.text:
        found = found.filter(Q(object_repr__icontains=filters.text) | Q(object_pk=filters.text))
    return found.order_by("-timestamp", "-id")


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())


def kinds() -> list[tuple[str, str]]:
    """(app_label.model, its name) of every kind of object with entries, by name."""
    types = ContentType.objects.filter(
        pk__in=Entry.objects.values("content_type").distinct()
    ).order_by("app_label", "model")
    return sorted(
        ((f"{t.app_label}.{t.model}", _kind_name(t)) for t in types), key=lambda kind: kind[1]
    )


def _kind_name(content_type: ContentType) -> str:
    model = content_type.model_class()
    return str(model._meta.verbose_name) if model is not None else content_type.model
