"""What the privileges page shows: the grants, and what one user holds where."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from otterweb.privileges.checks import visible
from otterweb.privileges.models import Grant, Role


def grants(*, viewer, user=None, group=None, role=None, scope: str = "") -> QuerySet[Grant]:
    """The grants ``viewer`` may see (those on what it may see grants of), filtered."""
    found = Grant.objects.select_related(
        "role", "user", "group", "environment", "raft", "created_by"
    )
    if user is not None:
        found = found.filter(Q(user=user) | Q(group__in=user.groups.all()))
    if group is not None:
        found = found.filter(group=group)
    if role is not None:
        found = found.filter(role=role)
    if scope == "everything":
        found = found.filter(environment=None, raft=None)
    elif scope == "environment":
        found = found.exclude(environment=None)
    elif scope == "raft":
        found = found.exclude(raft=None)
    return visible(viewer, found.order_by("role__name", "environment__name", "raft__name", "pk"))


@dataclass(frozen=True)
class RoleRow:
    role: Role
    permissions: list[str]


def roles() -> list[RoleRow]:
    """Each role and the names of its permissions, for the page's legend."""
    rows = []
    for role in Role.objects.prefetch_related("permissions"):
        names = sorted(
            p.name[4:] if p.name.startswith("Can ") else p.name for p in role.permissions.all()
        )
        rows.append(RoleRow(role, names))
    return rows
