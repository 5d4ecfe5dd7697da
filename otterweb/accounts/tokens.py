"""API tokens (django-rest-knox). A token is shown once, when it is made; the database keeps only
its SHA-512 digest. It is valid until it expires (OTTERWEB_TOKEN_TTL_DAYS after it was made, unless
made with another lifetime) or is revoked."""

from __future__ import annotations

from datetime import timedelta

from knox.auth import TokenAuthentication
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed


def create(*, user, days: float | None = None) -> tuple[AuthToken, str]:
    """A new token for ``user`` and its text. ``days``: its lifetime (0: it never expires); the
    setting's when None."""
    if days is None:
        return AuthToken.objects.create(user=user)  # knox's TOKEN_TTL, from the setting
    return AuthToken.objects.create(user=user, expiry=timedelta(days=days) if days else None)


def user_for(key: str):
    """The active user whose unexpired token is ``key``, or None. Expired tokens are deleted on
    the way (as knox does for HTTP requests)."""
    try:
        user, _token = TokenAuthentication().authenticate_credentials(key.encode())
    except AuthenticationFailed:
        return None
    return user
