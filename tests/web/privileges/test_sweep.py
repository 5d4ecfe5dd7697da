"""Every page and every API path, asked by each built-in role of Testing and of a raft of its
own: nothing of Production shows, in any list or any page, and every URL naming a Production
object answers as if it did not exist (404), or refuses (403, 405). A new URL is swept as soon
as it exists: its arguments come from the table below, and a URL the table cannot fill fails
the test until it is added."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from otterweb.executions.models import JobTemplate, JobTemplatePrompt
from otterweb.executions.services import create_job
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Credential, Environment, Server
from otterweb.privileges import services
from otterweb.privileges.models import Role
from otterweb.rafts import services as rafts
from otterweb.rafts.models import Raft, RaftItem
from otterweb.schedules import services as schedules

# the names of Production's objects: none may appear to these users
MARKERS = [
    "Production",
    "prodbox",
    "prodcred",
    "ProdPort",
    "prodraft",
    "prodscript",
    "prodtemplate",
    "prodschedule",
    "prodtrigger",
]
# not swept: the admin (staff only, Django's own permissions), logging out, and the API's schema
# and docs (the same for everyone)
SKIPPED = ("admin:", "logout", "api:schema", "api:api-docs", "api:api-root")


def routes(patterns=None, prefix="", namespace=""):
    """(name, kwargs) of every named URL pattern."""
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{entry.namespace}:" if entry.namespace else namespace
            yield from routes(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif (
            isinstance(entry, URLPattern)
            and entry.name
            and "format" not in entry.pattern.regex.groupindex
        ):
            yield namespace + entry.name, list(entry.pattern.regex.groupindex)


@pytest.fixture
def production(db):
    """Production's objects (named by MARKERS), and a little of Testing's."""
    environment = Environment.objects.create(name="Production")
    testing = Environment.objects.create(name="Testing")
    server = Server.objects.create(name="prodbox", host="127.0.0.1", agent_type="ssh")
    server.environments.add(environment)
    Server.objects.create(name="testbox", host="127.0.0.1", agent_type="ssh").environments.add(
        testing
    )
    credential = Credential.objects.create(name="prodcred", username="ops")
    credential.environments.add(environment)
    variable = inventory.set_variable(name="ProdPort", value="1", server=server)
    raft = Raft.objects.create(name="prodraft")
    Raft.objects.create(name="testraft")
    item = rafts.save_item(
        raft=raft, name="prodscript", kind=RaftItem.Kind.SCRIPT, content="Log-Information a;"
    )
    rafts.save_item(
        raft=raft, name="prodscript", kind=RaftItem.Kind.SCRIPT, content="Log-Information b;"
    )
    template = JobTemplate.objects.create(name="prodtemplate", raft_item=item, targeting="servers")
    template.servers.add(server)
    JobTemplatePrompt.objects.create(template=template, name="Version", type="text", default="1")
    execution = create_job(raft_item=item, servers=["prodbox"])
    schedule = schedules.save_schedule(
        schedule=None,
        user=None,
        name="prodschedule",
        kind="job",
        template=template,
        cron="0 3 * * *",
        time_zone="UTC",
        enabled=True,
        description="",
        variables={},
        environment=None,
    )
    root = get_user_model().objects.create_superuser(username="root")
    trigger, _secret = schedules.create_trigger(
        template=template, created_by=root, name="prodtrigger"
    )
    return {
        "environment": environment,
        "testing": testing,
        "server": server,
        "credential": credential,
        "variable": variable,
        "raft": raft,
        "item": item,
        "version": item.versions.first(),
        "template": template,
        "execution": execution,
        "schedule": schedule,
        "trigger": trigger,
    }


def arguments(name: str, kwargs: list[str], p: dict) -> dict | None:
    """The URL arguments naming a Production object; None when the table has none."""
    short = name.removeprefix("api:")
    by_prefix = [
        ("execution", {"pk": p["execution"].pk}),
        ("job-", {"pk": p["execution"].job_id}),
        ("template-trigger-", {"template_pk": p["template"].pk, "pk": p["trigger"].pk}),
        ("trigger-delete", {"template": p["template"].pk, "pk": p["trigger"].pk}),
        ("trigger-pull", {"pk": p["trigger"].pk}),
        ("template", {"pk": p["template"].pk}),
        ("jobtemplate", {"pk": p["template"].pk}),
        ("raftitemversion", {"pk": p["version"].pk}),
        ("raftitem", {"pk": p["item"].pk}),
        ("raft-item", {"raft": p["raft"].name, "name": p["item"].name, "number": 1}),
        ("raft", {"pk": p["raft"].pk, "raft": p["raft"].name}),
        ("environment", {"name": p["environment"].name}),
        ("server", {"name": p["server"].name}),
        ("credential", {"name": p["credential"].name}),
        ("variable", {"pk": p["variable"].pk}),
        ("schedule", {"pk": p["schedule"].pk}),
        ("configuration-server", {"name": p["server"].name}),
    ]
    for prefix, values in by_prefix:
        if short.startswith(prefix) and set(kwargs) <= set(values):
            return {key: values[key] for key in kwargs}
    return None


# URLs with arguments whose objects are not Production's: they are swept by other tests
NOT_PRODUCTION = {
    "role-detail",  # inventory roles are seen by any viewer (test_checks)
    "role-edit",
    "role-delete",
    "api:role-detail",
    "configuration-check",  # checks and plans: their servers' (test_matrix, test_configuration)
    "configuration-plan",
    "configuration-plan-act",
    "api:configuration-plan",
    "api:configuration-plan-approve",
    "api:configuration-plan-discard",
    "privilege-revoke",  # POST only, checked on the grant's scope (test_checks)
    "account-key-revoke",  # one's own keys (test_api_keys)
    "api:key-detail",
    "api:audit-detail",  # the audit trail is its own permission (tests/web/audit)
}


def holder(role: str, scope: str, p: dict):
    user = get_user_model().objects.create_user(username=f"{role}-{scope}".lower())
    services.grant(
        role=Role.objects.get(name=role),
        user=user,
        environment=p["testing"] if scope == "Testing" else None,
        raft=Raft.objects.get(name="testraft") if scope == "testraft" else None,
    )
    return user


@pytest.mark.parametrize("scope", ["Testing", "testraft"])
@pytest.mark.parametrize("role", ["Viewer", "Operator", "Editor", "Administrator"])
def test_privileges_nothing_of_production_shows_on_any_page_or_api_path(
    production, client, role, scope
) -> None:
    user = holder(role, scope, production)
    api = APIClient()
    api.force_authenticate(user)
    client.force_login(user)
    leaks, answered, unfilled = [], {}, []
    for name, kwargs in routes():
        if name.startswith(SKIPPED) or name in NOT_PRODUCTION:
            continue
        values = arguments(name, kwargs, production) if kwargs else {}
        if values is None:
            unfilled.append(name)
            continue
        url = reverse(name, kwargs=values)
        if name == "api:script-names":
            url += "?raft=prodraft"
        response = (api if name.startswith("api:") else client).get(url)
        answered[name] = response.status_code
        body = b"".join(response) if response.streaming else response.content
        text = body.decode(errors="replace")
        shown = [marker for marker in MARKERS if marker in text]
        if shown:
            leaks.append(f"{name} {url} ({response.status_code}) shows {shown}")
        if kwargs and response.status_code not in (403, 404, 405):
            leaks.append(f"{name} {url} answered {response.status_code}")
    assert unfilled == [], "URLs the sweep cannot fill: add them to arguments() or NOT_PRODUCTION"
    assert leaks == [], "\n".join(leaks)
    assert len(answered) > 60  # every page and API path was asked
