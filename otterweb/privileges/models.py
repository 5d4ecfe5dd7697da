"""Privileges: a role (a named set of permissions) granted to a user or a group on a scope:
everything, an environment (with the environments inside it), or a raft."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.db import models
from django.db.models import Q

from otterweb.fields import TextField


class Role(models.Model):
    """What a grant allows. The four built-in roles (Viewer, Operator, Editor, Administrator)
    are made by the migrations and may be edited; a role that is granted cannot be deleted."""

    name = models.CharField(max_length=100, unique=True)
    description = TextField(blank=True)
    permissions = models.ManyToManyField(Permission, blank=True, related_name="+")
    built_in = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["name"]
        db_table = "privileges_role"

    def __str__(self) -> str:
        return self.name


class Scope(models.TextChoices):
    EVERYTHING = "everything", "Everything"
    ENVIRONMENT = "environment", "An environment"
    RAFT = "raft", "A raft"


class OnScope:
    """For a model with ``environment`` and ``raft`` (at most one set): where it applies."""

    environment_id: int | None
    environment: models.Model | None
    raft_id: int | None
    raft: models.Model | None

    @property
    def scope_label(self) -> str:
        if self.environment_id:
            return f"environment {self.environment}"
        if self.raft_id:
            return f"raft {self.raft}"
        return "everything"


class Grant(OnScope, models.Model):
    """``role`` held by ``user`` or ``group`` on everything (no environment nor raft), on
    ``environment`` and the environments inside it, or on ``raft``."""

    role = models.ForeignKey(Role, on_delete=models.PROTECT, related_name="grants")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="grants",
    )
    group = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.CASCADE, related_name="grants"
    )
    environment = models.ForeignKey(
        "inventory.Environment",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="grants",
    )
    raft = models.ForeignKey(
        "rafts.Raft", null=True, blank=True, on_delete=models.CASCADE, related_name="grants"
    )
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["role__name", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(user__isnull=False, group__isnull=True)
                | Q(user__isnull=True, group__isnull=False),
                name="grant_to_a_user_or_a_group",
                violation_error_message="A privilege is granted to a user or to a group.",
            ),
            models.CheckConstraint(
                condition=Q(environment__isnull=True) | Q(raft__isnull=True),
                name="grant_on_one_scope",
                violation_error_message="A privilege is on an environment or on a raft, not both.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} for {self.principal} on {self.scope_label}"

    @property
    def principal(self):
        return self.user if self.user_id else self.group
