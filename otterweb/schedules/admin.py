import logging
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from otterweb.inventory.forms import add_errors
from otterweb.schedules import services
from otterweb.schedules.forms import ScheduleForm
from otterweb.schedules.models import Schedule, Trigger, TriggerDelivery

logger = logging.getLogger(__name__)


class CheckedScheduleForm(ScheduleForm):
    """Refused beside the fields, as the service refuses it, before save_model."""

    user: Any = None  # who saves it: set by ScheduleAdmin.get_form

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not self.errors:
            stored = Schedule.objects.get(pk=self.instance.pk) if self.instance.pk else None
            given: dict[str, Any] = {field: data.get(field) for field in services.FIELDS}
            try:
                services.check_schedule(schedule=stored, user=self.user, **given)
            except ValidationError as error:
                add_errors(self, error)
        return data


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    """Saved through the service, as the pages save them: the whole schedule checked, its next
    run worked out."""

    form = CheckedScheduleForm
    list_display = ["name", "kind", "template", "environment", "cron", "time_zone", "enabled"]
    list_display += ["next_run", "last_fired", "last_error"]
    list_filter = ["kind", "enabled", "time_zone"]
    search_fields = ["name", "description", "cron"]
    readonly_fields = ["next_run", "last_fired", "last_execution", "last_error", "created"]
    readonly_fields += ["owner", "created_by", "updated"]
    list_select_related = ["template", "environment"]
    actions = ["enable", "disable"]

    def save_model(self, request, obj, form, change) -> None:
        data = form.cleaned_data
        saved = services.save_schedule(
            schedule=obj if change else None,
            user=request.user,
            **{field: data[field] for field in services.FIELDS},
        )
        obj.pk = saved.pk

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"user": request.user})

    @admin.action(description="Enable the selected schedules", permissions=["change"])
    def enable(self, request, queryset) -> None:
        for schedule in queryset:
            services.set_enabled(schedule=schedule, enabled=True)
        self.message_user(request, f"Enabled {queryset.count()} schedule(s).", messages.SUCCESS)

    @admin.action(description="Disable the selected schedules", permissions=["change"])
    def disable(self, request, queryset) -> None:
        for schedule in queryset:
            services.set_enabled(schedule=schedule, enabled=False)
        self.message_user(request, f"Disabled {queryset.count()} schedule(s).", messages.SUCCESS)


class TriggerDeliveryInline(admin.TabularInline):
    model = TriggerDelivery
    fields = readonly_fields = ("received", "delivery_id", "execution")
    can_delete = False
    extra = 0
    max_num = 0


@admin.register(Trigger)
class TriggerAdmin(admin.ModelAdmin):
    """Triggers are made on their template's page (their secret is shown once there); here they
    are listed, disabled and enabled, deleted."""

    list_display = ["name", "template", "kind", "allow_variables", "enabled", "last_used"]
    list_filter = ["kind", "enabled", "allow_variables"]
    search_fields = ["name", "template__name"]
    fields = ["id", "template", "name", "kind", "allow_variables", "enabled"]
    fields += ["owner", "created_by", "created", "last_used", "last_execution", "last_error"]
    readonly_fields = ["id", "template", "kind", "owner", "created_by", "created", "last_used"]
    readonly_fields += ["last_execution", "last_error"]
    inlines = [TriggerDeliveryInline]

    def has_add_permission(self, request) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        logger.info(
            "trigger=%s template=%s enabled=%s allow_variables=%s message='changed in the admin'",
            obj.pk,
            obj.template_id,
            obj.enabled,
            obj.allow_variables,
        )
