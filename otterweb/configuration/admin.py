"""Checks and remediation plans in the admin: records, shown and never edited there (the
Configuration pages make and approve plans)."""

from django.contrib import admin

from otterweb.admin import RecordInline
from otterweb.configuration.models import Check, DriftItem, PlannedServer, RemediationPlan


class RecordAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class DriftItemInline(RecordInline):
    model = DriftItem
    fields = ["key", "role", "raft_item", "line", "differences"]


@admin.register(Check)
class CheckAdmin(RecordAdmin):
    list_display = ["server", "state", "checked", "drift_count", "changed"]
    list_filter = ["state", "changed"]
    search_fields = ["server__name"]
    list_select_related = ["server"]
    inlines = [DriftItemInline]


class PlannedServerInline(RecordInline):
    model = PlannedServer
    fields = ["server", "based_on", "changes", "also_runs"]


@admin.register(RemediationPlan)
class RemediationPlanAdmin(RecordAdmin):
    list_display = ["pk", "scope", "status", "automatic", "created", "created_by", "approved_by"]
    list_filter = ["status", "automatic"]
    inlines = [PlannedServerInline]
