from django.contrib import admin

from otterweb.privileges.models import Grant, Role


@admin.register(Role)
class RoleAdmin(admin.ModelAdmin):
    list_display = ["name", "built_in", "description"]
    filter_horizontal = ["permissions"]
    readonly_fields = ["built_in"]

    def has_delete_permission(self, request, obj=None) -> bool:
        # a role that is granted stays (its grants would go with it): revoke them first
        return super().has_delete_permission(request, obj) and not (obj and obj.grants.exists())


@admin.register(Grant)
class GrantAdmin(admin.ModelAdmin):
    """Read here; granted and revoked on the privileges page, where the granter's own right on
    the scope is checked."""

    list_display = ["role", "user", "group", "environment", "raft", "created", "created_by"]
    list_filter = ["role"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
