"""The site's navigation: the sections a signed-in user may open, and which one they are in."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse

# label, URL name, the permission that opens it (None: every signed-in user, STAFF: staff only)
STAFF = "staff"
SECTIONS = [
    ("Dashboard", "home", None),
    ("Executions", "execution-list", "executions.view_execution"),
    ("Job templates", "template-list", "executions.view_jobtemplate"),
    ("Schedules", "schedule-list", "schedules.view_schedule"),
    ("Configuration", "configuration", "inventory.view_server"),
    ("Rafts", "raft-list", "rafts.view_raft"),
    ("Servers", "server-list", "inventory.view_server"),
    ("Roles", "role-list", "inventory.view_role"),
    ("Environments", "environment-list", "inventory.view_environment"),
    ("Credentials", "credential-list", "inventory.view_credential"),
    ("Privileges", "privileges", "privileges.view_grant"),
    ("Audit trail", "audit-list", "audit.view_entry"),
    ("Database", "database", STAFF),
    ("Admin", "admin:index", STAFF),
    ("API", "api:api-docs", None),
]


def navigation(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"navigation": []}
    entries = []
    for label, name, permission in SECTIONS:
        if permission == STAFF and not user.is_staff:
            continue
        if permission and permission != STAFF and not user.has_perm(permission):
            continue
        try:
            url = reverse(name)
        except NoReverseMatch:  # a section not installed
            continue
        current = request.path == url if url == "/" else request.path.startswith(url)
        entries.append({"label": label, "url": url, "current": current})
    return {"navigation": entries}
