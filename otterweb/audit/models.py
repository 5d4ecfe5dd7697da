"""The audit trail: one append-only row per write, login or run event.

The rows are django-auditlog's log entries (this model is its AUDITLOG_LOGENTRY_MODEL), so the
model changes it records through its signals and the events OtterWeb records itself
(otterweb.audit.services) share one table, one page and one API."""

from __future__ import annotations

from auditlog.models import AbstractLogEntry
from django.db import models


class Entry(AbstractLogEntry):
    class Action(models.IntegerChoices):
        # django-auditlog's own (its receivers write these four)
        CREATE = 0, "create"
        UPDATE = 1, "update"
        DELETE = 2, "delete"
        ACCESS = 3, "access"
        # OtterWeb's events (otterweb.audit.services)
        LOGIN = 10, "login"
        LOGOUT = 11, "logout"
        LOGIN_FAILED = 12, "failed login"
        RUN_STARTED = 20, "run started"
        RUN_CANCELLED = 21, "run cancelled"
        PLAN_APPROVED = 22, "plan approved"

    action = models.PositiveSmallIntegerField(choices=Action.choices, db_index=True)
    # who, as a name that outlives the user (``actor`` becomes null when the user is deleted)
    actor_name = models.CharField(max_length=150, blank=True, db_index=True)

    class Meta(AbstractLogEntry.Meta):
        verbose_name = "audit entry"
        verbose_name_plural = "audit entries"
        ordering = ["-timestamp", "-id"]
        indexes = [models.Index(fields=["content_type", "-timestamp"], name="audit_kind_time")]

    def __str__(self) -> str:
        return f"{self.get_action_display()} {self.object_repr}"

    @property
    def action_name(self) -> str:
        """The action as the API and the filters name it ("login_failed")."""
        return self.Action(self.action).name.lower()

    @property
    def kind(self) -> str:
        """What kind of object, as app_label.model ("inventory.server")."""
        return f"{self.content_type.app_label}.{self.content_type.model}"

    def field_changes(self) -> list[tuple[str, str, str]]:
        """(field, before, after) for each field the entry changed; a many-to-many change as
        the objects added (after) or removed (before)."""
        rows = []
        for field, change in sorted((self.changes or {}).items()):
            if isinstance(change, dict):  # django-auditlog's many-to-many form
                objects = ", ".join(str(o) for o in change.get("objects", []))
                removed = change.get("operation") == "delete"
                rows.append((field, objects if removed else "", "" if removed else objects))
            else:
                before, after = [*change, "", ""][:2]
                rows.append((field, _shown(before), _shown(after)))
        return rows


def _shown(value) -> str:
    return "" if value in (None, "None") else str(value)
