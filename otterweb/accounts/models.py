"""API keys and service accounts.

An API key is a django-rest-knox token (knox keeps its SHA-512 digest and its expiry) with a
name, who made it, when and from where it was last used, and an optional narrower privilege: a
role, on an environment or a raft. Revoking a key deletes its knox token and keeps the key's row,
marked revoked, for its owner's list and the audit trail; an expired key's token is deleted when
it is next sent, or by the housekeeper within the hour, and its row stays too.

A service account is a user that cannot sign in with a password (its password is unusable and
otterweb.accounts.backends refuses it anyway), made by an administrator, holding grants like any
user; administrators make and revoke its keys."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from otterweb.fields import TextField
from otterweb.privileges.models import OnScope

UNNAMED = "(unnamed)"


class ApiKey(OnScope, models.Model):
    class State(models.TextChoices):
        ACTIVE = "active", "Active"
        EXPIRED = "expired", "Expired"
        REVOKED = "revoked", "Revoked"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    # null once revoked or expired (knox's row is deleted then)
    token = models.OneToOneField(
        "knox.AuthToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="api_key",
    )
    name = models.CharField(max_length=100, blank=True)
    created = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    expires = models.DateTimeField(null=True, blank=True)
    last_used = models.DateTimeField(null=True, blank=True)
    last_address = models.GenericIPAddressField(null=True, blank=True)
    # the narrower privilege: the owner's, kept to the role's permissions (none: all of them) on
    # the environment (and those inside it) or the raft (neither: wherever the owner holds them)
    role = models.ForeignKey(
        "privileges.Role",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="api_keys",
    )
    environment = models.ForeignKey(
        "inventory.Environment",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="api_keys",
    )
    raft = models.ForeignKey(
        "rafts.Raft",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="api_keys",
    )
    revoked = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = "API key"
        constraints = [
            models.CheckConstraint(
                condition=Q(environment__isnull=True) | Q(raft__isnull=True),
                name="api_key_on_one_scope",
                violation_error_message="A key is limited to an environment or a raft, not both.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} of {self.user}"

    @property
    def label(self) -> str:
        return self.name or UNNAMED

    @property
    def state(self) -> State:
        if self.revoked is not None:
            return self.State.REVOKED
        if self.token_id is None or (self.expires is not None and self.expires <= timezone.now()):
            return self.State.EXPIRED
        return self.State.ACTIVE

    @property
    def narrower(self) -> bool:
        return bool(self.role_id or self.environment_id or self.raft_id)

    @property
    def privilege_label(self) -> str:
        if not self.narrower:
            return "as its owner"
        return f"{self.role or 'its owner'}'s permissions on {self.scope_label}"


class ServiceAccount(models.Model):
    """Marks ``user`` as a service account: no password login; keys made by administrators."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="service_account"
    )
    description = TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["user__username"]

    def __str__(self) -> str:
        return str(self.user)
