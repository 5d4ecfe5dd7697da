"""Executions pages: the list, and one execution with its live log."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.views.generic import DetailView, ListView

from otterweb.executions.models import Execution


class ExecutionListView(LoginRequiredMixin, PermissionRequiredMixin, ListView):
    permission_required = "executions.view_execution"
    template_name = "executions/list.html"
    paginate_by = 50
    queryset = Execution.objects.select_related("job__requested_by")


class ExecutionDetailView(LoginRequiredMixin, PermissionRequiredMixin, DetailView):
    permission_required = "executions.view_execution"
    template_name = "executions/detail.html"
    queryset = Execution.objects.select_related("job__requested_by")
