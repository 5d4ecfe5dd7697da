"""Schedule pages: the list, a form to make or change one, deleting one, enabling and disabling;
and a job template's schedules and triggers, where triggers are made (their secret shown once)
and deleted."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View
from django.views.generic import DetailView, ListView, TemplateView

from otterweb.executions.models import JobTemplate
from otterweb.inventory.forms import add_errors
from otterweb.privileges.checks import visible
from otterweb.privileges.pages import VisibleObjectMixin, get_visible_or_404, narrow_choices
from otterweb.schedules import selectors, services
from otterweb.schedules.forms import ScheduleForm, TriggerForm
from otterweb.schedules.models import Schedule, Trigger

RUN = "executions.run_jobtemplate"
MAY_NOT_RUN = "You may not run job templates: a schedule or trigger that runs one needs that."


class ScheduleListView(LoginRequiredMixin, PermissionRequiredMixin, ListView):
    permission_required = "schedules.view_schedule"
    template_name = "schedules/list.html"

    def get_queryset(self):
        return visible(self.request.user, selectors.schedules())


class ScheduleEditView(LoginRequiredMixin, PermissionRequiredMixin, TemplateView):
    """Make a schedule (no pk; ?template=<pk> chooses its job template) or change one."""

    template_name = "schedules/form.html"

    def get_permission_required(self):
        action = "change" if "pk" in self.kwargs else "add"
        return ["schedules.view_schedule", f"schedules.{action}_schedule"]

    def get_object(self) -> Schedule:
        if "pk" not in self.kwargs:
            return Schedule()
        return get_visible_or_404(
            self.request.user, Schedule, *self.get_permission_required(), pk=self.kwargs["pk"]
        )

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        initial = {}
        if not self.object.pk and request.GET.get("template", "").isdigit():
            initial["template"] = request.GET["template"]
        form = narrow_choices(ScheduleForm(instance=self.object, initial=initial), request.user)
        return self.render_to_response(self.get_context_data(form=form))

    def post(self, request, *args, **kwargs):
        self.object = schedule = self.get_object()
        form = narrow_choices(ScheduleForm(request.POST, instance=schedule), request.user)
        if not form.is_valid():
            # the service's checks too, of what the form could read: every problem at once
            try:
                services.check_schedule(
                    schedule=schedule if schedule.pk else None,
                    user=request.user,
                    **{**UNREAD, **form.cleaned_data},
                )
            except ValidationError as error:
                add_errors(form, without_fields(error, form.errors))
        elif form.cleaned_data["kind"] == Schedule.Kind.JOB and not request.user.has_perm(RUN):
            form.add_error("kind", MAY_NOT_RUN)
        else:
            try:
                schedule = services.save_schedule(
                    schedule=schedule if schedule.pk else None,
                    user=request.user,
                    **{field: form.cleaned_data[field] for field in services.FIELDS},
                )
            except ValidationError as error:
                add_errors(form, error)
            else:
                messages.success(request, f"Saved the schedule {schedule.name}.")
                return redirect("schedule-list")
        return self.render_to_response(self.get_context_data(form=form))

    def get_context_data(self, **kwargs):
        upcoming = []
        if self.object.pk:
            upcoming = selectors.upcoming(schedule=self.object)
        return {**super().get_context_data(**kwargs), "object": self.object, "upcoming": upcoming}


# what the service checks in place of a field the form could not read (its error is the form's)
UNREAD = {
    "name": "",
    "description": "",
    "kind": Schedule.Kind.JOB,
    "template": None,
    "variables": None,
    "environment": None,
    "cron": "",
    "time_zone": "UTC",
    "enabled": True,
}


def without_fields(error: ValidationError, fields) -> ValidationError:
    """``error`` but what it says of ``fields`` (each said once, by the form)."""
    if not hasattr(error, "error_dict"):
        return error
    return ValidationError({f: e for f, e in error.error_dict.items() if f not in fields})


class ScheduleDeleteView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    """Asks first (GET), deletes on POST."""

    permission_required = ["schedules.view_schedule", "schedules.delete_schedule"]
    template_name = "schedules/delete.html"
    queryset = selectors.schedules()

    def post(self, request, pk: int):
        schedule = self.get_object()
        services.delete_schedule(schedule=schedule)
        messages.success(request, f"Deleted the schedule {schedule.name}.")
        return redirect("schedule-list")


class ScheduleEnableView(LoginRequiredMixin, PermissionRequiredMixin, View):
    """POST enabled=1 or 0."""

    permission_required = ["schedules.view_schedule", "schedules.change_schedule"]

    def post(self, request, pk: int):
        schedule = get_visible_or_404(request.user, Schedule, *self.permission_required, pk=pk)
        enabled = request.POST.get("enabled") == "1"
        services.set_enabled(schedule=schedule, enabled=enabled)
        if enabled:
            messages.success(request, f"Enabled {schedule.name}: it runs next at the time shown.")
        else:
            messages.success(request, f"Disabled {schedule.name}: it does not run until enabled.")
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = reverse("schedule-list")
        return redirect(back)


# ---- a job template's schedules and triggers


class TemplateTriggersView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    """GET the template's schedules and triggers; POST makes a trigger and shows its secret,
    this once (the answer is the page itself: the secret is in no URL and no session)."""

    permission_required = ["executions.view_jobtemplate", "schedules.view_trigger"]
    template_name = "schedules/triggers.html"
    queryset = JobTemplate.objects.prefetch_related("prompt_fields")
    context_object_name = "template"

    def get_context_data(self, **kwargs):
        template = self.object
        kwargs.setdefault("form", TriggerForm())
        triggers = list(selectors.triggers_of(template=template))
        examples: dict[str, Trigger] = {}  # kind -> its first trigger
        for trigger in triggers:
            trigger.url = self.request.build_absolute_uri(
                reverse("api:trigger-pull", args=[trigger.pk])
            )
            examples.setdefault(trigger.kind, trigger)
        return {
            **super().get_context_data(**kwargs),
            "triggers": triggers,
            "examples": examples,
            "schedules": visible(self.request.user, selectors.schedules_of(template=template)),
            "example_body": example_body(template),
        }

    def post(self, request, pk: int):
        self.object = template = self.get_object()
        user = request.user
        if not (user.has_perm("schedules.add_trigger", template) and user.has_perm(RUN, template)):
            raise PermissionDenied(MAY_NOT_RUN)
        form = TriggerForm(request.POST)
        made = secret = None
        if form.is_valid():
            try:
                made, secret = services.create_trigger(
                    template=template, created_by=request.user, **form.cleaned_data
                )
            except ValidationError as error:
                add_errors(form, error)
            else:
                form = TriggerForm()
        context = self.get_context_data(form=form, made=made, secret=secret)
        response = self.render_to_response(context)
        response["Cache-Control"] = "no-store"  # the secret stays out of every cache
        return response


class TriggerDeleteView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    permission_required = [
        "executions.view_jobtemplate",
        "schedules.view_trigger",
        "schedules.delete_trigger",
    ]
    template_name = "schedules/trigger_delete.html"
    context_object_name = "trigger"

    def get_queryset(self):
        return Trigger.objects.filter(template_id=self.kwargs["template"]).select_related(
            "template"
        )

    def post(self, request, template: int, pk):
        trigger = self.get_object()
        services.delete_trigger(trigger=trigger)
        messages.success(request, f"Deleted the trigger {trigger.name}: its URL runs nothing now.")
        return redirect("template-triggers", pk=template)


# what a call gives a prompt that has no default, by the prompt's type
PLACEHOLDERS = {"number": "1", "boolean": "true", "text": "value"}


def example_body(template: JobTemplate) -> str:
    """The JSON body of a trigger call with a value for each of the template's prompts (its
    default, else one of its type), in single quotes for a shell; "" when it has none."""
    values = {
        prompt.name: prompt.default_text
        or (prompt.choices[0] if prompt.choices else PLACEHOLDERS.get(prompt.type, "value"))
        for prompt in template.prompt_fields.all()
    }
    if not values:
        return ""
    return json.dumps({"variables": values}).replace("'", "'\\''")
