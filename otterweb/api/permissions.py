"""API permissions: Django's model permissions, reading included (a user without `view_` gets
403, not data)."""

from rest_framework.permissions import BasePermission, DjangoModelPermissions


class ModelPermissions(DjangoModelPermissions):
    perms_map = {
        **DjangoModelPermissions.perms_map,
        "GET": ["%(app_label)s.view_%(model_name)s"],
        "HEAD": ["%(app_label)s.view_%(model_name)s"],
        "OPTIONS": ["%(app_label)s.view_%(model_name)s"],
    }


class ViewPermissions(ModelPermissions):
    """Viewing the model is enough (used under ``view_and``)."""

    perms_map = {method: ModelPermissions.perms_map["GET"] for method in ModelPermissions.perms_map}


def view_and(permission: str, message: str) -> type[ViewPermissions]:
    """For an action that changes nothing of the model itself (run a template, cancel an
    execution): viewing the model, and ``permission``; without them, 403 with ``message``."""

    class ViewAnd(ViewPermissions):
        def has_permission(self, request, view) -> bool:
            self.message = message
            return super().has_permission(request, view) and request.user.has_perm(permission)

    return ViewAnd


def holding(permission: str, message: str) -> type[BasePermission]:
    """For views that are not of one model (rollups, actions over many): the user holds
    ``permission``; without it, 403 with ``message``."""

    class Holding(BasePermission):
        def has_permission(self, request, view) -> bool:
            self.message = message
            return bool(request.user and request.user.has_perm(permission))

    return Holding


class EditScripts(BasePermission):
    """The script endpoints that read a script (check, format, blocks, unblocks) work for
    the editor: only for people who may change raft items."""

    message = (
        "You may not edit scripts: the script endpoints need the permission to change raft items."
    )

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm("rafts.change_raftitem"))
