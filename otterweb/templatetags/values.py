"""How the pages show a value a run recorded (a drift's desired and actual state): as a script
would write it, not as Python prints it."""

import json

from django import template

register = template.Library()


@register.filter
def as_value(value) -> str:
    """true and false for a yes or no, — for nothing, JSON for a list or a map, text as is."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
