"""Encryption of secrets at rest: Fernet with the installation's key (settings.ENCRYPTION_KEY,
from OTTERWEB_ENCRYPTION_KEY or generated into the data folder). Secrets saved under an earlier
key are still read with the keys in OTTERWEB_PREVIOUS_ENCRYPTION_KEYS, until
`manage.py reencrypt_secrets` moves them to the current one."""

from __future__ import annotations

from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def fernet(key: str) -> Fernet:
    try:
        return Fernet(key.encode())
    except (ValueError, TypeError):
        raise ImproperlyConfigured(
            "the encryption key is not a Fernet key (32 url-safe base64-encoded bytes)"
        ) from None


@lru_cache(maxsize=4)
def _keys(current: str, previous: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([fernet(key) for key in (current, *previous)])


def keys() -> MultiFernet:
    """The current key first (it encrypts), then the previous ones (they only decrypt)."""
    if not settings.ENCRYPTION_KEY:
        raise ImproperlyConfigured("no encryption key: set OTTERWEB_ENCRYPTION_KEY")
    return _keys(settings.ENCRYPTION_KEY, tuple(settings.PREVIOUS_ENCRYPTION_KEYS))


def encrypt(secret: str) -> str:
    return keys().encrypt(secret.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return keys().decrypt(token.encode()).decode()
    except InvalidToken:
        raise ImproperlyConfigured(
            "a stored secret cannot be decrypted: the encryption key changed since it was saved "
            "(give the old one in OTTERWEB_PREVIOUS_ENCRYPTION_KEYS)"
        ) from None


def reencrypt(model, field: str, *, also_readable_with: tuple[str, ...] = ()) -> int:
    """Encrypt every stored ``field`` of ``model`` again with the current key; tokens are read
    with any known key (and ``also_readable_with``). Those that no key opens are left as they
    are. Returns how many were changed."""
    rotating = MultiFernet(
        [fernet(key) for key in (settings.ENCRYPTION_KEY, *settings.PREVIOUS_ENCRYPTION_KEYS)]
        + [fernet(key) for key in also_readable_with]
    )
    changed = 0
    for pk, token in model.objects.exclude(**{field: ""}).values_list("pk", field):
        try:
            rotated = rotating.rotate(token.encode()).decode()
        except InvalidToken:
            continue
        model.objects.filter(pk=pk).update(**{field: rotated})
        changed += 1
    return changed
