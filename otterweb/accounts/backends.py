"""Django's ModelBackend, except that a service account never signs in with a password (its
password is unusable; this holds even if one was set on it later)."""

from __future__ import annotations

from django.contrib.auth import backends


class ModelBackend(backends.ModelBackend):
    def user_can_authenticate(self, user) -> bool:
        from otterweb.accounts.models import ServiceAccount

        if not super().user_can_authenticate(user):
            return False
        return not ServiceAccount.objects.filter(user_id=user.pk).exists()
