"""The audit trail's filters, as the page's form and the API's query string both give them."""

from __future__ import annotations

from typing import Any

from django import forms

from otterweb.audit import selectors
from otterweb.audit.models import Entry


class FilterForm(forms.Form):
    who = forms.CharField(required=False, max_length=150, label="Who", help_text="A user name.")
    kind = forms.ChoiceField(required=False, label="Kind of object")
    action = forms.TypedChoiceField(
        required=False,
        coerce=lambda slug: Entry.Action[slug.upper()],
        empty_value=None,
        choices=[("", "any"), *((action.name.lower(), action.label) for action in Entry.Action)],
        label="Action",
    )
    since = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )
    q = forms.CharField(required=False, max_length=200, label="Object", help_text="Its name or id.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # a kind no entry has yet is still a valid filter (it keeps nothing)
        known = dict(selectors.kinds())
        asked = self.data.get("kind", "") if self.is_bound else ""
        if asked and asked not in known and _is_model_label(asked):
            known[asked] = asked
        kind = self.fields["kind"]
        assert isinstance(kind, forms.ChoiceField)
        kind.choices = [("", "any"), *known.items()]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            self.add_error("until", "The end of the range comes before its start.")
        return data

    def filters(self) -> selectors.Filters:
        """The filters of a valid form."""
        data = self.cleaned_data
        return selectors.Filters(
            who=data["who"].strip(),
            kind=data["kind"],
            action=data["action"],
            since=data["since"],
            until=data["until"],
            text=data["q"].strip(),
        )


def _is_model_label(value: str) -> bool:
    from django.apps import apps

    app_label, _, model = value.partition(".")
    try:
        apps.get_model(app_label, model)
    except (LookupError, ValueError):
        return False
    return True
