"""On whose behalf schedules and triggers run, and what that takes.

A job schedule or a trigger has an owner: the user who made it (a schedule: who last saved it).
Its runs start on the owner's behalf (``requested_by`` is the owner), and at every firing the
owner's rights are checked again against the template's targets and its script as they are
then: an owner who is gone, inactive, may no longer run job templates, or may not run on the
local server that the targets or the script name, gets the firing refused (nothing starts; the
reason is recorded). Whoever changes a job template, or a raft item, that a schedule or trigger
runs needs the rights those runs need: the permission to run on the local server when they
reach it."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from engine import OtterSyntaxError, called_modules, named_targets, parse
from otterweb.executions.local_runs import may_run_locally
from otterweb.executions.models import JobTemplate
from otterweb.inventory.models import Server
from otterweb.inventory.selectors import active_servers, servers_for
from otterweb.rafts.models import RaftItem
from otterweb.rafts.selectors import find_item
from otterweb.schedules.models import Schedule, Trigger

RUN_TEMPLATES = "executions.run_jobtemplate"
LOCAL_PERMISSION_NAME = "Can run scripts on the local server"
# how deep module calls are followed when looking for the servers a script names
MAX_MODULE_DEPTH = 16


def check_owner(*, owner, template: JobTemplate, what: str) -> None:
    """Raise ValidationError (the reason, in words) unless ``owner`` may start ``template``'s
    run now, for ``what`` (``the schedule s``, ``the trigger t``)."""
    if owner is None:
        raise ValidationError(
            f"{what} has no owner (its owner's account was deleted, or it was made before "
            "schedules and triggers had owners): nothing runs on nobody's behalf. Save it again "
            "to make yourself its owner."
        )
    if not owner.is_active:
        raise ValidationError(f"{what} belongs to {owner}, whose account is inactive.")
    if not owner.has_perm(RUN_TEMPLATES, template):
        raise ValidationError(
            f"{what} belongs to {owner}, who may not run the job template {template.name} "
            "(in the environments it targets)."
        )
    local = local_targets(template=template)
    if local and not may_run_locally(owner):
        raise ValidationError(
            f"{what} belongs to {owner}, who may not run scripts on "
            f"{', '.join(local)} (OtterWeb's own machine): that needs the permission "
            f"'{LOCAL_PERMISSION_NAME}'."
        )


def local_targets(
    *, template: JobTemplate, item: RaftItem | None = None, content: str | None = None
) -> list[str]:
    """The names of the local servers (OtterWeb's machine) a run of ``template`` reaches: among
    its targets, and among the servers its script (and the modules it calls) names in plain
    text. A name that is no active server runs on the local agent, as the runs do. With
    ``item`` and ``content``: as if ``item`` held ``content``."""
    targets = _explicit_targets(template)
    local = {s.name for s in targets if s.agent_type == Server.AgentType.LOCAL}
    named = _script_names(template, item=item, content=content)
    if named:
        servers = active_servers()
        by_name = {s.name.casefold(): s for s in servers}
        for context, name in named:
            if context == "server":
                stored = by_name.get(name.casefold())
                if stored is None or stored.agent_type == Server.AgentType.LOCAL:
                    local.add(stored.name if stored else name)
            else:
                local.update(
                    s.name
                    for s in servers
                    if s.agent_type == Server.AgentType.LOCAL
                    and any(r.name.casefold() == name.casefold() for r in s.roles.all())
                )
    return sorted(local)


def _explicit_targets(template: JobTemplate) -> list[Server]:
    if template.targeting == JobTemplate.Targeting.SERVERS:
        return servers_for(servers=[s.name for s in template.servers.all()])
    if template.targeting == JobTemplate.Targeting.ROLES:
        return servers_for(
            roles=[r.name for r in template.roles.all()],
            environments=[e.name for e in template.environments.all()],
        )
    return []


def _script_names(
    template: JobTemplate, *, item: RaftItem | None, content: str | None
) -> list[tuple[str, str]]:
    """What the template's script, and the modules it calls, name in plain text."""
    return [
        name
        for _item, script in _scripts(template, item=item, content=content)
        for name in named_targets(script)
    ]


def _scripts(template: JobTemplate, *, item: RaftItem | None = None, content: str | None = None):
    """The template's raft item and every module it calls (at any depth, each once), with
    their parsed scripts; with ``item``, as if it held ``content``. Those that do not parse are
    left out (a run of them does not start)."""
    seen: set[int] = set()
    pending: list[tuple[RaftItem | None, int]] = [(template.raft_item, 0)]
    while pending:
        current, depth = pending.pop()
        if current is None or current.pk in seen or depth > MAX_MODULE_DEPTH:
            continue
        seen.add(current.pk)
        if item is not None and content is not None and current.pk == item.pk:
            text = content
        else:
            text = current.content
        try:
            script = parse(text, name=str(current))
        except OtterSyntaxError:
            continue
        yield current, script
        for raft, name in called_modules(script):
            called = find_item(raft=raft or current.raft.name, name=name, kinds=MODULE_KINDS)
            if called is None and raft is None:
                called = find_item(raft=None, name=name, kinds=MODULE_KINDS)
            pending.append((called, depth + 1))


MODULE_KINDS = (RaftItem.Kind.MODULE, RaftItem.Kind.SCRIPT)


def scheduled_templates() -> list[JobTemplate]:
    """The job templates that a job schedule or a trigger runs."""
    ids = set(Schedule.objects.filter(kind=Schedule.Kind.JOB).values_list("template_id", flat=True))
    ids |= set(Trigger.objects.values_list("template_id", flat=True))
    return list(
        JobTemplate.objects.filter(pk__in=ids).select_related("raft_item__raft").order_by("name")
    )


def check_template_change(*, template: JobTemplate, user) -> None:
    """Whoever changes a job template that schedules or triggers run needs the rights its runs
    need: the permission to run on the local server when they reach it. ``template`` is as it
    will be saved (its targets set)."""
    if user is None or may_run_locally(user) or not template.pk:
        return
    if not (
        Schedule.objects.filter(template=template).exists()
        or Trigger.objects.filter(template=template).exists()
    ):
        return
    local = local_targets(template=template)
    if local:
        raise ValidationError(
            {
                "targeting": f"Schedules or triggers run the template {template.name}, and it "
                f"would run on {', '.join(local)} (OtterWeb's own machine): that needs the "
                f"permission '{LOCAL_PERMISSION_NAME}'."
            }
        )


def check_item_change(*, item: RaftItem, content: str, user) -> None:
    """Whoever changes a raft item that a schedule or trigger runs (its template's script, or a
    module that script calls) needs the rights its runs need: the privilege to run the
    template where it runs, and the permission to run on the local server when they reach it,
    with the new content."""
    if user is None or not item.pk:
        return
    for template in scheduled_templates():
        if template.raft_item_id != item.pk and item.pk not in _module_ids(template):
            continue
        if not user.has_perm(RUN_TEMPLATES, template):
            raise ValidationError(
                {
                    "content": f"{item} is run by the schedules or triggers of the template "
                    f"{template.name}: changing it needs the privilege to run that template "
                    "in the environments it targets."
                }
            )
        if may_run_locally(user):
            continue
        local = local_targets(template=template, item=item, content=content)
        if local:
            raise ValidationError(
                {
                    "content": f"{item} is run by the schedules or triggers of the template "
                    f"{template.name}, which run on {', '.join(local)} (OtterWeb's own "
                    f"machine): changing it needs the permission '{LOCAL_PERMISSION_NAME}'."
                }
            )


def _module_ids(template: JobTemplate) -> set[int]:
    """The raft items the template's script calls as modules, at any depth."""
    return {item.pk for item, _script in _scripts(template)} - {template.raft_item_id}
