"""Where a drift of a configuration run is, said as the check pages say it: the role, its raft
item and the line there, not the line of the combined plan the run ran."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html

from otterweb.configuration.models import ConfigurationRun
from otterweb.configuration.selectors import role_name
from otterweb.rafts.models import RaftItem

register = template.Library()


@register.simple_tag
def drift_place(execution, line: int | None) -> str:
    """``line`` of ``execution``'s script: for a configuration run, its role's item and line
    (the plan line when it came from none); for any other run, the line itself."""
    try:
        run = execution.configuration_run
    except ConfigurationRun.DoesNotExist:
        return "" if line is None else str(line)
    role, item_id, item_line = run.origins.get(str(line)) or (None, None, None)
    if item_id is None:
        return "" if line is None else f"plan line {line}"
    items = execution.__dict__.setdefault("_drift_items", {})  # a page's rows share the reads
    if item_id not in items:
        items[item_id] = RaftItem.objects.select_related("raft").filter(pk=item_id).first()
    item = items[item_id]
    role = role_name(run, role)
    if item is None:  # deleted since
        return f"role {role}, line {item_line}" if role else f"plan line {line}"
    return format_html(
        '{}<a href="{}">{}</a> line {}',
        f"role {role}, " if role else "",
        reverse("raft-item", args=[item.raft.name, item.name]),
        item,
        item_line,
    )
