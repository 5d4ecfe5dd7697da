"""Privileges on pages: the object a URL names, 404 when the user may not see it (as if it did
not exist) and 403 when it may see it but not do what the page does; lists narrowed to what the
user may see."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.views.generic.detail import SingleObjectMixin
from django.views.generic.list import MultipleObjectMixin

from otterweb.privileges.checks import may, visible

# what seeing these takes: they are parts of their servers' configuration
SEEN_AS = {
    "configuration.remediationplan": "inventory.view_server",
    "configuration.check": "inventory.view_server",
}


def view_permission(obj) -> str:
    name = f"{obj._meta.app_label}.{obj._meta.model_name}"
    return SEEN_AS.get(name, f"{obj._meta.app_label}.view_{obj._meta.model_name}")


def get_visible_or_404(user, klass, *permissions: str, **lookup):
    """The object ``klass`` (a model, manager or queryset) finds by ``lookup``, when ``user``
    may see it (404 otherwise) and holds ``permissions`` on it (403 otherwise)."""
    obj = get_object_or_404(klass, **lookup)
    require(user, obj, *permissions)
    return obj


def require(user, obj, *permissions: str) -> None:
    if not may(user, view_permission(obj), obj):
        raise Http404(f"No {obj._meta.verbose_name} matches the given query.")
    for permission in permissions:
        if not may(user, permission, obj):
            raise PermissionDenied(f"You may not do that to {obj}: it is outside your privileges.")


def narrow_choices(
    form, user, names: tuple[str, ...] | None = None, *, permission: str | None = None
):
    """``form``'s choices of objects (those of the fields ``names``, or all) narrowed to those
    ``user`` may see (or may ``permission``); the form."""
    for name, field in form.fields.items():
        queryset = getattr(field, "queryset", None)
        if queryset is not None and (names is None or name in names):
            field.queryset = visible(user, queryset, permission)
    return form


class VisibleObjectMixin(SingleObjectMixin):
    """For DetailView, UpdateView, DeleteView: the object, when the user may see it, and holds on
    it every permission the view requires (``permission_required``)."""

    # the view's, and PermissionRequiredMixin's (before this one in the view's bases)
    request: HttpRequest
    get_permission_required: Callable[[], Sequence[str]]

    def get_object(self, queryset=None):
        obj = super().get_object(queryset)
        require(self.request.user, obj, *self.get_permission_required())
        return obj


class VisibleListMixin(MultipleObjectMixin):
    """For ListView: only what the user may see."""

    request: HttpRequest  # the view's

    def get_queryset(self):
        return visible(self.request.user, super().get_queryset())
