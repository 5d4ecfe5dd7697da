"""The Run of a raft item's page: where and how to run it (the page's own form has the text); and
the Run again of an execution's page."""

from __future__ import annotations

from django import forms

import engine
from otterweb.executions.models import Execution, Mode
from otterweb.executions.template_forms import prompt_field
from otterweb.inventory.models import Environment, Role, Server


class RunForm(forms.Form):
    servers = forms.ModelMultipleChoiceField(
        Server.objects.filter(active=True), required=False, to_field_name="name"
    )
    roles = forms.ModelMultipleChoiceField(Role.objects.all(), required=False, to_field_name="name")
    environments = forms.ModelMultipleChoiceField(
        Environment.objects.all(), required=False, to_field_name="name"
    )
    mode = forms.ChoiceField(choices=Mode.choices, initial=engine.Mode.EXECUTE, required=False)
    simulate = forms.BooleanField(
        required=False, help_text="Report what would change without changing it."
    )

    def clean_mode(self) -> str:
        return self.cleaned_data["mode"] or engine.Mode.EXECUTE


VARIABLE = "variable_"  # what starts the name of a variable's field


def run_again_form(execution: Execution, data=None, *, failed: list[str] | None = None):
    """Run an execution's job again, editable first: which version of its script (for a raft
    item's), the servers (those it ran on, or ``failed``), and its variables (its template's
    prompts, each by its type; else each variable given as text). The others are kept as given."""
    job = execution.job
    fields: dict[str, forms.Field] = {}
    version = job.script_version
    if version is not None:
        latest = version.item.versions.first()
        choices = [("same", f"The version it ran (version {version.number})")]
        if latest is not None and latest.pk != version.pk:
            choices.append(("latest", f"The latest version (version {latest.number})"))
        fields["version"] = forms.ChoiceField(
            choices=choices, initial="same", widget=forms.RadioSelect, label="Script"
        )
    fields["servers"] = forms.ModelMultipleChoiceField(
        Server.objects.filter(active=True).order_by("name"),
        required=False,
        to_field_name="name",
        initial=failed if failed is not None else job.targets,
        help_text="None: the script chooses its servers itself.",
    )
    for name, field in variable_fields(execution).items():
        fields[VARIABLE + name] = field
    return type("RunAgainForm", (forms.Form,), fields)(data)


def variable_fields(execution: Execution) -> dict[str, forms.Field]:
    """A field for each variable of the job that can be edited, its value filled in: by the
    prompt's type for a template's job, else as text (lists and maps are kept as they were)."""
    job = execution.job
    values = job.variables or {}
    if job.template is not None:
        fields = {}
        for prompt in job.template.prompt_fields.all():
            field = prompt_field(prompt)
            if prompt.name in values:
                given = values[prompt.name]
                field.initial = given == "true" if isinstance(field, forms.BooleanField) else given
            fields[prompt.name] = field
        return fields
    return {
        name: forms.CharField(required=False, initial=value, label=name, strip=False)
        for name, value in values.items()
        if isinstance(value, str)
    }


def variables_of(form, execution: Execution) -> dict:
    """The job's variables with the form's values in place of those it could edit."""
    values = dict(execution.job.variables or {})
    for field, value in form.cleaned_data.items():
        if field.startswith(VARIABLE):
            name = field.removeprefix(VARIABLE)
            values[name] = ("true" if value else "false") if isinstance(value, bool) else value
    return values
