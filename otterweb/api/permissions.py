"""API permissions, through otterweb.privileges: the model's permission to reach a list or an
action at all (held anywhere: Django's model permissions, reading included, so a user without
`view_` gets 403, not data), then the object's (a grant covering it) for each object, and lists
narrowed to what the user may see (``VisibleOnly``)."""

from typing import TYPE_CHECKING

from django.db import transaction
from rest_framework.exceptions import PermissionDenied
from rest_framework.filters import BaseFilterBackend
from rest_framework.permissions import BasePermission, DjangoObjectPermissions

from otterweb.privileges.checks import forget, may, visible


class ModelPermissions(DjangoObjectPermissions):
    """An object the user may not see answers 404, as if it did not exist; one it may see but
    not change, 403."""

    perms_map = {
        **DjangoObjectPermissions.perms_map,
        "GET": ["%(app_label)s.view_%(model_name)s"],
        "HEAD": ["%(app_label)s.view_%(model_name)s"],
        "OPTIONS": ["%(app_label)s.view_%(model_name)s"],
    }


class ViewPermissions(ModelPermissions):
    """Viewing the model is enough (used under ``view_and``)."""

    perms_map = {method: ModelPermissions.perms_map["GET"] for method in ModelPermissions.perms_map}


def view_and(permission: str, message: str) -> type[ViewPermissions]:
    """For an action that changes nothing of the model itself (run a template, cancel an
    execution): viewing the object, and ``permission`` on it; without them, 403 with
    ``message``."""

    class ViewAnd(ViewPermissions):
        def has_permission(self, request, view) -> bool:
            self.message = message
            return super().has_permission(request, view) and request.user.has_perm(permission)

        def has_object_permission(self, request, view, obj) -> bool:
            self.message = message
            return super().has_object_permission(request, view, obj) and request.user.has_perm(
                permission, obj
            )

    return ViewAnd


def holding(permission: str, message: str) -> type[BasePermission]:
    """For views that are not of one model (rollups, actions over many): the user holds
    ``permission`` somewhere (the services check each object); without it, 403 with
    ``message``."""

    class Holding(BasePermission):
        def has_permission(self, request, view) -> bool:
            self.message = message
            return bool(request.user and request.user.has_perm(permission))

    return Holding


class VisibleOnly(BaseFilterBackend):
    """Lists, and the objects a URL names, narrowed to what the user may see: another
    environment's server is not listed, and its URL answers 404."""

    def filter_queryset(self, request, queryset, view):
        return visible(request.user, queryset)


class EditScripts(BasePermission):
    """The script endpoints that read a script (check, format, blocks, unblocks) work for
    the editor: only for people who may change raft items (somewhere)."""

    message = (
        "You may not edit scripts: the script endpoints need the permission to change raft items."
    )

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm("rafts.change_raftitem"))


if TYPE_CHECKING:
    from rest_framework.viewsets import ModelViewSet as ModelViews
else:
    # DRF's views read the settings, which name this module: it cannot import them
    ModelViews = object


class WritesWithinPrivileges(ModelViews):
    # For model viewsets, before their own perform_create/perform_update: what is saved must lie
    # where the user may add or change it (a server moved into an environment outside the user's
    # privileges is refused with 403, and nothing is saved). A comment, not a docstring: the
    # API's schema would describe the viewsets' operations with it.

    def perform_create(self, serializer) -> None:
        with transaction.atomic():
            super().perform_create(serializer)
            self._require_on(serializer.instance, "add")

    def perform_update(self, serializer) -> None:
        with transaction.atomic():
            super().perform_update(serializer)
            self._require_on(serializer.instance, "change")

    def _require_on(self, obj, action: str) -> None:
        opts = obj._meta
        forget(self.request.user)  # what it holds was read before this object was
        if not may(self.request.user, f"{opts.app_label}.{action}_{opts.model_name}", obj):
            raise PermissionDenied(
                f"You may not {action} the {opts.verbose_name} {obj} there: it would lie "
                "outside your privileges."
            )
