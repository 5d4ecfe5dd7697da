"""Executions pages: the list (filtered, paged), one execution with its live log and drift,
cancel; and what the server page shows of executions. (Job template pages are in
template_views; the log's downloads are otterweb.execution_logs'.)"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.http import urlencode
from django.utils.timesince import timesince
from django.views import View
from django.views.generic import DetailView, ListView

from otterweb.api.error_body import error_response, validation_errors
from otterweb.executions import selectors, services
from otterweb.executions.local_runs import run_as_summary
from otterweb.executions.models import Execution
from otterweb.inventory.models import Server
from otterweb.privileges.checks import visible
from otterweb.privileges.pages import VisibleObjectMixin, get_visible_or_404


class ExecutionListView(LoginRequiredMixin, PermissionRequiredMixin, ListView):
    """Filters: ?run_state=, ?status= (an outcome: normal ... cancelled, drifted), ?q= (the job's
    name), ?since= (made at or after an ISO 8601 time)."""

    permission_required = "executions.view_execution"
    template_name = "executions/list.html"
    paginate_by = 50

    def get_queryset(self):
        query = self.request.GET
        return visible(
            self.request.user,
            selectors.executions_list(
                run_state=query.get("run_state", ""),
                outcome=query.get("status", ""),
                name=query.get("q", ""),
                since=self.since(),
            ),
        )

    def since(self) -> datetime | None:
        try:
            since = parse_datetime(self.request.GET.get("since", ""))
        except ValueError:
            return None
        if since is not None and timezone.is_naive(since):
            since = timezone.make_aware(since)
        return since

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            rows=[execution_row(execution) for execution in context["object_list"]],
            run_states=Execution.RunState.choices,
            statuses=selectors.ENDED_OUTCOMES,
            since=self.since(),
            filters=query,
            filter_query=query.urlencode(),
        )
        return context

    def render_to_response(self, context, **kwargs):
        """The list page's script (frontend/src/executions/list.ts) refreshes the rows while
        executions run: it asks for JSON, and gets them drawn by the page's own template."""
        if self.request.headers.get("Accept") != "application/json":
            return super().render_to_response(context, **kwargs)
        response = JsonResponse(
            {
                "html": render_to_string(
                    "executions/list_results.html", context, request=self.request
                ),
                "running": any(row["running"] for row in context["rows"]),
            }
        )
        response["Vary"] = "Accept"
        return response


class ExecutionDetailView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    permission_required = "executions.view_execution"
    template_name = "executions/detail.html"
    queryset = Execution.objects.select_related("job__requested_by", "configuration_run")


class ExecutionCancelView(LoginRequiredMixin, PermissionRequiredMixin, View):
    permission_required = ("executions.view_execution", "executions.cancel_execution")

    def post(self, request, pk: int):
        execution = get_visible_or_404(
            request.user, Execution, "executions.cancel_execution", pk=pk
        )
        services.request_cancel(execution=execution)
        messages.info(request, "Asked the worker to stop the execution.")
        return redirect("execution-detail", pk=pk)


def server_page(*, user, server: Server) -> dict:
    """What the server page (inventory's) shows of executions, added to it from the AppConfig:
    the server's recent executions that ``user`` may see, and for the local server whom runs
    act as."""
    context: dict = {}
    if user.has_perm("executions.view_execution", server):
        context["executions"] = [
            execution
            for execution in selectors.recent_executions(server=server)
            if user.has_perm("executions.view_execution", execution)
        ]
    if server.agent_type == Server.AgentType.LOCAL:
        context["local_runs"] = run_as_summary()
    return context


def format_duration(seconds: float | None) -> str:
    """12.3 s, 4 min 05 s, 2 h 07 min."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def execution_row(execution: Execution) -> dict:
    """What a list shows of an execution, as text: pages render it and the dashboard's poll
    sends it, so both say the same. Reads the job and who ran it (select_related them)."""
    job = execution.job
    started = execution.started
    started_label = started_title = ""
    if started is not None:
        recent = timezone.now() - started < timedelta(minutes=1)
        started_label = "just now" if recent else f"{timesince(started)} ago"
        started_title = date_format(timezone.localtime(started), "DATETIME_FORMAT")
    return {
        "id": execution.pk,
        "url": reverse("execution-detail", args=[execution.pk]),
        "name": job.name,
        "outcome": execution.outcome,
        "outcome_label": execution.outcome_label,
        "mode": execution.get_mode_display() + (" (simulated)" if execution.simulate else ""),
        "started": started.isoformat() if started else None,
        "started_label": started_label,
        "started_title": started_title,
        "duration": format_duration(execution.duration),  # so far, while it runs
        "running": execution.run_state != Execution.RunState.COMPLETED,
        "lines": execution.log_lines,
        "warnings": execution.log_warnings,
        "errors": execution.log_errors,
        "targets": len(job.targets),
        "by": job.requested_by.get_username() if job.requested_by else "",
    }


class JsonPermissionMixin(LoginRequiredMixin, PermissionRequiredMixin):
    """For endpoints that scripts of the pages fetch: 403 with a JSON body, never a redirect to
    the login page or an HTML error page."""

    def handle_no_permission(self):
        if not self.request.user.is_authenticated:
            return error_response(403, "Log in first.", "not_authenticated")
        return error_response(403, "You may not see this.", "permission_denied")


class ExecutionActivityView(JsonPermissionMixin, View):
    """GET: the dashboard's executions as rows (running, recently ended) and the failed count,
    polled by the dashboard's script (frontend/src/dashboard/activity.ts)."""

    permission_required = "executions.view_execution"

    def get(self, request):
        now = selectors.activity(user=request.user)
        return JsonResponse(
            {
                "running": [execution_row(execution) for execution in now.running],
                "recent": [execution_row(execution) for execution in now.recent],
                "failed": now.failed,
                "failed_url": failed_url(now.failed_since),
            }
        )


def failed_url(since: datetime) -> str:
    """The executions list filtered to the runs that failed since ``since``."""
    query = urlencode({"status": Execution.Status.ERROR, "since": since.isoformat()})
    return f"{reverse('execution-list')}?{query}"


def describe_targets(servers: list, *, chosen: bool) -> str:
    """A sentence for the Run forms: where the run goes, or what to choose."""
    if not servers:
        if chosen:
            return "No active server has those roles in those environments."
        return services.NO_TARGETS
    names = [server.name for server in servers]
    shown = ", ".join(names[:PREVIEW_NAMES])
    if len(names) > PREVIEW_NAMES:
        shown += f" and {len(names) - PREVIEW_NAMES} more"
    return f"Runs on {len(names)} server{'' if len(names) == 1 else 's'}: {shown}"


PREVIEW_NAMES = 10


class TargetPreviewView(JsonPermissionMixin, View):
    """GET ?servers=a&servers=b&roles=web&environments=production: the active servers a run with
    those targets would go to, and a sentence saying so; 400 with the unknown names."""

    permission_required = "inventory.view_server"

    def get(self, request):
        chosen = {
            field: request.GET.getlist(field) for field in ("servers", "roles", "environments")
        }
        chosen = {field: [name for name in names if name] for field, names in chosen.items()}
        try:
            servers = selectors.preview_targets(**chosen)
        except ValidationError as error:
            return error_response(
                400, " ".join(error.messages), "invalid", errors=validation_errors(error)
            )
        return JsonResponse(
            {
                "servers": [server.name for server in servers],
                "count": len(servers),
                "summary": describe_targets(servers, chosen=any(chosen.values())),
            }
        )
