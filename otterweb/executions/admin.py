from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import format_html

from otterweb.admin import RecordInline
from otterweb.execution_logs.models import LogEntry
from otterweb.executions import services
from otterweb.executions.models import (
    Execution,
    GlobalLock,
    Job,
    JobTemplate,
    JobTemplatePrompt,
)
from otterweb.executions.template_forms import BasePromptFormSet, PromptForm


class JobTemplatePromptInline(admin.TabularInline):
    """The template's prompts, asked in the order of their position."""

    model = JobTemplatePrompt
    form = PromptForm
    formset = BasePromptFormSet
    fields = ["position", "name", "type", "default", "required", "choices", "description"]
    extra = 0


@admin.register(JobTemplate)
class JobTemplateAdmin(admin.ModelAdmin):
    list_display = ["name", "raft_item", "targeting", "mode", "simulate", "updated"]
    list_filter = ["targeting", "mode", "simulate"]
    search_fields = ["name", "description"]
    filter_horizontal = ["servers", "roles", "environments"]
    readonly_fields = ["created", "updated"]
    inlines = [JobTemplatePromptInline]
    actions = ["launch"]

    @admin.action(description="Run the selected templates (prompts take their defaults)")
    def launch(self, request, queryset) -> None:
        if not request.user.has_perm("executions.run_jobtemplate"):
            self.message_user(request, "You may not run job templates.", messages.ERROR)
            return
        for template in queryset:
            try:
                execution = services.launch_template(template=template, requested_by=request.user)
            except ValidationError as error:
                self.message_user(
                    request, f"{template}: {' '.join(error.messages)}", messages.ERROR
                )
                continue
            self.message_user(
                request, f"{template}: execution {execution.pk} started.", messages.SUCCESS
            )


class ExecutionInline(RecordInline):
    model = Execution
    fields = ["run_state", "status", "mode", "simulate", "started", "ended"]
    show_change_link = True


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["name", "template", "requested_by", "created"]
    search_fields = ["name", "script"]
    readonly_fields = [f.name for f in Job._meta.fields if f.name != "id"]  # a job is a record
    inlines = [ExecutionInline]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Execution)
class ExecutionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "job",
        "run_state",
        "outcome",
        "mode",
        "simulate",
        "started",
        "ended",
        "worker",
    ]
    list_filter = ["run_state", "status", "mode", "simulate"]
    search_fields = ["job__name", "worker", "error"]
    # The log is never inlined (50,000 lines took minutes to render): its size, and a link to
    # the execution's page that streams it.
    readonly_fields = [f.name for f in Execution._meta.fields] + ["log"]
    list_select_related = ["job"]
    actions = ["cancel"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description="Outcome")
    def outcome(self, execution: Execution) -> str:
        return execution.outcome_label

    @admin.display(description="Log")
    def log(self, execution: Execution) -> str:
        lines = LogEntry.objects.filter(execution_id=execution.pk).count()
        return format_html(
            '{} line{} · <a href="{}">open the log</a>',
            f"{lines:,}",
            pluralize(lines),
            reverse("execution-detail", args=[execution.pk]),
        )

    @admin.action(description="Cancel the selected executions", permissions=["cancel"])
    def cancel(self, request, queryset) -> None:
        for execution in queryset:
            services.request_cancel(execution=execution)
        self.message_user(request, f"Asked {queryset.count()} execution(s) to stop.")

    def has_cancel_permission(self, request) -> bool:
        return request.user.has_perm("executions.cancel_execution")


@admin.register(GlobalLock)
class GlobalLockAdmin(admin.ModelAdmin):
    """Who holds which global lock now. Read-only: a lock is freed when its block ends or its
    execution is closed."""

    list_display = ["token", "execution", "acquired"]
    search_fields = ["token"]
    readonly_fields = ["token", "execution", "acquired"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
