"""An execution's log: its entries, its scopes (the nested sections an operation or a block
opens) and its runs (the skeleton a viewer draws first). Each row names its execution by id
alone (``execution_id``): the executions app sits above this one, and deleting an execution
deletes its log through it (otterweb.execution_logs.services.delete_log)."""

from __future__ import annotations

from django.db import models

from engine import Level


class LogScope(models.Model):
    class Status(models.TextChoices):
        """The worst level logged inside the scope, its nested scopes' included."""

        NORMAL = "normal", "Normal"
        WARNING = "warning", "Warning"
        ERROR = "error", "Error"

    execution_id = models.BigIntegerField(db_index=True)
    scope_id = models.PositiveIntegerField()
    parent_id = models.PositiveIntegerField(null=True, blank=True)
    name = models.CharField(max_length=500)
    line = models.PositiveIntegerField(null=True, blank=True)
    started = models.DateTimeField()
    ended = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NORMAL)
    after_seq = models.PositiveIntegerField(
        default=0,
        help_text="The seq logged last before the scope opened (0: none): the scope comes after "
        "its parent's own lines up to it.",
    )
    # the scope's own entries (not its nested scopes'), counted by the log sink
    lines = models.PositiveIntegerField(default=0)
    warnings = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["execution_id", "scope_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["execution_id", "scope_id"], name="log_scope_unique_in_execution"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} (execution {self.execution_id}, scope {self.scope_id})"


class LogEntry(models.Model):
    execution_id = models.BigIntegerField(db_index=True)
    seq = models.PositiveIntegerField()
    scope_id = models.PositiveIntegerField(null=True, blank=True)
    level = models.PositiveSmallIntegerField(
        choices=[(level.value, level.label) for level in Level]
    )
    message = models.TextField()
    line = models.PositiveIntegerField(null=True, blank=True)
    time = models.DateTimeField()

    class Meta:
        ordering = ["execution_id", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["execution_id", "seq"], name="log_entry_seq_unique_in_execution"
            )
        ]

    def __str__(self) -> str:
        return f"execution {self.execution_id} #{self.seq}"


class LogRun(models.Model):
    """A stretch of an execution's stored log entries, in seq order, that all belong to one
    scope: the log's skeleton, which a viewer draws before it fetches any line. The log sink
    extends the last run or adds one with each batch. The entries of a run are those stored
    with first_seq <= seq <= last_seq (fewer than last_seq - first_seq + 1 where lines were
    dropped at the log's size limit)."""

    execution_id = models.BigIntegerField(db_index=True)
    scope_id = models.PositiveIntegerField(help_text="0: the top level, outside every scope.")
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    count = models.PositiveIntegerField(help_text="Entries stored in the run.")

    class Meta:
        ordering = ["execution_id", "first_seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["execution_id", "first_seq"], name="log_run_unique_in_execution"
            )
        ]

    def __str__(self) -> str:
        return f"Execution {self.execution_id}, scope {self.scope_id}: {self.first_seq}-{self.last_seq}"
