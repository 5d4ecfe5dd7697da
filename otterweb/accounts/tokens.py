"""API tokens (django-rest-knox). A token is shown once, when it is made; the database keeps only
its SHA-512 digest. It is valid until it expires (OTTERWEB_TOKEN_TTL_DAYS after it was made, unless
made with another lifetime) or is revoked.

Every token is an API key (otterweb.accounts.models.ApiKey): those made here have no name and are
listed as "(unnamed)"; named ones, with an optional narrower privilege, come from
otterweb.accounts.services.create_key."""

from __future__ import annotations

from datetime import timedelta

from knox.auth import TokenAuthentication
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed


def create(*, user, days: float | None = None, api_key: bool = True) -> tuple[AuthToken, str]:
    """A new token for ``user`` and its text. ``days``: its lifetime (0: it never expires); the
    setting's when None. ``api_key``: also its unnamed key's row (a named key makes its own)."""
    if days is None:
        token, text = AuthToken.objects.create(user=user)  # knox's TOKEN_TTL, from the setting
    else:
        token, text = AuthToken.objects.create(
            user=user, expiry=timedelta(days=days) if days else None
        )
    if api_key:
        from otterweb.accounts.models import ApiKey

        ApiKey.objects.create(user=user, token=token, created=token.created, expires=token.expiry)
    return token, text


def user_for(key: str, *, address: str | None = None):
    """The active user whose unexpired token is ``key``, or None; its use from ``address`` is
    recorded and a narrower key's limit put on the user (otterweb.accounts.services.key_used).
    Expired tokens are deleted on the way (as knox does for HTTP requests)."""
    from otterweb.accounts import services

    try:
        user, token = TokenAuthentication().authenticate_credentials(key.encode())
    except AuthenticationFailed:
        return None
    return services.key_used(user=user, token=token, address=address)
