"""Encryption of credential secrets at rest (Fernet, key from OTTERWEB_ENCRYPTION_KEY)."""

from __future__ import annotations

from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@lru_cache(maxsize=1)
def _fernet(key: str) -> Fernet:
    try:
        return Fernet(key.encode())
    except (ValueError, TypeError):
        raise ImproperlyConfigured(
            "OTTERWEB_ENCRYPTION_KEY is not a Fernet key (32 url-safe base64-encoded bytes)"
        ) from None


def encrypt(secret: str) -> str:
    if not settings.ENCRYPTION_KEY:
        raise ImproperlyConfigured("Set OTTERWEB_ENCRYPTION_KEY before storing secrets.")
    return _fernet(settings.ENCRYPTION_KEY).encrypt(secret.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _fernet(settings.ENCRYPTION_KEY).decrypt(token.encode()).decode()
    except InvalidToken:
        raise ImproperlyConfigured(
            "a stored secret cannot be decrypted: OTTERWEB_ENCRYPTION_KEY changed since it was saved"
        ) from None
