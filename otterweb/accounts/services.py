"""API keys and service accounts: making and revoking keys, recording their use, the limit a
narrower key puts on its owner's privileges, and making service accounts."""

from __future__ import annotations

import binascii
import ipaddress
import logging
from datetime import timedelta
from hmac import compare_digest

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.utils import timezone
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS
from rest_framework.exceptions import AuthenticationFailed

from otterweb.accounts import tokens
from otterweb.accounts.models import ApiKey, ServiceAccount
from otterweb.accounts.selectors import is_administrator, may_manage_keys_of
from otterweb.privileges import checks

logger = logging.getLogger(__name__)

# a key's last use is written at most this often (its first use always)
USE_RECORDED_EVERY = timedelta(minutes=1)
LONGEST_DAYS = 3650


def authenticate(text: str, *, address: str | None) -> tuple[object, AuthToken]:
    """The active user whose unexpired token is ``text``, and the token; raises
    AuthenticationFailed. The key's use from ``address`` is recorded and a narrower key's limit
    put on the user (key_used). The one place both the API's authentication and the websockets'
    call.

    One query finds the token, its user and its key. An expired token is deleted when it is sent;
    the housekeeper deletes the others (delete_expired_tokens). knox's own authentication reads
    every token of the user on each request to delete the expired ones, and the key apart."""
    token = _token_of(text)
    if token is None:
        raise AuthenticationFailed("Invalid token.")
    if not token.user.is_active:
        raise AuthenticationFailed("User inactive or deleted.")
    return key_used(user=token.user, token=token, address=address), token


def _token_of(text: str) -> AuthToken | None:
    try:
        digest = hash_token(text)
    except (TypeError, binascii.Error):
        return None
    candidates = AuthToken.objects.filter(token_key=text[: CONSTANTS.TOKEN_KEY_LENGTH])
    for token in candidates.select_related("user", "api_key__role"):
        if not compare_digest(digest, token.digest):
            continue
        if token.expiry is not None and token.expiry < timezone.now():
            token.delete()  # its key stays, expired
            return None
        return token
    return None


def delete_expired_tokens() -> int:
    """Delete the tokens past their expiry (their keys stay, listed as expired); how many."""
    deleted, _by_model = AuthToken.objects.filter(expiry__lt=timezone.now()).delete()
    if deleted:
        logger.info("deleted %d expired API tokens", deleted)
    return deleted


def key_used(*, user, token: AuthToken, address: str | None):
    """``user``, authenticated by ``token`` from ``address``: records the key's use (at most once
    a minute) and, for a narrower key, puts its limit on ``user`` (this in-memory object only)."""
    try:
        key = token.api_key  # read with the token
    except ApiKey.DoesNotExist:  # a token made before keys had names, or by knox directly
        key, _made = ApiKey.objects.get_or_create(
            token=token,
            defaults={"user": user, "created": token.created, "expires": token.expiry},
        )
    _record_use(key, address)
    limit = limit_of(key, owner=user)
    if limit is not None:
        setattr(user, checks.LIMIT, limit)
        # Django answers an active superuser's has_perm before any backend: the limit would not
        # be asked. Only this object, never saved, loses the flag.
        user.is_superuser = False
        checks.forget(user)
    return user


def _record_use(key: ApiKey, address: str | None) -> None:
    address = _ip(address)
    now = timezone.now()
    if key.last_used is not None and now - key.last_used < USE_RECORDED_EVERY:
        return
    # conditional: of requests racing with one key, one writes
    stale = ApiKey.objects.filter(pk=key.pk, last_used=key.last_used)
    if stale.update(last_used=now, last_address=address):
        key.last_used, key.last_address = now, address


def _ip(address: str | None) -> str | None:
    """``address`` when it is an IP address (a unix socket's peer, a test's client are not)."""
    try:
        return str(ipaddress.ip_address(address)) if address else None
    except ValueError:
        return None


def limit_of(key: ApiKey, *, owner) -> checks.Limit | None:
    """What a narrower key allows of its owner's privileges; None for a key as wide as them."""
    if not key.narrower:
        return None
    return checks.Limit(
        permissions=role_permissions(key.role) if key.role_id else None,
        environment=key.environment_id,
        raft=key.raft_id,
        superuser=owner.is_superuser,
    )


def role_permissions(role) -> frozenset[str]:
    return frozenset(
        f"{app_label}.{codename}"
        for app_label, codename in role.permissions.values_list(
            "content_type__app_label", "codename"
        )
    )


def create_key(
    *,
    actor,
    owner,
    name: str,
    days: float | None = None,
    role=None,
    environment=None,
    raft=None,
) -> tuple[ApiKey, str]:
    """A new key of ``owner`` made by ``actor``, and its text (shown only this once). ``days``:
    its lifetime (0: until revoked; None: OTTERWEB_TOKEN_TTL_DAYS). Refused (ValidationError)
    when it would allow what its owner does not hold: ``role``'s permissions on ``environment``,
    ``raft`` or everything."""
    if not may_manage_keys_of(actor, owner):
        raise PermissionDenied(
            "You may make keys only for yourself, or as an administrator for a service account."
        )
    name = name.strip()
    if not name:
        raise ValidationError({"name": "Give the key a name (what uses it)."})
    if owner.api_keys.filter(name=name, revoked=None, token__isnull=False).exists():
        raise ValidationError({"name": f"{owner} already has a key named '{name}'."})
    if days is not None and not 0 <= days <= LONGEST_DAYS:
        raise ValidationError(
            {"expires_in_days": f"Between 1 and {LONGEST_DAYS} days, or 0 for no expiry."}
        )
    if environment is not None and raft is not None:
        raise ValidationError("Limit a key to an environment or to a raft, not both.")
    if role is not None:
        _require_held(owner, role, environment=environment, raft=raft)
    with transaction.atomic():
        token, text = tokens.create(user=owner, days=days, api_key=False)
        key = ApiKey.objects.create(
            user=owner,
            token=token,
            name=name,
            created=token.created,
            created_by=actor,
            expires=token.expiry,
            role=role,
            environment=environment,
            raft=raft,
        )
    logger.info(
        "API key %s (id %s) of %s made by %s, %s, expires %s",
        key.label,
        key.pk,
        owner,
        actor,
        key.privilege_label,
        key.expires.isoformat() if key.expires else "never",
    )
    return key, text


def _require_held(owner, role, *, environment, raft) -> None:
    """Every permission of ``role`` must be held by ``owner`` on the key's scope."""
    privileges = checks.Privileges(owner)  # the owner's own, never a key's limit
    missing = []
    for permission in sorted(role_permissions(role)):
        held = privileges.of(permission)
        if held.everywhere:
            continue
        if environment is not None and environment.pk in held.environments:
            continue
        if raft is not None and raft.pk in held.rafts:
            continue
        missing.append(permission)
    if missing:
        where = (
            f"environment {environment}"
            if environment is not None
            else f"raft {raft}"
            if raft is not None
            else "everything"
        )
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise ValidationError(
            {
                "role": f"A key cannot be wider than its owner: {owner} does not hold "
                f"{shown} on {where}."
            }
        )


def revoke_key(*, actor, key: ApiKey) -> None:
    """Revoke ``key``: its knox token is deleted (it answers 401 from now on); its row stays,
    marked revoked, for the list and the audit trail."""
    if not may_manage_keys_of(actor, key.user):
        raise PermissionDenied(
            "You may revoke only your own keys, or as an administrator a service account's."
        )
    if key.revoked is not None:
        return
    with transaction.atomic():
        token_id = key.token_id
        key.revoked, key.revoked_by, key.token = timezone.now(), actor, None
        key.save(update_fields=["revoked", "revoked_by", "token"])
        if token_id is not None:
            AuthToken.objects.filter(pk=token_id).delete()
    logger.info("API key %s (id %s) of %s revoked by %s", key.label, key.pk, key.user, actor)


def revoke_token(*, actor, token: AuthToken) -> None:
    """Revoke the key whose knox token is ``token`` (the token a request carries)."""
    key, _made = ApiKey.objects.get_or_create(
        token=token,
        defaults={"user": token.user, "created": token.created, "expires": token.expiry},
    )
    revoke_key(actor=actor, key=key)


def create_service_account(*, actor, username: str, description: str = ""):
    """A user that cannot sign in with a password, for scripts and other programs; only an
    administrator makes one. Grant it privileges like any user, and make keys for it."""
    if not is_administrator(actor):
        raise PermissionDenied("Only an administrator makes service accounts.")
    users = get_user_model()
    username = username.strip()
    field = users._meta.get_field(users.USERNAME_FIELD)
    assert isinstance(field, models.Field)  # a column, not a relation
    try:
        field.run_validators(username)
    except ValidationError as error:
        raise ValidationError({"username": error.messages}) from None
    if not username:
        raise ValidationError({"username": "Give the service account a name."})
    if users.objects.filter(**{f"{users.USERNAME_FIELD}__iexact": username}).exists():
        raise ValidationError({"username": f"There is already a user named '{username}'."})
    with transaction.atomic():
        user = users.objects.create_user(username=username, password=None)  # unusable
        ServiceAccount.objects.create(user=user, description=description, created_by=actor)
    logger.info("service account %s made by %s", user, actor)
    return user


def user_for(key: str, *, address: str | None = None):
    """The active user whose unexpired token is ``key``, or None (authenticate)."""
    try:
        user, _token = authenticate(key, address=address)
    except AuthenticationFailed:
        return None
    return user
