"""The Run of a raft item's page: where and how to run it (the page's own form has the text)."""

from __future__ import annotations

from django import forms

import engine
from otterweb.executions.models import Mode
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
