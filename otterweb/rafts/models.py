"""Rafts hold scripts, modules, templates and shell scripts, with every saved version kept."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from otterweb.fields import TextField
from otterweb.names import NAME_HELP, validate_name


class Raft(models.Model):
    name = models.CharField(
        max_length=100, unique=True, help_text=NAME_HELP, validators=[validate_name]
    )
    description = TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class RaftItem(models.Model):
    class Kind(models.TextChoices):
        SCRIPT = "script", "OtterScript script"
        MODULE = "module", "OtterScript module"
        TEMPLATE = "template", "Text template"
        ASSET = "asset", "Asset"
        SHELL_SCRIPT = "shell_script", "Shell script"

    raft = models.ForeignKey(Raft, on_delete=models.CASCADE, related_name="items")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.SCRIPT)
    content = TextField(blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["raft__name", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["raft", "name"],
                name="raft_item_name_unique_in_raft",
                violation_error_message="The raft already has an item of that name.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.raft}::{self.name}"

    @property
    def is_otterscript(self) -> bool:
        return self.kind in (self.Kind.SCRIPT, self.Kind.MODULE)


class RaftItemVersion(models.Model):
    item = models.ForeignKey(RaftItem, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content = TextField(blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="raft_versions",
    )
    message = models.CharField(max_length=500, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "number"], name="raft_item_version_number_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.item} v{self.number}"


class RaftItemDraft(models.Model):
    """A user's unsaved edit of an item, saved by the editor every few seconds: never a
    version, never checked (it may be half-typed). One per user and item."""

    item = models.ForeignKey(RaftItem, on_delete=models.CASCADE, related_name="drafts")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="raft_drafts"
    )
    content = TextField(blank=True)
    base_version = models.PositiveIntegerField(
        help_text="The number of the version the edit started from."
    )
    saved = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["item", "user"]
        constraints = [
            models.UniqueConstraint(fields=["item", "user"], name="raft_item_draft_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.item} (draft of {self.user})"
