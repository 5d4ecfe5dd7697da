"""Job template pages: the list, a form to make or change one with its prompts, deleting one,
and the page that runs one with a field for each prompt."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.views.generic import DetailView, ListView, TemplateView

from otterweb.executions import services
from otterweb.executions.models import JobTemplate
from otterweb.executions.template_forms import JobTemplateForm, PromptFormSet, launch_form
from otterweb.inventory.selectors import servers_for
from otterweb.privileges.pages import VisibleListMixin, VisibleObjectMixin, get_visible_or_404


class JobTemplateListView(LoginRequiredMixin, PermissionRequiredMixin, VisibleListMixin, ListView):
    permission_required = "executions.view_jobtemplate"
    template_name = "executions/templates.html"
    queryset = JobTemplate.objects.select_related("raft_item__raft").prefetch_related(
        "servers", "roles", "environments", "prompt_fields"
    )


class JobTemplateEditView(LoginRequiredMixin, PermissionRequiredMixin, TemplateView):
    """Make a job template (no pk) or change one: its fields and its prompts (a formset)."""

    template_name = "executions/template_form.html"
    object: JobTemplate | None  # the template shown: set by get and post

    def get_permission_required(self):
        if "pk" in self.kwargs:
            return ["executions.view_jobtemplate", "executions.change_jobtemplate"]
        return ["executions.view_jobtemplate", "executions.add_jobtemplate"]

    def setup(self, request, *args, **kwargs) -> None:
        super().setup(request, *args, **kwargs)
        self.object = None

    def get_object(self) -> JobTemplate:
        if "pk" not in self.kwargs:
            return JobTemplate()
        return get_visible_or_404(
            self.request.user, JobTemplate, *self.get_permission_required(), pk=self.kwargs["pk"]
        )

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        form = JobTemplateForm(instance=self.object, user=request.user)
        prompts = PromptFormSet(instance=self.object, prefix="prompts")
        return self.render_to_response(self.get_context_data(form=form, prompts=prompts))

    def post(self, request, *args, **kwargs):
        self.object = template = self.get_object()
        form = JobTemplateForm(request.POST, instance=template, user=request.user)
        prompts = PromptFormSet(request.POST, instance=template, prefix="prompts")
        if form.is_valid() and prompts.is_valid():
            data = form.cleaned_data
            try:
                template = services.save_job_template(
                    template=template if template.pk else None,
                    name=data["name"],
                    description=data["description"],
                    raft_item=data["raft_item"],
                    targeting=data["targeting"],
                    servers=data["servers"],
                    roles=data["roles"],
                    environments=data["environments"],
                    mode=data["mode"],
                    simulate=data["simulate"],
                    prompts=prompts.kept(),
                    user=request.user,
                )
            except ValidationError as error:
                add_errors(form, error)
            else:
                messages.success(request, f"Saved the job template {template.name}.")
                return redirect("template-list")
        return self.render_to_response(self.get_context_data(form=form, prompts=prompts))

    def get_context_data(self, **kwargs):
        resolved = None
        if self.object is not None and self.object.pk:
            # where it goes as saved; the target preview follows the form
            resolved = servers_for(**services.template_targets(template=self.object))
        return {**super().get_context_data(**kwargs), "object": self.object, "resolved": resolved}


def add_errors(form, error: ValidationError) -> None:
    """A service's errors beside the form's fields they name, the others above the form."""
    by_field = error.error_dict if hasattr(error, "error_dict") else {None: error.error_list}
    for field, errors in by_field.items():
        form.add_error(field if field in form.fields else None, errors)


class JobTemplateDeleteView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    """Asks first (GET), deletes on POST."""

    permission_required = ["executions.view_jobtemplate", "executions.delete_jobtemplate"]
    template_name = "executions/template_delete.html"
    queryset = JobTemplate.objects.select_related("raft_item__raft")

    def get_context_data(self, **kwargs):
        return {"jobs": self.object.jobs.count(), **super().get_context_data(**kwargs)}

    def post(self, request, pk: int):
        template = self.get_object()
        services.delete_job_template(template=template)
        messages.success(request, f"Deleted the job template {template.name}.")
        return redirect("template-list")


class JobTemplateLaunchView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    permission_required = "executions.view_jobtemplate"
    template_name = "executions/template_launch.html"
    queryset = JobTemplate.objects.select_related("raft_item__raft").prefetch_related(
        "prompt_fields", "servers", "roles", "environments"
    )

    def get_context_data(self, **kwargs):
        targets = services.template_targets(template=self.object)
        kwargs.setdefault("form", launch_form(self.object))
        return {
            **super().get_context_data(**kwargs),
            "targets": targets,
            "resolved": servers_for(**targets),
        }

    def post(self, request, pk: int):
        self.object = template = self.get_object()
        if not request.user.has_perm("executions.run_jobtemplate", template):
            return self.handle_no_permission()
        form = launch_form(template, request.POST)
        if form.is_valid():
            values = {
                prompt.name: form.cleaned_data[f"prompt_{index}"]
                for index, prompt in enumerate(template.prompt_fields.all())
            }
            try:
                execution = services.launch_template(
                    template=template,
                    requested_by=request.user,
                    variables=values,
                    mode=form.cleaned_data["mode"],
                    simulate=form.cleaned_data["simulate"],
                )
                return redirect("execution-detail", pk=execution.pk)
            except ValidationError as error:
                form.add_error(None, error)
        return self.render_to_response(self.get_context_data(form=form))
