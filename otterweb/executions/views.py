"""Executions pages: the list (filtered, paged), one execution with its live log and drift,
cancel. (Job template pages are in template_views.)"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.shortcuts import get_object_or_404, redirect
from django.views import View
from django.views.generic import DetailView, ListView

from otterweb.executions import services
from otterweb.executions.models import Execution


class ExecutionListView(LoginRequiredMixin, PermissionRequiredMixin, ListView):
    permission_required = "executions.view_execution"
    template_name = "executions/list.html"
    paginate_by = 50

    def get_queryset(self):
        executions = Execution.objects.select_related("job__requested_by")
        query = self.request.GET
        if query.get("run_state") in Execution.RunState.values:
            executions = executions.filter(run_state=query["run_state"])
        if query.get("status") in Execution.Status.values:
            executions = executions.filter(status=query["status"])
        if query.get("q"):
            executions = executions.filter(job__name__icontains=query["q"])
        return executions

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            run_states=Execution.RunState.choices,
            statuses=Execution.Status.choices,
            filters=query,
            filter_query=query.urlencode(),
        )
        return context


class ExecutionDetailView(LoginRequiredMixin, PermissionRequiredMixin, DetailView):
    permission_required = "executions.view_execution"
    template_name = "executions/detail.html"
    queryset = Execution.objects.select_related("job__requested_by")


class ExecutionCancelView(LoginRequiredMixin, PermissionRequiredMixin, View):
    permission_required = ("executions.view_execution", "executions.cancel_execution")

    def post(self, request, pk: int):
        execution = get_object_or_404(Execution, pk=pk)
        services.request_cancel(execution=execution)
        messages.info(request, "Asked the worker to stop the execution.")
        return redirect("execution-detail", pk=pk)
