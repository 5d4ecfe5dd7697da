"""Django's ModelBackend, except that a service account never signs in with a password (its
password is unusable; this holds even if one was set on it later), and that a user authenticated
by a narrower API key holds none of its Django permissions through it: otterweb.privileges
counts them, kept to the key's limit (otherwise ``has_perm`` without an object would answer
from them, beyond the key)."""

from __future__ import annotations

from django.contrib.auth import backends

from otterweb.privileges.checks import LIMIT


class ModelBackend(backends.ModelBackend):
    def user_can_authenticate(self, user) -> bool:
        from otterweb.accounts.models import ServiceAccount

        if not super().user_can_authenticate(user):
            return False
        return not ServiceAccount.objects.filter(user_id=user.pk).exists()

    def get_all_permissions(self, user_obj, obj=None) -> set[str]:
        if getattr(user_obj, LIMIT, None) is not None:
            return set()
        return super().get_all_permissions(user_obj, obj)
