"""Forms of schedules and triggers, shared by the pages and the admin."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from otterweb.schedules.cron import time_zones
from otterweb.schedules.models import Schedule, Trigger
from otterweb.schedules.services import FIELDS


class VariablesField(forms.Field):
    """Values for a template's prompts, one ``Name = value`` a line (blank lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        if isinstance(value, dict):
            return "\n".join(f"{name} = {_text(v)}" for name, v in value.items())
        return value

    def to_python(self, value) -> dict:
        variables: dict[str, str] = {}
        for number, line in enumerate(str(value or "").splitlines(), 1):
            if not line.strip():
                continue
            name, equals, text = line.partition("=")
            if not equals or not name.strip():
                raise ValidationError(f"Line {number}: expected Name = value, found {line!r}.")
            variables[name.strip()] = text.strip()
        return variables


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ScheduleForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        choices=[(name, name) for name in time_zones()],
        initial="UTC",
        help_text=Schedule._meta.get_field("time_zone").help_text,
    )
    variables = VariablesField(
        required=False,
        label="Values",
        help_text="For the template's prompts, one Name = value a line; a prompt left out "
        "takes its default.",
    )

    class Meta:
        model = Schedule
        fields = list(FIELDS)
        widgets = {
            "description": forms.Textarea(attrs={"rows": 2}),
            "kind": forms.RadioSelect,
            "cron": forms.TextInput(attrs={"class": "mono", "spellcheck": "false"}),
        }
        labels = {"template": "Job template", "cron": "Cron expression"}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # absent from the admin's form for who may only view: read-only fields are no fields
        for name, empty in (
            ("environment", "None: the global check"),
            ("template", "(choose one)"),
        ):
            field = self.fields.get(name)
            if isinstance(field, forms.ModelChoiceField):
                field.empty_label = empty

    def _post_clean(self) -> None:
        """The service checks the schedule as a whole (save_schedule), not the form."""


class TriggerForm(forms.ModelForm):
    class Meta:
        model = Trigger
        fields = ["name", "kind", "allow_variables"]
        widgets = {"kind": forms.RadioSelect}

    def _post_clean(self) -> None:
        """The service checks it (create_trigger)."""
