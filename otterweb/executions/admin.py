from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from otterweb.admin import RecordInline
from otterweb.executions import services
from otterweb.executions.models import (
    Execution,
    GlobalLock,
    Job,
    JobTemplate,
    JobTemplatePrompt,
    LogEntry,
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


class LogEntryInline(RecordInline):
    model = LogEntry
    fields = ["seq", "level", "message", "line", "time"]


@admin.register(Execution)
class ExecutionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "job",
        "run_state",
        "status",
        "mode",
        "simulate",
        "started",
        "ended",
        "worker",
    ]
    list_filter = ["run_state", "status", "mode", "simulate"]
    search_fields = ["job__name", "worker", "error"]
    readonly_fields = [f.name for f in Execution._meta.fields]
    inlines = [LogEntryInline]
    actions = ["cancel"]

    def has_add_permission(self, request) -> bool:
        return False

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
