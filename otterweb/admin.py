"""What the apps' admins share."""

from __future__ import annotations

from django.contrib import admin


class RecordInline(admin.TabularInline):
    """Rows that are a record (executions of a job, log lines, versions): shown, never added,
    changed or deleted here."""

    can_delete = False
    extra = 0

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False
