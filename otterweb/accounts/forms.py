"""The forms of the API keys' and service accounts' pages."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from otterweb.accounts.models import ApiKey
from otterweb.accounts.services import LONGEST_DAYS
from otterweb.privileges.models import Role


class KeyForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What uses the key: a script, a pipeline.")
    expires_in_days = forms.FloatField(
        label="Expires in (days)",
        min_value=0,
        max_value=LONGEST_DAYS,
        help_text="0: until revoked.",
    )
    role = forms.ModelChoiceField(
        queryset=Role.objects.all(),
        required=False,
        empty_label="All of the owner's permissions",
        help_text="A narrower key holds only this role's permissions (each one its owner holds "
        "where the key applies).",
    )
    environment = forms.ModelChoiceField(
        queryset=ApiKey.environment.field.related_model._default_manager.all(),
        required=False,
        empty_label="Everywhere",
        help_text="Only on this environment and those inside it.",
    )
    raft = forms.ModelChoiceField(
        queryset=ApiKey.raft.field.related_model._default_manager.all(),
        required=False,
        empty_label="Any raft",
        help_text="Only on this raft (not with an environment).",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        days = settings.OTTERWEB_TOKEN_TTL_DAYS
        self.fields["expires_in_days"].initial = int(days) if days == int(days) else days

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("environment") and data.get("raft"):
            raise forms.ValidationError("Limit a key to an environment or to a raft, not both.")
        return data


class ServiceAccountForm(forms.Form):
    username = forms.CharField(max_length=150, label="Name")
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="What it is for."
    )
