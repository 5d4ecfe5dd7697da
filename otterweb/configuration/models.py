"""Configuration management: the runs of servers' configuration plans (checks in collect mode,
remediations in collect-then-execute mode), what each check found per server, each server's
current state, and the remediation plans people approve."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from otterweb.executions.models import Execution
from otterweb.inventory.models import Role, Server
from otterweb.rafts.models import RaftItem


class State(models.TextChoices):
    CURRENT = "current", "Current"
    DRIFTED = "drifted", "Drifted"
    UNKNOWN = "unknown", "Unknown"
    ERROR = "error", "Error"


class RemediationPlan(models.Model):
    """What a remediation would change, from the servers' last checks, shown before it runs.
    Approving it runs it, on its servers only; a plan older than one of its servers' last
    checks is stale and refused."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        APPROVED = "approved", "Approved and run"
        DISCARDED = "discarded", "Discarded"

    scope = models.CharField(max_length=300, help_text="What was asked for, in words.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    automatic = models.BooleanField(
        default=False, help_text="Made and approved by the automatic remediation policy."
    )
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="remediation_plans",
    )
    approved = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="approved_remediation_plans",
    )
    left_out = models.JSONField(
        default=list, blank=True, help_text="Servers in the scope the plan leaves out, and why."
    )
    digest = models.CharField(
        max_length=64,
        blank=True,
        help_text="HMAC-SHA256 of everything it will run (combined script text, the modules it "
        "calls, variables, targets) when it was made: approval refuses it when any changed.",
    )

    class Meta:
        ordering = ["-created"]
        permissions = [("remediate_server", "Can remediate configuration drift")]

    def __str__(self) -> str:
        return f"Remediation plan {self.pk}: {self.scope}"


class ConfigurationRun(models.Model):
    """An execution of configuration plans, and the map from its script's lines back to the
    roles' scripts."""

    class Purpose(models.TextChoices):
        CHECK = "check", "Check"
        REMEDIATION = "remediation", "Remediation"

    execution = models.OneToOneField(
        Execution, on_delete=models.CASCADE, related_name="configuration_run"
    )
    purpose = models.CharField(max_length=12, choices=Purpose.choices)
    routine = models.BooleanField(default=False, help_text="Started by the schedule.")
    plan = models.ForeignKey(
        RemediationPlan, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    # {"<line of the script>": [role pk, raft item pk, line in the item]}
    origins = models.JSONField(default=dict, blank=True)
    # [{"role": pk, "name": "web", "item": pk, "first": line, "last": line}]
    parts = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"{self.get_purpose_display()} (execution {self.execution_id})"


class Check(models.Model):
    """One server's part of a check run: pending until the run ends, then what it found."""

    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="checks")
    run = models.ForeignKey(ConfigurationRun, on_delete=models.CASCADE, related_name="checks")
    state = models.CharField(max_length=10, choices=State.choices, default=State.UNKNOWN)
    finished = models.BooleanField(default=False)
    checked = models.DateTimeField(null=True, blank=True, help_text="When the run ended.")
    drift_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    changed = models.BooleanField(
        default=False, help_text="Its state differs from the server's state before it."
    )

    class Meta:
        ordering = ["-pk"]
        permissions = [("check_configuration", "Can check servers' configuration now")]
        indexes = [models.Index(fields=["server", "-checked"], name="check_server_checked")]

    def __str__(self) -> str:
        return f"Check of {self.server_id} in run {self.run_id}: {self.state}"


class DriftItem(models.Model):
    """An operation a check found drifted: its configuration key, and how the state differs."""

    server_check = models.ForeignKey(Check, on_delete=models.CASCADE, related_name="drift_items")
    key = models.CharField(max_length=500, help_text="The operation and what it configures.")
    role = models.ForeignKey(
        Role, null=True, blank=True, on_delete=models.SET_NULL, related_name="drift_items"
    )
    raft_item = models.ForeignKey(
        RaftItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="drift_items"
    )
    line = models.PositiveIntegerField(null=True, blank=True, help_text="In the raft item.")
    plan_line = models.PositiveIntegerField(null=True, blank=True, help_text="In the run's script.")
    # [{"property": ..., "expected": ..., "actual": ...}]
    differences = models.JSONField(default=list)

    class Meta:
        ordering = ["server_check", "plan_line", "pk"]

    def __str__(self) -> str:
        return self.key


class ServerState(models.Model):
    """A server's configuration state now: from its last finished check."""

    server = models.OneToOneField(
        Server, on_delete=models.CASCADE, related_name="configuration_state"
    )
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.UNKNOWN, db_index=True
    )
    last_check = models.ForeignKey(
        Check, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    checked = models.DateTimeField(null=True, blank=True)
    state_since = models.DateTimeField(null=True, blank=True)
    drift_count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.server_id}: {self.state}"


class PlannedServer(models.Model):
    """A server in a remediation plan, with the check the plan was made from and what it would
    change there."""

    plan = models.ForeignKey(RemediationPlan, on_delete=models.CASCADE, related_name="servers")
    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="planned_in")
    based_on = models.ForeignKey(Check, on_delete=models.CASCADE, related_name="+")
    # [{"key", "role", "item", "line", "differences", "unresolvable"}]
    changes = models.JSONField(default=list)
    # [{"operation", "role", "item", "line"}]: execute operations that run with the changes
    also_runs = models.JSONField(default=list)

    class Meta:
        ordering = ["plan", "server__name"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "server"], name="planned_server_once")
        ]

    def __str__(self) -> str:
        return f"{self.server} in plan {self.plan_id}"
