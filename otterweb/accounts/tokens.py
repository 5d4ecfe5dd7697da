"""API tokens (django-rest-knox). A token is shown once, when it is made; the database keeps only
its SHA-512 digest. It is valid until it expires (OTTERWEB_TOKEN_TTL_DAYS after it was made, unless
made with another lifetime) or is revoked.

Every token is an API key (otterweb.accounts.models.ApiKey): those made here have no name and are
listed as "(unnamed)"; named ones, with an optional narrower privilege, come from
otterweb.accounts.services.create_key."""

from __future__ import annotations

from datetime import timedelta

from knox.models import AuthToken


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
