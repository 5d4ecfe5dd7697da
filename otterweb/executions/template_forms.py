"""Forms of job templates, shared by the pages and the admin: the template, its prompts (a
formset), and the form that runs it with a field for each prompt."""

from __future__ import annotations

from django import forms
from django.db.models import Q
from django.utils.html import escape

from otterweb.executions.models import JobTemplate, JobTemplatePrompt, Mode
from otterweb.executions.services import PROMPT_FIELDS
from otterweb.inventory.models import Environment, Role, Server
from otterweb.privileges.pages import narrow_choices
from otterweb.rafts.models import RaftItem


class LinesField(forms.Field):
    """A list of text, edited one a line (blank lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        return "\n".join(map(str, value)) if isinstance(value, list) else value

    def to_python(self, value) -> list[str]:
        lines = (line.strip() for line in str(value or "").splitlines())
        return [line for line in lines if line]


class PromptForm(forms.ModelForm):
    choices = LinesField(
        required=False, help_text="For a choice prompt: the values it offers, one a line."
    )

    class Meta:
        model = JobTemplatePrompt
        fields = list(PROMPT_FIELDS)  # a copy: an inline formset adds its foreign key to it
        widgets = {
            "default": forms.TextInput(),
            "description": forms.TextInput(),
        }


class BasePromptFormSet(forms.BaseInlineFormSet):
    """A template's prompts: a name used once (in any case) across the rows kept."""

    def add_fields(self, form, index) -> None:
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = "Remove this prompt"

    def clean(self) -> None:
        super().clean()
        seen: set[str] = set()
        for form in self.forms:
            if form in self.deleted_forms or not getattr(form, "cleaned_data", None):
                continue
            name = (form.cleaned_data.get("name") or "").casefold()
            if name in seen:
                form.add_error("name", "Another prompt has this name.")
            seen.add(name)

    def kept(self) -> list[dict]:
        """The prompts to keep, in their order, as fields for services.save_job_template."""
        return [
            {field: form.cleaned_data[field] for field in PROMPT_FIELDS}
            for form in self.forms
            if form not in self.deleted_forms and form.cleaned_data
        ]


# the factory makes a subclass of the formset it is given; the stubs answer BaseInlineFormSet
PromptFormSet: type[BasePromptFormSet] = forms.inlineformset_factory(  # type: ignore[assignment]
    JobTemplate,
    JobTemplatePrompt,
    form=PromptForm,
    formset=BasePromptFormSet,
    extra=1,
    can_delete=True,
)


class JobTemplateForm(forms.ModelForm):
    """A template's own fields; its targets are chosen by name (as the target preview and the
    API name them)."""

    servers = forms.ModelMultipleChoiceField(
        Server.objects.all(),
        required=False,
        to_field_name="name",
        help_text="When it runs on chosen servers.",
    )
    roles = forms.ModelMultipleChoiceField(
        Role.objects.all(),
        required=False,
        to_field_name="name",
        help_text="When it runs on the servers with these roles.",
    )
    environments = forms.ModelMultipleChoiceField(
        Environment.objects.all(),
        required=False,
        to_field_name="name",
        help_text="With roles: only the servers in these environments (none chosen: every one).",
    )

    class Meta:
        model = JobTemplate
        fields = [
            "name",
            "description",
            "raft_item",
            "targeting",
            "servers",
            "roles",
            "environments",
            "mode",
            "simulate",
        ]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "targeting": forms.RadioSelect,
        }
        labels = {"raft_item": "Script", "simulate": "Simulate (change nothing)"}

    def __init__(self, *args, user=None, **kwargs) -> None:
        """``user``: the choices are what it may see (None: everything)."""
        super().__init__(*args, **kwargs)
        scripts = Q(kind=RaftItem.Kind.SCRIPT)
        if self.instance.raft_item_id:
            scripts |= Q(pk=self.instance.raft_item_id)
        raft_item = self.fields["raft_item"]
        assert isinstance(raft_item, forms.ModelChoiceField)
        raft_item.queryset = RaftItem.objects.filter(scripts).select_related("raft")
        narrow_choices(self, user)


def launch_form(template: JobTemplate, data=None) -> forms.Form:
    """A field for each prompt, by its type, its default filled in; then the mode and
    simulation. The values come out as text, or True/False for a yes-or-no."""
    fields: dict[str, forms.Field] = {
        f"prompt_{index}": prompt_field(prompt)
        for index, prompt in enumerate(template.prompt_fields.all())
    }
    fields["mode"] = forms.ChoiceField(choices=Mode.choices, initial=template.mode)
    fields["simulate"] = forms.BooleanField(
        required=False, initial=template.simulate, label="Simulate (change nothing)"
    )
    return type("LaunchForm", (forms.Form,), fields)(data)


def prompt_field(prompt: JobTemplatePrompt) -> forms.Field:
    Type = JobTemplatePrompt.Type
    # Django's field template prints help_text as HTML (|safe): a description is text, typed
    # by whoever may change templates, so it is escaped here (escape() marks it safe, so the
    # checkbox row's {{ field.help_text }} does not escape it twice).
    label, help_text = prompt.name, escape(prompt.description)
    if prompt.type == Type.BOOLEAN:
        return forms.BooleanField(
            required=False,
            initial=prompt.default_text == "true",
            label=label,
            help_text=help_text,
        )
    if prompt.type == Type.CHOICE:
        if not prompt.required:
            blank = [("", "(none)")]
        else:
            blank = [] if prompt.default_text else [("", "(choose one)")]
        return forms.ChoiceField(
            choices=blank + [(choice, choice) for choice in prompt.choices],
            required=prompt.required,
            initial=prompt.default_text,
            label=label,
            help_text=help_text,
        )
    if prompt.type == Type.NUMBER:

        def is_number(value) -> None:
            prompt.to_text(value)  # raises ValidationError for what is not a number

        return forms.CharField(
            required=prompt.required,
            initial=prompt.default_text,
            widget=forms.NumberInput(attrs={"step": "any"}),
            validators=[is_number],
            label=label,
            help_text=help_text,
        )
    return forms.CharField(
        required=prompt.required, initial=prompt.default_text, label=label, help_text=help_text
    )
