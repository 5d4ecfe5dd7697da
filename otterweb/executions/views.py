"""Executions pages: the list (filtered, paged), one execution with its live log and drift,
cancel, and job templates with a form to run one."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.views import View
from django.views.generic import DetailView, ListView

from otterweb.executions import services
from otterweb.executions.models import Execution, JobTemplate, Mode


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


class JobTemplateListView(LoginRequiredMixin, PermissionRequiredMixin, ListView):
    permission_required = "executions.view_jobtemplate"
    template_name = "executions/templates.html"
    queryset = JobTemplate.objects.select_related("raft_item__raft").prefetch_related(
        "servers", "roles", "environments"
    )


def launch_form(template: JobTemplate, data=None) -> forms.Form:
    """A field for each prompt (its default filled in), then the mode and simulation."""
    fields: dict[str, forms.Field] = {
        f"prompt_{index}": forms.CharField(
            label=prompt["name"], required="default" not in prompt,
            initial=prompt.get("default", ""), help_text=prompt.get("description", ""),
        )
        for index, prompt in enumerate(template.prompts)
    }  # fmt: skip
    fields["mode"] = forms.ChoiceField(choices=Mode.choices, initial=template.mode)
    fields["simulate"] = forms.BooleanField(required=False, initial=template.simulate)
    return type("LaunchForm", (forms.Form,), fields)(data)


class JobTemplateLaunchView(LoginRequiredMixin, PermissionRequiredMixin, DetailView):
    permission_required = "executions.view_jobtemplate"
    template_name = "executions/template_launch.html"
    queryset = JobTemplate.objects.select_related("raft_item__raft")

    def get_context_data(self, **kwargs):
        return {"form": launch_form(self.object), **super().get_context_data(**kwargs)}

    def post(self, request, pk: int):
        if not request.user.has_perm("executions.run_jobtemplate"):
            return self.handle_no_permission()
        self.object = template = self.get_object()
        form = launch_form(template, request.POST)
        if form.is_valid():
            values = {prompt["name"]: form.cleaned_data[f"prompt_{index}"]
                      for index, prompt in enumerate(template.prompts)}  # fmt: skip
            try:
                execution = services.launch_template(
                    template=template, requested_by=request.user, variables=values,
                    mode=form.cleaned_data["mode"], simulate=form.cleaned_data["simulate"],
                )  # fmt: skip
                return redirect("execution-detail", pk=execution.pk)
            except ValidationError as error:
                form.add_error(None, error)
        return self.render_to_response(self.get_context_data(form=form))
