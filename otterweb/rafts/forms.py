"""The rafts pages' forms. They only take input; the services decide what is allowed."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import normalize_newlines

from otterweb.names import NAME_HELP, validate_name
from otterweb.rafts import services
from otterweb.rafts.models import Raft, RaftItem


def add_errors(form: forms.BaseForm, error: ValidationError) -> None:
    """Show a service's refusal beside the fields it names, and above the form otherwise."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error)
        return
    for field, errors in error.error_dict.items():
        form.add_error(field if field in form.fields else None, errors)


class RaftForm(forms.Form):
    name = forms.CharField(max_length=100, help_text=NAME_HELP, validators=[validate_name])
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, strip=False
    )


class ContentField(forms.CharField):
    """A raft item's text: a labelled, monospace textarea, whitespace kept as typed."""

    def __init__(self, **kwargs):
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}))
        kwargs.setdefault("required", False)
        super().__init__(strip=False, **kwargs)

    def to_python(self, value) -> str:
        return normalize_newlines(super().to_python(value) or "")


class ItemCreateForm(forms.Form):
    name = forms.CharField(
        max_length=200, help_text="Use / to group items, as in deploy/web.", strip=True
    )
    kind = forms.ChoiceField(choices=RaftItem.Kind.choices, initial=RaftItem.Kind.SCRIPT)
    content = ContentField(
        label="Text",
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
        help_text="May be empty; write it now or after.",
    )


class ItemRenameForm(forms.Form):
    name = forms.CharField(max_length=200, strip=True)
    raft = forms.ModelChoiceField(
        Raft.objects.all(),
        to_field_name="name",
        empty_label=None,
        help_text="Move the item by choosing another raft.",
    )


class EditorForm(forms.Form):
    """What the item page posts for Save: the text and why it changed (its Run posts them too,
    with where and how to run it: otterweb.executions.forms.RunForm)."""

    content = ContentField(label="Text")
    message = forms.CharField(
        label="Why it changed",
        required=False,
        max_length=500,
        help_text="Kept with the version that the save makes.",
    )

    def __init__(self, *args, editable: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        if not editable:
            self.fields["content"].widget.attrs["readonly"] = True
            del self.fields["message"]


class CompareForm(forms.Form):
    """Two versions of an item to compare (GET)."""

    old = forms.TypedChoiceField(label="Compare version", coerce=int)
    new = forms.TypedChoiceField(label="with version", coerce=int)

    def __init__(self, *args, numbers: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(number, f"v{number}") for number in numbers]
        old, new = self.fields["old"], self.fields["new"]
        assert isinstance(old, forms.ChoiceField)
        assert isinstance(new, forms.ChoiceField)
        old.choices = new.choices = choices


class RaftAdminForm(forms.ModelForm):
    class Meta:
        model = Raft
        fields = ["name", "description"]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        try:
            services.check_raft_name(name=name)
        except ValidationError as error:
            raise ValidationError(error.message_dict["name"]) from None
        return name


class RaftItemAdminForm(forms.ModelForm):
    """The admin's raft item form: refuses a script that does not parse, with its diagnostics
    beside the text and the text kept, through the check the services make."""

    content = ContentField()
    user = None  # who saves it: the admin sets it (RaftItemAdmin.get_form)

    class Meta:
        model = RaftItem
        fields = ["raft", "name", "kind", "content"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        raft, name = data.get("raft"), data.get("name")
        if name:
            try:
                services.check_item_name(name=name)
            except ValidationError as error:
                add_errors(self, error)
        if raft and name and "kind" in data and "content" in data:
            try:
                services.check_content(
                    kind=data["kind"], content=data["content"], name=f"{raft.name}::{name}"
                )
            except ValidationError as error:
                add_errors(self, error)
        if self.instance.pk and "content" in data and not self.errors:
            try:  # the rights that the runs of its schedules and triggers need
                services.check_item_change(
                    item=self.instance, content=data["content"], user=self.user
                )
            except ValidationError as error:
                add_errors(self, error)
        return data
