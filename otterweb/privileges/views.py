"""The privileges page: who may do what where, granting and revoking (the services check the
granter's own right on the grant's scope)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect
from django.views import View
from django.views.generic import TemplateView

from otterweb.privileges import selectors, services
from otterweb.privileges.forms import GrantForm
from otterweb.privileges.models import Grant, Role
from otterweb.privileges.pages import get_visible_or_404, narrow_choices


class GrantListView(LoginRequiredMixin, PermissionRequiredMixin, TemplateView):
    """GET ?user=&group=&role=&scope=: the grants; POST: grant."""

    permission_required = "privileges.view_grant"
    template_name = "privileges/list.html"

    def get_context_data(self, **kwargs):
        query = self.request.GET
        user = get_user_model().objects.filter(username=query.get("user") or None).first()
        group = Group.objects.filter(name=query.get("group") or None).first()
        role_id = query.get("role", "")
        role = Role.objects.filter(pk=role_id).first() if role_id.isdigit() else None
        viewer = self.request.user
        form = kwargs.pop("form", None) or GrantForm()
        narrow_choices(form, viewer, ("environment", "raft"), permission="privileges.add_grant")
        return {
            **super().get_context_data(**kwargs),
            "grants": selectors.grants(
                viewer=viewer, user=user, group=group, role=role, scope=query.get("scope", "")
            ),
            "roles": selectors.roles(),
            "form": form,
            "may_grant": viewer.has_perm("privileges.add_grant"),
            "filters": {
                "user": user,
                "group": group,
                "role": role,
                "scope": query.get("scope", ""),
            },
            "users": get_user_model().objects.filter(is_active=True).order_by("username"),
            "groups": Group.objects.order_by("name"),
        }

    def post(self, request):
        if not request.user.has_perm("privileges.add_grant"):
            raise PermissionDenied("You may not grant privileges.")
        form = GrantForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                made = services.grant(
                    role=data["role"],
                    user=data["user"],
                    group=data["group"],
                    environment=data["environment"],
                    raft=data["raft"],
                    by=request.user,
                )
            except (ValidationError, PermissionDenied) as error:
                form.add_error(None, " ".join(getattr(error, "messages", [str(error)])))
            else:
                messages.success(request, f"Granted {made}.")
                return redirect("privileges")
        return self.render_to_response(self.get_context_data(form=form), status=400)


class RevokeView(LoginRequiredMixin, PermissionRequiredMixin, View):
    permission_required = "privileges.delete_grant"

    def post(self, request, pk: int):
        grant = get_visible_or_404(request.user, Grant.objects.select_related("role"), pk=pk)
        services.revoke(grant=grant, by=request.user)
        messages.success(request, f"Revoked {grant}.")
        return redirect("privileges")
