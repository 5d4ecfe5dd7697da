"""Directory groups onto Django groups: on each directory login (LDAP or OpenID Connect), a user
is put in the Django groups that the mapping gives their directory groups, and taken out of the
mapped groups they no longer earn. Django groups that no mapping names (granted by hand) are left
alone. Privileges are granted to the Django groups (otterweb.privileges), so a directory group's
members get its roles."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping

from django.contrib.auth.models import Group
from django.db import transaction

logger = logging.getLogger(__name__)


def mapped_groups(
    mapping: Mapping[str, tuple[str, ...]],
    member_of: Iterable[str],
    *,
    key: Callable[[str], object] = lambda name: name,
) -> set[str]:
    """The Django group names that ``member_of`` (directory groups) earn under ``mapping``;
    ``key`` says when two directory group names are the same (LDAP DNs ignore case)."""
    by_key: dict[object, set[str]] = {}
    for directory_group, django_groups in mapping.items():
        by_key.setdefault(key(directory_group), set()).update(django_groups)
    earned: set[str] = set()
    for directory_group in member_of:
        earned |= by_key.get(key(directory_group), set())
    return earned


@transaction.atomic
def sync_groups(
    *,
    user,
    mapping: Mapping[str, tuple[str, ...]],
    member_of: Iterable[str],
    source: str,
    key: Callable[[str], object] = lambda name: name,
) -> None:
    """Make ``user``'s membership of the mapped Django groups what ``member_of`` earns; groups
    are made when missing. ``source`` names the directory in the log ("LDAP", "OIDC")."""
    if not mapping:
        return
    managed = {name for names in mapping.values() for name in names}
    earned = mapped_groups(mapping, member_of, key=key)
    current = set(user.groups.filter(name__in=managed).values_list("name", flat=True))
    added, removed = earned - current, current - earned
    for name in sorted(added):
        group, _made = Group.objects.get_or_create(name=name)
        user.groups.add(group)
    if removed:
        user.groups.remove(*Group.objects.filter(name__in=removed))
    if added or removed:
        logger.info(
            "%s login of %s: Django groups added %s, removed %s",
            source,
            user.get_username(),
            sorted(added) or "none",
            sorted(removed) or "none",
        )
