"""The built-in roles: made when missing after every migrate, never changed afterwards (an
administrator may edit them)."""

from __future__ import annotations

from auditlog.context import disable_auditlog
from django.contrib.auth.models import Permission

SEEN = {
    "inventory": ["environment", "server", "role", "variable", "credential"],
    "rafts": ["raft", "raftitem", "raftitemversion"],
    "executions": ["jobtemplate", "jobtemplateprompt", "job", "execution"],
    "configuration": ["remediationplan", "configurationrun", "check", "driftitem", "serverstate"],
    "schedules": ["schedule", "trigger"],
}
VIEW = [f"{app}.view_{model}" for app, models in SEEN.items() for model in models]
RUN = [
    "executions.run_jobtemplate",
    "executions.add_execution",
    "executions.cancel_execution",
    "configuration.check_configuration",
    "configuration.remediate_server",
]
EDITED = {
    "rafts": ["raft", "raftitem", "raftitemdraft"],
    "executions": ["jobtemplate", "jobtemplateprompt"],
    "schedules": ["schedule", "trigger"],
}
EDIT = [
    f"{app}.{action}_{model}"
    for app, models in EDITED.items()
    for model in models
    for action in ("add", "change", "delete", "view")
]
ADMINISTERED = {
    "inventory": ["environment", "server", "role", "variable", "credential"],
    "privileges": ["grant"],
}
ADMINISTER = [
    f"{app}.{action}_{model}"
    for app, models in ADMINISTERED.items()
    for model in models
    for action in ("add", "change", "delete", "view")
] + ["privileges.view_role", "executions.run_on_local_server", "audit.view_entry"]

BUILT_IN = {
    "Viewer": (
        "Sees what is in its scope: servers, scripts, templates, executions and logs.",
        VIEW,
    ),
    "Operator": (
        "A Viewer who also runs job templates and scripts, cancels executions, checks "
        "configuration and approves remediation, on the servers of its scope.",
        VIEW + RUN,
    ),
    "Editor": (
        "A Viewer who also edits rafts, job templates, schedules and triggers in its scope.",
        VIEW + EDIT,
    ),
    "Administrator": (
        "Everything in its scope: inventory, credentials, privileges, and all an Operator and "
        "an Editor do.",
        VIEW + RUN + EDIT + ADMINISTER,
    ),
}


def permissions(names: list[str]) -> list[Permission]:
    wanted = {tuple(name.split(".", 1)) for name in names}
    return [
        p
        for p in Permission.objects.select_related("content_type")
        if (p.content_type.app_label, p.codename) in wanted
    ]


def make_built_in_roles(**_kwargs) -> None:
    """post_migrate: the built-in roles that are missing, with their permissions. Not in the
    audit trail, which records what people change: these come with the product (and logging
    each permission's name took a query apiece, 0.18 s each time a database was made)."""
    from otterweb.privileges.models import Role

    with disable_auditlog():
        for name, (description, names) in BUILT_IN.items():
            role, made = Role.objects.get_or_create(
                name=name, defaults={"description": description, "built_in": True}
            )
            if made:
                role.permissions.set(permissions(names))
