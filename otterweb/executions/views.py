"""Executions pages: the list (filtered, paged), one execution with its live log and drift,
cancel; a raft item's Run; and what the server page shows of executions. (Job template pages
are in template_views; the log's downloads are otterweb.execution_logs'.)"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.http import HttpRequest, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.http import urlencode
from django.utils.timesince import timesince
from django.views import View
from django.views.generic import DetailView, ListView

from engine import RunState
from otterweb.api.error_body import error_body, error_response, first_message, validation_errors
from otterweb.api.errors import ScriptError
from otterweb.executions import selectors, services
from otterweb.executions.forms import VARIABLE, RunForm, run_again_form, variables_of
from otterweb.executions.local_runs import run_as_summary
from otterweb.executions.models import Execution
from otterweb.inventory.models import Server
from otterweb.privileges.checks import visible
from otterweb.privileges.pages import VisibleObjectMixin, get_visible_or_404, narrow_choices
from otterweb.rafts.forms import EditorForm, add_errors
from otterweb.rafts.services import ScriptInvalid
from otterweb.rafts.views import RaftItemView


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

    def get_context_data(self, **kwargs):
        failed = selectors.failed_servers(execution=self.object)
        return {**super().get_context_data(**kwargs), "failed": failed}


class ExecutionRunAgainView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    """Run an execution's job again, editable first: ``?failed=1`` starts from the servers it
    failed on. Refused, the form again with why."""

    permission_required = "executions.view_execution"
    template_name = "executions/run_again.html"
    queryset = Execution.objects.select_related(
        "job__requested_by", "job__script_version__item__raft", "job__template"
    )

    def get_context_data(self, **kwargs):
        failed = selectors.failed_servers(execution=self.object)
        from_failed = self.request.GET.get("failed") == "1" and bool(failed)
        form = kwargs.setdefault("form", self.form(failed=failed if from_failed else None))
        variables = [form[name] for name in form.fields if name.startswith(VARIABLE)]
        return {
            **super().get_context_data(**kwargs),
            "failed": failed,
            "from_failed": from_failed,
            "variables": variables,
        }

    def post(self, request, pk: int):
        self.object = execution = self.get_object()
        form = self.form(request.POST)
        if form.is_valid():
            try:
                again = services.run_again(
                    execution=execution,
                    requested_by=request.user,
                    latest=form.cleaned_data.get("version") == "latest",
                    servers=[server.name for server in form.cleaned_data["servers"]],
                    variables=variables_of(form, execution),
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                messages.success(request, f"Running execution {execution.pk}'s job again.")
                return redirect("execution-detail", pk=again.pk)
        return self.render_to_response(self.get_context_data(form=form))

    def form(self, data=None, *, failed: list[str] | None = None):
        """The form, its servers those the user may run the job on."""
        form = run_again_form(self.object, data, failed=failed)
        permission = services.run_permission(self.object)
        return narrow_choices(form, self.request.user, permission=permission)


class ExecutionCancelView(LoginRequiredMixin, PermissionRequiredMixin, View):
    """GET asks whether to cancel (the execution page's Cancel leads here); POST cancels."""

    permission_required = ("executions.view_execution", "executions.cancel_execution")

    def get(self, request, pk: int):
        execution = get_visible_or_404(
            request.user, Execution, "executions.cancel_execution", pk=pk
        )
        if execution.run_state == RunState.COMPLETED:
            return redirect("execution-detail", pk=pk)
        return render(request, "executions/cancel.html", {"object": execution})

    def post(self, request, pk: int):
        execution = get_visible_or_404(
            request.user, Execution, "executions.cancel_execution", pk=pk
        )
        services.request_cancel(execution=execution)
        messages.info(request, "Asked the worker to stop the execution.")
        return redirect("execution-detail", pk=pk)


class RaftItemRunView(RaftItemView):
    """POST rafts/<raft>/<item>/-/run/, the Run of a raft item's page: save the text on screen
    as the item's next version (none when it is the latest), then run it; refused, the page
    again with why beside the form. In JSON (``Accept: application/json``) for the page's
    script, which runs without leaving the page and opens the live log beside the editor."""

    def get(self, request, *args, **kwargs):
        item = self.item()  # 404 for an item the user may not see, as the page answers
        return redirect("raft-item", raft=item.raft.name, name=item.name)

    def post(self, request, *args, **kwargs):
        item = self.item()
        answer_json = wants_json(request)
        if not request.user.has_perm("executions.add_execution"):
            return self.refuse(answer_json, "You may not run scripts.")
        editable = request.user.has_perm("rafts.change_raftitem", item)
        data = request.POST.copy()
        data.setdefault("content", item.content)  # no text sent: the saved text, never none
        form, run_form = EditorForm(data, editable=editable), RunForm(data)
        if not all([form.is_valid(), run_form.is_valid()]):
            return self.refused(item, form, run_form, answer_json=answer_json)
        if not editable and form.cleaned_data["content"] != item.content:
            return self.refuse(answer_json, "You may not change this item: run its saved text.")
        latest = item.versions.first()
        run = run_form.cleaned_data
        try:
            execution = services.save_and_run(
                item=item,
                content=form.cleaned_data["content"],
                message=form.cleaned_data.get("message", ""),
                author=request.user,
                servers=[server.name for server in run["servers"]],
                roles=[role.name for role in run["roles"]],
                environments=[environment.name for environment in run["environments"]],
                mode=run["mode"],
                simulate=run["simulate"],
            )
        except ValidationError as error:
            # the text's problems beside the text, the others beside the Run
            about_text = hasattr(error, "error_dict") and set(error.error_dict) <= set(form.fields)
            add_errors(form if about_text else run_form, error)
            return self.refused(item, form, run_form, answer_json=answer_json, error=error)
        version = execution.job.script_version
        assert version is not None  # save_and_run ran a version it saved, or the latest
        saved = latest is None or version.pk != latest.pk
        if answer_json:
            return JsonResponse(
                services.run_answer(execution=execution, user=request.user, saved=saved),
                status=201,
            )
        if saved:
            messages.success(request, f"Saved {item} as version {version.number} and ran it.")
        return redirect("execution-detail", pk=execution.pk)

    def refuse(self, answer_json: bool, detail: str):
        if answer_json:
            return error_response(403, detail, "permission_denied")
        return self.handle_no_permission()

    def refused(self, item, form, run_form, *, answer_json: bool, error=None):
        """The item page again with the forms' errors; in JSON, the API's error body (400)."""
        if answer_json:
            return JsonResponse(form_error_body(form, run_form, error=error), status=400)
        return self.invalid(item, form, run_form=run_form)


def wants_json(request) -> bool:
    """The page's script asks for JSON; a browser's form post asks for HTML."""
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def form_error_body(*forms, error: ValidationError | None = None) -> dict:
    """The API's one error body for refused forms: ``errors`` by field (``non_field_errors``
    for the rest), ``detail`` the first message, and for a script that does not parse its
    ``diagnostics`` (the page marks them in the editor)."""
    errors = {
        "non_field_errors" if field == "__all__" else field: list(problems)
        for form in forms
        for field, problems in form.errors.items()
    }
    if isinstance(error, ScriptInvalid):
        script_error = ScriptError(error.syntax_error)
        return error_body(
            str(script_error.detail), "script", errors=errors, diagnostics=script_error.diagnostics
        )
    return error_body(first_message(errors), "invalid", errors=errors)


def item_page(*, request, item) -> dict:
    """The Run of a raft item's page (rafts'), added to it from the AppConfig: for a script the
    user may run, where and how to run it, posted to RaftItemRunView."""
    if not (item.is_otterscript and request.user.has_perm("executions.add_execution")):
        return {}
    return {
        "run_form": RunForm(),
        "run_url": reverse("raft-item-run", args=[item.raft.name, item.name]),
    }


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
        "running": execution.run_state != RunState.COMPLETED,
        "lines": execution.log_lines,
        "warnings": execution.log_warnings,
        "errors": execution.log_errors,
        "targets": len(job.targets),
        "by": job.requested_by.get_username() if job.requested_by else "",
    }


class JsonPermissionMixin(LoginRequiredMixin, PermissionRequiredMixin):
    """For endpoints that scripts of the pages fetch: 403 with a JSON body, never a redirect to
    the login page or an HTML error page."""

    request: HttpRequest  # the view's

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
