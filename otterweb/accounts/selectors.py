"""Reading API keys and service accounts, and who may manage whose keys."""

from __future__ import annotations

from django.db.models import QuerySet

from otterweb.accounts.models import ApiKey, ServiceAccount

# administering users: what making a service account, and its keys, needs
ADMINISTER_USERS = "auth.add_user"


def is_administrator(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.has_perm(ADMINISTER_USERS))


def is_service_account(user) -> bool:
    return ServiceAccount.objects.filter(user_id=user.pk).exists()


def may_manage_keys_of(actor, owner) -> bool:
    """One's own keys (but a service account's only through an administrator), and as an
    administrator a service account's."""
    if actor is None or not actor.is_authenticated:
        return False
    if is_service_account(owner):
        return is_administrator(actor)
    return actor.pk == owner.pk


def keys_of(owner) -> QuerySet[ApiKey]:
    """``owner``'s keys, newest first: the active ones and those revoked or expired."""
    return ApiKey.objects.filter(user=owner).select_related("role", "environment", "raft")


def manageable_keys(actor) -> QuerySet[ApiKey]:
    """The keys ``actor`` may list and revoke: its own, and an administrator's service accounts'."""
    keys = ApiKey.objects.select_related("user", "role", "environment", "raft")
    if is_administrator(actor):
        return keys.filter(user__service_account__isnull=False) | keys.filter(user=actor)
    return keys.filter(user=actor)


def service_accounts() -> QuerySet[ServiceAccount]:
    return ServiceAccount.objects.select_related("user", "created_by").prefetch_related(
        "user__api_keys__role", "user__api_keys__environment", "user__api_keys__raft"
    )
