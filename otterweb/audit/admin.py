"""The audit trail in the admin: read only for everyone, superusers included (django-auditlog's
own admin is replaced: it lets a cascade delete entries)."""

from __future__ import annotations

from django.contrib import admin

from otterweb.audit import selectors
from otterweb.audit.models import Entry

if admin.site.is_registered(Entry):
    admin.site.unregister(Entry)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    date_hierarchy = "timestamp"
    list_display = [
        "timestamp",
        "actor_name",
        "remote_addr",
        "action",
        "content_type",
        "object_repr",
    ]
    list_filter = ["action", "content_type"]
    list_select_related = ["content_type"]
    search_fields = ["object_repr", "object_pk", "actor_name"]
    fields = readonly_fields = (
        "timestamp",
        "actor_name",
        "remote_addr",
        "action",
        "content_type",
        "object_pk",
        "object_repr",
        "changes",
        "additional_data",
    )
    actions = None

    def has_view_permission(self, request, obj=None) -> bool:
        return selectors.may_view(request.user)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
