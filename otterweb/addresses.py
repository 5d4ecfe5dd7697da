"""What the pages' addresses share: ``<name:...>``, a name by otterweb.names' rule (Django's
``<slug:...>`` refuses '.'), and sending an address of an earlier version on to its page."""

from __future__ import annotations

from django.urls import register_converter
from django.views.generic import RedirectView

from otterweb.names import NAME_PATTERN


class NameConverter:
    regex = NAME_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(NameConverter, "name")


def moved(name: str):
    """A view that sends an address of an earlier version on to the page ``name``, with its
    query (a bookmark keeps working)."""
    return RedirectView.as_view(pattern_name=name, permanent=True, query_string=True)
