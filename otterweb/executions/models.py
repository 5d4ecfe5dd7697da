"""Job templates, jobs, executions, and their logs."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from otterweb.fields import TextField
from otterweb.inventory.models import Environment, Role, Server
from otterweb.rafts.models import RaftItem, RaftItemVersion


class Mode(models.TextChoices):
    EXECUTE = "execute", "Execute"
    COLLECT = "collect", "Collect only (drift check)"
    COLLECT_EXECUTE = "collect-execute", "Collect, then execute what drifted"


def validate_prompts(prompts) -> None:
    """[{"name": "Version", "default": "1.0", "description": "..."}]: a name each, used once."""
    if not isinstance(prompts, list) or not all(isinstance(p, dict) for p in prompts):
        raise ValidationError('Prompts are a list of {"name": ..., "default": ...} objects.')
    names = [str(p.get("name", "")).casefold() for p in prompts]
    if not all(names) or len(set(names)) != len(names):
        raise ValidationError("Every prompt has a name, and no name is used twice.")
    unknown = sorted({key for p in prompts for key in p} - {"name", "default", "description"})
    if unknown:
        raise ValidationError(
            f"Prompts have no {', '.join(unknown)}: only name, default, description."
        )


class JobTemplate(models.Model):
    class Targeting(models.TextChoices):
        NONE = "none", "No servers: the script runs once"
        SERVERS = "servers", "Chosen servers"
        ROLES = "roles", "Servers with the roles, in the environments"

    name = models.CharField(max_length=200, unique=True)
    description = TextField(blank=True)
    raft_item = models.ForeignKey(RaftItem, on_delete=models.PROTECT, related_name="job_templates")
    targeting = models.CharField(max_length=10, choices=Targeting.choices, default=Targeting.NONE)
    servers = models.ManyToManyField(Server, blank=True, related_name="job_templates")
    roles = models.ManyToManyField(Role, blank=True, related_name="job_templates")
    environments = models.ManyToManyField(Environment, blank=True, related_name="job_templates")
    mode = models.CharField(max_length=20, choices=Mode.choices, default=Mode.EXECUTE)
    simulate = models.BooleanField(default=False)
    prompts = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_prompts],
        help_text='Variables to ask for when run: [{"name": "Version", "default": "1.0"}].',
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        permissions = [("run_jobtemplate", "Can run job templates")]

    def __str__(self) -> str:
        return self.name


class Job(models.Model):
    """One request to run a script, as it was when it was made: targets, script and variables."""

    template = models.ForeignKey(
        JobTemplate, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    name = models.CharField(max_length=200)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="jobs",
    )
    script = TextField(help_text="The script's text when the job was made.")
    script_version = models.ForeignKey(
        RaftItemVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    targets = models.JSONField(
        default=list, blank=True, help_text="The server names, resolved when the job was made."
    )
    variables = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name


class Execution(models.Model):
    class RunState(models.TextChoices):
        PENDING = "pending", "Pending"
        EXECUTING = "executing", "Executing"
        COMPLETED = "completed", "Completed"

    class Status(models.TextChoices):
        NORMAL = "normal", "Normal"
        WARNING = "warning", "Warning"
        ERROR = "error", "Error"
        CANCELLED = "cancelled", "Cancelled"

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="executions")
    run_state = models.CharField(
        max_length=10, choices=RunState.choices, default=RunState.PENDING, db_index=True
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NORMAL)
    mode = models.CharField(max_length=20, choices=Mode.choices, default=Mode.EXECUTE)
    simulate = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    ended = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="The worker running it.")
    heartbeat = models.DateTimeField(null=True, blank=True, db_index=True)
    cancel_requested = models.BooleanField(default=False)
    drift = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    last_seq = models.PositiveIntegerField(
        default=0, help_text="The seq of the last stored log entry."
    )

    class Meta:
        ordering = ["-created"]
        permissions = [("cancel_execution", "Can cancel executions")]

    def __str__(self) -> str:
        return f"Execution {self.pk} of {self.job}"

    # ---- lifecycle

    def start(self, *, worker: str) -> None:
        now = timezone.now()
        self.run_state, self.started, self.heartbeat, self.worker = (
            self.RunState.EXECUTING,
            now,
            now,
            worker,
        )
        self.save(update_fields=["run_state", "started", "heartbeat", "worker"])

    def finish(self, *, status: str, drift: list, error: str = "") -> None:
        self.run_state, self.status, self.drift, self.error = (
            self.RunState.COMPLETED,
            status,
            drift,
            error,
        )
        self.ended = timezone.now()
        self.save(update_fields=["run_state", "status", "drift", "error", "ended"])
        self.locks.all().delete()  # a finished execution holds no global lock

    @property
    def outcome(self) -> str:
        """What happened, in one word for lists and badges: the run state until it ends, then
        "drifted" for a collect that found drift, else the status."""
        if self.run_state != self.RunState.COMPLETED:
            return self.run_state
        if self.mode == Mode.COLLECT and self.drift and self.status != self.Status.CANCELLED:
            return "drifted"
        return self.status

    @property
    def outcome_label(self) -> str:
        if self.outcome == "drifted":
            count = len(self.drift)
            return f"Drifted ({count} {'operation' if count == 1 else 'operations'})"
        if self.run_state != self.RunState.COMPLETED:
            return self.get_run_state_display()
        return self.get_status_display()

    @property
    def duration(self) -> float | None:
        if self.started is None:
            return None
        return ((self.ended or timezone.now()) - self.started).total_seconds()


class LogScope(models.Model):
    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="scopes")
    scope_id = models.PositiveIntegerField()
    parent_id = models.PositiveIntegerField(null=True, blank=True)
    name = models.CharField(max_length=500)
    line = models.PositiveIntegerField(null=True, blank=True)
    started = models.DateTimeField()
    ended = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=10, choices=Execution.Status.choices, default=Execution.Status.NORMAL
    )

    class Meta:
        ordering = ["execution", "scope_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["execution", "scope_id"], name="log_scope_unique_in_execution"
            )
        ]


class LogEntry(models.Model):
    class Level(models.IntegerChoices):
        DEBUG = 0, "debug"
        INFORMATION = 10, "information"
        WARNING = 20, "warning"
        ERROR = 30, "error"

    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="log_entries")
    seq = models.PositiveIntegerField()
    scope_id = models.PositiveIntegerField(null=True, blank=True)
    level = models.PositiveSmallIntegerField(choices=Level.choices)
    message = models.TextField()
    line = models.PositiveIntegerField(null=True, blank=True)
    time = models.DateTimeField()

    class Meta:
        ordering = ["execution", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["execution", "seq"], name="log_entry_seq_unique_in_execution"
            )
        ]


class GlobalLock(models.Model):
    """A global lock (`lock=!token`) held by a block of a running execution: the row is the lock,
    so it holds across worker threads and processes. Used without Redis; with Redis, locks
    live there (see otterweb.executions.locks)."""

    token = models.CharField(max_length=200, unique=True, help_text="Case-folded.")
    execution = models.ForeignKey(Execution, on_delete=models.CASCADE, related_name="locks")
    acquired = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"!{self.token} (execution {self.execution_id})"
