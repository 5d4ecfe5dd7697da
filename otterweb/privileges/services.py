"""Granting and revoking privileges. The caller's own right is checked here, where the grant's
scope is known: granting or revoking on an environment or a raft needs the permission to add or
delete grants there; on everything, everywhere."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from otterweb.privileges.checks import may
from otterweb.privileges.models import Grant, Role

logger = logging.getLogger(__name__)


@transaction.atomic
def grant(*, role: Role, user=None, group=None, environment=None, raft=None, by=None) -> Grant:
    """``role`` to ``user`` or ``group`` on ``environment``, ``raft`` or (neither) everything;
    the grant that holds it already when there is one."""
    if (user is None) == (group is None):
        raise ValidationError("Grant to a user or to a group.")
    if environment is not None and raft is not None:
        raise ValidationError("Grant on an environment or on a raft, not both.")
    wanted = Grant(role=role, user=user, group=group, environment=environment, raft=raft)
    if not may(by, "privileges.add_grant", wanted):
        raise PermissionDenied(f"You may not grant privileges on {wanted.scope_label}.")
    existing = Grant.objects.filter(
        role=role, user=user, group=group, environment=environment, raft=raft
    ).first()
    if existing is not None:
        return existing
    wanted.created_by = by
    wanted.save()
    logger.info(
        "grant=%s role=%r principal=%r scope=%r by=%r message='privilege granted'",
        wanted.pk,
        role.name,
        str(wanted.principal),
        wanted.scope_label,
        str(by) if by else "OtterWeb",
    )
    return wanted


@transaction.atomic
def revoke(*, grant: Grant, by=None) -> None:
    if not may(by, "privileges.delete_grant", grant):
        raise PermissionDenied(f"You may not revoke privileges on {grant.scope_label}.")
    logger.info(
        "grant=%s role=%r principal=%r scope=%r by=%r message='privilege revoked'",
        grant.pk,
        grant.role.name,
        str(grant.principal),
        grant.scope_label,
        str(by) if by else "OtterWeb",
    )
    grant.delete()
