from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from otterweb.privileges.models import Grant, Role, Scope


class GrantForm(forms.Form):
    """A role, to a user or a group, on everything, an environment or a raft."""

    role = forms.ModelChoiceField(Role.objects.all())
    user = forms.ModelChoiceField(
        get_user_model().objects.filter(is_active=True).order_by("username"),
        required=False,
        to_field_name="username",
        help_text="A user, or leave empty and choose a group.",
    )
    group = forms.ModelChoiceField(
        Group.objects.order_by("name"), required=False, to_field_name="name"
    )
    scope = forms.ChoiceField(choices=Scope.choices, initial=Scope.ENVIRONMENT)
    environment = forms.ModelChoiceField(
        Grant.environment.field.related_model._default_manager.all(),
        required=False,
        to_field_name="name",
    )
    raft = forms.ModelChoiceField(
        Grant.raft.field.related_model._default_manager.all(), required=False, to_field_name="name"
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if bool(data.get("user")) == bool(data.get("group")):
            raise forms.ValidationError("Choose a user or a group (one of them).")
        scope = data.get("scope")
        if scope == Scope.ENVIRONMENT and not data.get("environment"):
            self.add_error("environment", "Choose the environment.")
        if scope == Scope.RAFT and not data.get("raft"):
            self.add_error("raft", "Choose the raft.")
        if scope != Scope.ENVIRONMENT:
            data["environment"] = None
        if scope != Scope.RAFT:
            data["raft"] = None
        return data
