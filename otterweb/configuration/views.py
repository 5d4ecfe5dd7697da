"""Configuration pages: the servers-by-roles matrix with its rollups, a server's plan and
checks, a check's drift, and the remediate flow (plan, then approve with confirmation)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from otterweb.configuration import selectors, services
from otterweb.configuration.models import Check, RemediationPlan, State
from otterweb.inventory.models import Environment, Role, Server
from otterweb.privileges.checks import visible
from otterweb.privileges.pages import get_visible_or_404

PAGE_SIZE = 100


class ConfigurationPage(LoginRequiredMixin, PermissionRequiredMixin):
    permission_required = "inventory.view_server"


class MatrixView(ConfigurationPage, TemplateView):
    template_name = "configuration/matrix.html"

    def get_context_data(self, **kwargs):
        query = self.request.GET
        filters = {key: query.get(key, "") for key in ("role", "environment", "state", "q")}
        state = filters["state"] if filters["state"] in State.values else None
        found = selectors.matrix(
            role=filters["role"] or None,
            environment=filters["environment"] or None,
            state=state,
            search=filters["q"],
            user=self.request.user,
        )
        page = Paginator(found.servers, PAGE_SIZE).get_page(query.get("page"))
        rows = [{**row, "cells": [row["roles"].get(role) for role in found.roles]} for row in page]
        kept = query.copy()
        kept.pop("page", None)
        return {
            **super().get_context_data(**kwargs),
            "matrix": found,
            "rows": rows,
            "page": page,
            "filters": filters,
            "filter_query": kept.urlencode(),
            "filtered_scope": selectors.scope_label(
                server=None,
                role=filters["role"] or None,
                environment=filters["environment"] or None,
            ),
            "states": State.choices,
            "role_names": Role.objects.values_list("name", flat=True),
            "environment_names": visible(
                self.request.user, Environment.objects.all(), "inventory.view_server"
            ).values_list("name", flat=True),
        }


class ServerConfigurationView(ConfigurationPage, TemplateView):
    template_name = "configuration/server.html"

    def get_context_data(self, **kwargs):
        server = get_visible_or_404(self.request.user, Server, name=self.kwargs["name"])
        return {
            **super().get_context_data(**kwargs),
            "server": server,
            "state": getattr(server, "configuration_state", None),
            "plan": selectors.server_plan(server=server),
            "checks": selectors.server_history(server=server),
            "policy": server.remediation_policy(),
        }


class DriftCheckView(ConfigurationPage, TemplateView):
    template_name = "configuration/check.html"

    def get_context_data(self, **kwargs):
        check = get_visible_or_404(
            self.request.user,
            Check.objects.select_related("server", "run__execution"),
            pk=self.kwargs["pk"],
        )
        return {
            **super().get_context_data(**kwargs),
            "check": check,
            "drift": selectors.drift_of(check=check),
        }


def scope_from(data) -> dict[str, str | None]:
    return {key: data.get(key) or None for key in ("server", "role", "environment")}


def servers_seen(user, scope: dict) -> list[Server]:
    """The servers of ``scope`` that ``user`` may see: a check or a remediation of a role asks
    for the role's servers in the user's environments (the services refuse the others)."""
    return [
        s for s in selectors.servers_in_scope(**scope) if user.has_perm("inventory.view_server", s)
    ]


class DriftCheckNowView(LoginRequiredMixin, PermissionRequiredMixin, View):
    """POST server, role or environment: check them now; back to where it was asked."""

    permission_required = ("inventory.view_server", "configuration.check_configuration")

    def post(self, request):
        scope = scope_from(request.POST)
        servers = servers_seen(request.user, scope)
        label = selectors.scope_label(**scope) or "nothing"
        if not servers:
            messages.error(request, f"No active server in {label} to check.")
        else:
            started = services.check_servers(servers=servers, requested_by=request.user)
            count = len(servers) - len(started.skipped)
            text = f"Checking {count} server{'s' if count != 1 else ''} of {label}"
            text += f" in {len(started.executions)} execution{'s' if len(started.executions) != 1 else ''}."
            if started.skipped:
                text += " Not checked: " + "; ".join(
                    f"{name} ({why})" for name, why in sorted(started.skipped.items())
                )
            messages.success(request, text)
        return redirect(_back(request))


class RemediateView(LoginRequiredMixin, PermissionRequiredMixin, View):
    """POST server, role (and environment) or environment: make the plan and show it."""

    permission_required = ("inventory.view_server", "configuration.remediate_server")

    def post(self, request):
        scope = scope_from(request.POST)
        servers = servers_seen(request.user, scope)
        if not servers:
            messages.error(request, "No active server there to remediate.")
            return redirect(_back(request))
        plan = services.make_plan(
            servers=servers, scope=selectors.scope_label(**scope), requested_by=request.user
        )
        return redirect("configuration-plan", pk=plan.pk)


class PlanView(ConfigurationPage, TemplateView):
    template_name = "configuration/plan.html"

    def get_context_data(self, **kwargs):
        plan = get_visible_or_404(self.request.user, RemediationPlan, pk=self.kwargs["pk"])
        planned = list(plan.servers.select_related("server", "based_on__run"))
        guard = settings.OTTERWEB_REMEDIATION_CONFIRM_OVER
        return {
            **super().get_context_data(**kwargs),
            "plan": plan,
            "planned": planned,
            "stale": services.stale_servers(plan=plan),
            "needs_count": len(planned) > guard,
            "guard": guard,
            "changes": sum(len(p.changes) for p in planned),
            "executions": [run.execution_id for run in plan.runs.all()],
        }


class PlanActionView(LoginRequiredMixin, PermissionRequiredMixin, View):
    """POST approve (with confirm_count over the guard) or discard."""

    permission_required = ("inventory.view_server", "configuration.remediate_server")

    def post(self, request, pk: int):
        plan = get_visible_or_404(
            request.user, RemediationPlan, "configuration.remediate_server", pk=pk
        )
        if request.POST.get("action") == "discard":
            services.discard_plan(plan=plan)
            messages.success(request, "The plan is discarded: nothing was run.")
            return redirect("configuration-plan", pk=plan.pk)
        typed = request.POST.get("confirm_count", "").strip()
        try:
            executions = services.approve_plan(
                plan=plan,
                user=request.user,
                confirm_count=int(typed) if typed.isdigit() else None,
            )
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
            return redirect("configuration-plan", pk=plan.pk)
        messages.success(
            request,
            f"Remediating {plan.servers.count()} server(s); each is checked again when it ends.",
        )
        if len(executions) == 1:
            return redirect("execution-detail", pk=executions[0].pk)
        return redirect("configuration-plan", pk=plan.pk)


def _back(request) -> str:
    target = request.POST.get("next", "")
    return (
        target
        if target.startswith("/") and not target.startswith("//")
        else reverse("configuration")
    )
