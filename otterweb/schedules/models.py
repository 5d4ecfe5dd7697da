"""Schedules (a job template, or a routine configuration check, at the times of a cron
expression) and triggers (a secret URL that runs a job template)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from otterweb.executions.models import Execution, JobTemplate
from otterweb.fields import TextField
from otterweb.inventory.models import Environment
from otterweb.schedules.cron import describe, validate_cron, validate_time_zone


class Schedule(models.Model):
    class Kind(models.TextChoices):
        JOB = "job", "Run a job template"
        CONFIGURATION = "configuration", "Check configuration"

    name = models.CharField(max_length=200, unique=True)
    description = TextField(blank=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.JOB)
    template = models.ForeignKey(
        JobTemplate,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="schedules",
        help_text="The job template it runs (a job schedule).",
    )
    variables = models.JSONField(
        default=dict, blank=True, help_text="Values for the template's prompts."
    )
    environment = models.ForeignKey(
        Environment,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="configuration_schedules",
        help_text="A configuration check of this environment's servers; none: of every server "
        "no environment's own schedule covers.",
    )
    cron = models.CharField(
        max_length=200,
        validators=[validate_cron],
        help_text="Minute, hour, day of the month, month, day of the week: 0 * * * * is hourly, "
        "30 2 * * * every day at 02:30, */15 * * * * every 15 minutes.",
    )
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text="The cron expression's times are this zone's wall-clock times.",
    )
    enabled = models.BooleanField(default=True)
    next_run = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="None while it is disabled."
    )
    last_fired = models.DateTimeField(null=True, blank=True)
    last_execution = models.ForeignKey(
        Execution, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_error = models.TextField(blank=True, help_text="Why its last run did not start.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="schedules",
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_schedules",
        help_text="Whose behalf its runs start on, with whose rights (checked at every "
        "firing): who last saved it. A job schedule without one does not run.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["environment"],
                condition=Q(kind="configuration"),
                name="schedule_one_configuration_check_per_environment",
                violation_error_message="The environment already has a configuration schedule.",
            ),
            models.UniqueConstraint(
                fields=["kind"],
                condition=Q(kind="configuration", environment__isnull=True),
                name="schedule_one_global_configuration_check",
                violation_error_message="There already is a global configuration schedule.",
            ),
            models.CheckConstraint(
                condition=(Q(kind="job", template__isnull=False, environment__isnull=True))
                | Q(kind="configuration", template__isnull=True),
                name="schedule_kind_matches_what_it_runs",
                violation_error_message="A job schedule runs a template; a configuration "
                "schedule runs no template.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def cron_words(self) -> str:
        return describe(self.cron)

    @property
    def runs(self) -> str:
        """What it runs, in a few words."""
        if self.kind == self.Kind.JOB:
            return f"job template {self.template}" if self.template_id else "a job template"
        if self.environment_id:
            return f"configuration check of {self.environment}"
        return "configuration check of the servers no environment's schedule covers"


class Trigger(models.Model):
    """A secret URL that runs a job template: POST /api/triggers/<id>/ with the token (kind
    token), or with a body signed by the shared secret (kind webhook). Only the token's digest
    and the secret encrypted are stored; both are shown once, when the trigger is made."""

    class Kind(models.TextChoices):
        TOKEN = "token", "Token in the URL"
        WEBHOOK = "webhook", "Webhook signed with HMAC-SHA256"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    template = models.ForeignKey(JobTemplate, on_delete=models.CASCADE, related_name="triggers")
    name = models.CharField(max_length=200, help_text="Who calls it, such as “GitHub push”.")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TOKEN)
    token_digest = models.CharField(
        max_length=64, blank=True, help_text="SHA-256 of the token (kind token)."
    )
    encrypted_secret = models.TextField(blank=True, help_text="The HMAC key (kind webhook).")
    allow_variables = models.BooleanField(
        default=False,
        help_text="Callers may give values for the template's prompts; otherwise a call with "
        "variables is refused.",
    )
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="triggers",
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_triggers",
        help_text="Whose behalf its runs start on, with whose rights (checked at every call): "
        "who made it. A trigger without one does not run.",
    )
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    last_execution = models.ForeignKey(
        Execution, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_error = models.TextField(blank=True, help_text="Why its last accepted call ran nothing.")

    # not stored: the token or the secret of a trigger just made, in the one answer that shows it
    token: str | None
    secret: str | None
    # not stored: where to POST, set by the triggers page
    url: str

    class Meta:
        ordering = ["template", "name", "created"]
        constraints = [
            models.UniqueConstraint(
                fields=["template", "name"],
                name="trigger_name_unique_in_template",
                violation_error_message="The template already has a trigger of that name.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.template})"


class TriggerDelivery(models.Model):
    """A call that started its trigger's template: refused when it comes again (the same
    delivery id, or the same signed message), for as long as it is kept."""

    trigger = models.ForeignKey(Trigger, on_delete=models.CASCADE, related_name="deliveries")
    delivery_id = models.CharField(max_length=200, blank=True)
    signature = models.CharField(max_length=64, blank=True)
    received = models.DateTimeField(db_index=True)
    execution = models.ForeignKey(
        Execution, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-received"]
        verbose_name_plural = "trigger deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["trigger", "delivery_id"],
                condition=~Q(delivery_id=""),
                name="trigger_delivery_id_once",
            ),
            models.UniqueConstraint(
                fields=["trigger", "signature"],
                condition=~Q(signature=""),
                name="trigger_signature_once",
            ),
        ]

    def __str__(self) -> str:
        return self.delivery_id or self.signature[:12]
