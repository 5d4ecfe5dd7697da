"""The one answer to "may this principal do this to this object" (``may``), and the lists of
what one may see (``visible``).

Permissions are Django's (``app.codename``). A user holds one:
- as a superuser, everywhere;
- through Django's own user and group permissions, everywhere;
- through a grant of a role holding it (to the user, or to a group the user is in), on the
  grant's scope: everything, an environment and those inside it, or a raft
  (otterweb.privileges.places says which objects a scope covers).

``user.has_perm(permission)`` without an object answers whether the user holds it anywhere: what
opens a page or a list, which ``visible`` then narrows. With an object it answers for that
object. The checks are django-rules predicates (``register_rules``), behind Django's
``has_perm`` through rules' authentication backend, so pages, the API, websockets, schedules,
triggers and the engine's host all ask the same question."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import rules
from django.apps import apps
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model, Q, QuerySet

from otterweb.privileges.models import Grant
from otterweb.privileges.places import Place, lookups_of, place_of


def environment_model():
    """The inventory's Environment, which grants name (privileges import no app's models)."""
    return Grant.environment.field.related_model


# running a script on a server (a configuration check or remediation asks its own permission)
RUN = "executions.add_execution"
# permissions that act on servers: a grant on a raft never gives them (an Operator of a raft
# may not run its scripts on Production's servers); only the servers' environments count
ON_SERVERS = frozenset(
    {
        "executions.run_jobtemplate",
        "executions.add_execution",
        "executions.cancel_execution",
        "executions.run_on_local_server",
        "configuration.check_configuration",
        "configuration.remediate_server",
    }
)
OUR_APPS = (
    "inventory",
    "rafts",
    "executions",
    "configuration",
    "schedules",
    "privileges",
    "audit",
    "accounts",
)


@dataclass
class Held:
    """Where a user holds one permission."""

    everywhere: bool = False
    environments: set[int] = field(default_factory=set)  # granted ones and those inside them
    rafts: set[int] = field(default_factory=set)

    def covers(self, place: Place, *, rafts_count: bool = True) -> bool:
        if self.everywhere:
            return True
        if place.environments and place.environments <= self.environments:
            return True
        return rafts_count and place.raft is not None and place.raft in self.rafts


NOTHING = Held()

# set on a user by the authentication of an API key that is narrower than its owner
LIMIT = "otterweb_privilege_limit"


@dataclass(frozen=True)
class Limit:
    """What a narrower API key allows of its owner's privileges: the permissions of a role
    (None: all of them), on an environment (and those inside it) or a raft (neither: wherever
    the owner holds them)."""

    permissions: frozenset[str] | None = None
    environment: int | None = None
    raft: int | None = None
    # the key's owner is a superuser (whose is_superuser the key's authentication turns off in
    # memory: Django answers an active superuser's has_perm before asking any backend)
    superuser: bool = False


class Privileges:
    """What one user holds, loaded once (a few queries) and kept on the user object for its
    request or websocket."""

    def __init__(self, user) -> None:
        self.user = user
        self.held: dict[str, Held] = defaultdict(Held)
        if not user.is_active:
            return
        limit: Limit | None = getattr(user, LIMIT, None)
        if user.is_superuser or (limit is not None and limit.superuser):
            self.superuser = limit is None
            if limit is not None:
                for permission in limit.permissions or _permission_names():
                    self.held[permission].everywhere = True
                self._narrow(limit)
            return
        self._load(user)
        if limit is not None:
            self._narrow(limit)

    def _narrow(self, limit: Limit) -> None:
        """Keep only what ``limit`` (an API key's role and scope) allows."""
        inside = _environments_inside() if limit.environment is not None else {}
        for permission in list(self.held):
            if limit.permissions is not None and permission not in limit.permissions:
                del self.held[permission]
                continue
            held = self.held[permission]
            if limit.environment is not None:
                within = inside.get(limit.environment, {limit.environment})
                held.environments = within if held.everywhere else held.environments & within
                held.rafts, held.everywhere = set(), False
            elif limit.raft is not None:
                keep = held.everywhere or limit.raft in held.rafts
                held.rafts = {limit.raft} if keep else set()
                held.environments, held.everywhere = set(), False

    def _load(self, user) -> None:
        for name in _model_permissions(user):
            self.held[name].everywhere = True
        grants = (
            Grant.objects.filter(Q(user=user) | Q(group__in=user.groups.all()))
            .select_related("role")
            .prefetch_related("role__permissions__content_type")
        )
        inside: dict[int, set[int]] | None = None  # read when a grant names an environment
        for grant in grants:
            within: set[int] = set()
            if grant.environment_id:
                if inside is None:
                    inside = _environments_inside()
                within = inside.get(grant.environment_id, {grant.environment_id})
            for permission in grant.role.permissions.all():
                held = self.held[f"{permission.content_type.app_label}.{permission.codename}"]
                if grant.environment_id:
                    held.environments |= within
                elif grant.raft_id:
                    held.rafts.add(grant.raft_id)
                else:
                    held.everywhere = True

    superuser = False

    def of(self, permission: str) -> Held:
        if self.superuser:
            return Held(everywhere=True)
        return self.held.get(permission, NOTHING)

    def anywhere(self, permission: str) -> bool:
        held = self.of(permission)
        return held.everywhere or bool(held.environments or held.rafts)

    def allows(self, permission: str, obj=None) -> bool:
        if obj is None:
            return self.anywhere(permission)
        held = self.of(permission)
        if held.everywhere:
            return True
        if not (held.environments or held.rafts):
            return False
        place = place_of(obj)
        if place.shared and permission.split(".", 1)[1].startswith("view_"):
            return True
        return held.covers(place, rafts_count=permission not in ON_SERVERS)


def _model_permissions(user) -> set[str]:
    """Django's own permissions of ``user`` (its and its groups'), which hold everywhere."""
    from django.contrib.auth.backends import ModelBackend

    return ModelBackend().get_all_permissions(user)


def _environments_inside() -> dict[int, set[int]]:
    """Each environment's id: it and the ids of every environment inside it."""
    return environments_inside(dict(environment_model().objects.values_list("pk", "parent_id")))


def environments_inside(parents: dict[int, int | None]) -> dict[int, set[int]]:
    """Of the environments in ``parents`` (each id: its parent's), each id: it and the ids of
    every one inside it. A parent left out of ``parents`` (one the caller may not see) is
    passed over."""
    inside: dict[int, set[int]] = {pk: {pk} for pk in parents}
    for pk in parents:
        seen = {pk}
        parent = parents.get(pk)
        while parent in inside and parent not in seen:
            inside[parent].add(pk)
            seen.add(parent)
            parent = parents.get(parent)
    return inside


CACHE = "_otterweb_privileges"


def privileges_of(user) -> Privileges:
    cached = getattr(user, CACHE, None)
    if cached is None:
        cached = Privileges(user)
        setattr(user, CACHE, cached)
    return cached


def forget(user) -> None:
    """Drop what was loaded for ``user`` (after its grants changed)."""
    if hasattr(user, CACHE):
        delattr(user, CACHE)


def may(user, permission: str, obj: Model | None = None) -> bool:
    """Whether ``user`` may do ``permission`` (``app.codename``) to ``obj``; without ``obj``,
    whether it may anywhere. None as the user is OtterWeb itself, which may do anything."""
    if user is None:
        return True
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return False
    return privileges_of(user).allows(permission, obj)


def may_everywhere(user, permission: str) -> bool:
    """Whether ``user`` holds ``permission`` on everything: what making something that is in no
    scope yet needs (a raft, an environment of its own, an inventory role)."""
    if user is None:
        return True
    if not user.is_authenticated:
        return False
    return privileges_of(user).of(permission).everywhere


def visible(user, queryset: QuerySet, permission: str | None = None) -> QuerySet:
    """``queryset`` narrowed to what ``user`` may ``permission`` (its model's view permission by
    default): all of it, or only what the user's grants cover."""
    model = queryset.model
    if permission is None:
        permission = f"{model._meta.app_label}.view_{model._meta.model_name}"
    if user is None:
        return queryset
    if not user.is_authenticated:
        return queryset.none()
    privileges = privileges_of(user)
    held = privileges.of(permission)
    if held.everywhere:
        return queryset
    if not (held.environments or held.rafts):
        return queryset.none()
    lookups = lookups_of(model)
    if lookups is not None:
        return _narrowed(queryset, *lookups, held)
    candidates = queryset.prefetch_related(*_PREFETCH.get(model._meta.label, ()))
    keep = [obj.pk for obj in candidates if privileges.allows(permission, obj)]
    return queryset.filter(pk__in=keep)


# what place_of reads of each model, fetched for a whole list at once
_TEMPLATE = ["environments", "servers__environments", "roles__servers__environments"]
_PREFETCH = {
    "inventory.Server": ["environments"],
    "inventory.Credential": ["environments"],
    "inventory.Variable": ["server__environments"],
    "rafts.RaftItemVersion": ["item"],
    "rafts.RaftItemDraft": ["item"],
    "executions.JobTemplate": ["raft_item", *_TEMPLATE],
    "schedules.Schedule": ["template__raft_item", *(f"template__{p}" for p in _TEMPLATE)],
    "schedules.Trigger": ["template__raft_item", *(f"template__{p}" for p in _TEMPLATE)],
    "configuration.RemediationPlan": ["servers__server__environments"],
    "configuration.Check": ["server__environments"],
}


def _narrowed(queryset: QuerySet, environments: str, rafts: str, held: Held) -> QuerySet:
    """A long list (executions, jobs) narrowed in the database: what has environments that all
    lie in the held ones, and what is in no environment and in a held raft."""
    outside = environment_model().objects.exclude(pk__in=held.environments)
    in_held = Q(**{f"{environments}__in": held.environments}) & ~Q(
        **{f"{environments}__in": outside}
    )
    condition = in_held
    if held.rafts:
        condition |= Q(**{f"{environments}__isnull": True, f"{rafts}__in": held.rafts})
    return queryset.filter(condition).distinct()


def _permission_names() -> list[str]:
    names = []
    for model in apps.get_models():
        label = model._meta.app_label
        if label not in OUR_APPS and model._meta.model_name not in ("user", "group"):
            continue
        names += [
            f"{label}.{action}_{model._meta.model_name}"
            for action in model._meta.default_permissions
        ]
        names += [f"{label}.{codename}" for codename, _name in model._meta.permissions]
    return names


def _holds(permission: str):
    @rules.predicate(name=f"holds {permission}")
    def holds(user, obj=None) -> bool:
        return may(user, permission, obj)

    return holds


def register_rules() -> None:
    """One django-rules rule per permission of OtterWeb's models (and of users and groups)."""
    for name in _permission_names():
        rules.set_perm(name, _holds(name))
