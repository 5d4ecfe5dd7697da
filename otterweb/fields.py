"""Model fields the apps share, and the choices of fields whose values the engine defines."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.utils.text import normalize_newlines


class TextField(models.TextField):
    """Text as the user typed it, with \\n line endings whatever the path it came by: browsers
    send form text with \\r\\n, and a shell script saved that way fails in `sh`."""

    def pre_save(self, model_instance, add):
        value = getattr(model_instance, self.attname)
        if isinstance(value, str) and "\r" in value:
            value = normalize_newlines(value)
            setattr(model_instance, self.attname, value)
        return value

    def to_python(self, value):
        value = super().to_python(value)
        return normalize_newlines(value) if isinstance(value, str) and "\r" in value else value


def text_choices(
    enum: type[StrEnum],
    labels: dict[Any, str] | None = None,
    *,
    module: str,
    qualname: str | None = None,
) -> type[models.TextChoices]:
    """Django choices for ``enum``, a str enum defined once (in the engine): the same members,
    names and values. With ``labels``, each member has its label from it, in the order it gives
    them, and it names every member and nothing else; without, the members keep the enum's order
    and their values, capitalised, are their labels. ``module`` and ``qualname`` (for choices
    made inside a class: ``Execution.RunState``) say where they are found again when a member
    is pickled (worker processes send them to the server)."""
    if labels is None:
        labels = {member: member.value.capitalize() for member in enum}
    elif set(labels) != set(enum):
        raise ImproperlyConfigured(
            f"The labels of {enum.__name__} name {sorted(map(str, labels))}, "
            f"its members are {sorted(map(str, enum))}."
        )
    # Enum's functional form takes module and qualname; the stubs' TextChoices leaves them out
    return models.TextChoices(  # type: ignore[call-overload]
        enum.__name__,
        [(member.name, (member.value, labels[member])) for member in labels],
        module=module,
        qualname=qualname or enum.__name__,
    )
