"""Schedules and triggers run on their owner's behalf, with the owner's rights checked again at
every firing against the template's targets and script as they are then; changing what they
run needs the rights their runs need."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from otterweb.executions import services as executions
from otterweb.executions.models import Execution
from otterweb.inventory.models import Server
from otterweb.rafts.models import Raft
from otterweb.rafts.services import save_item
from otterweb.schedules import scheduler
from otterweb.schedules.models import Schedule, Trigger
from otterweb.schedules.services import save_schedule

pytestmark = pytest.mark.django_db

# everything a user needs to make a trigger and change templates, but the local server
TEMPLATE_MAKER = (
    "executions.run_jobtemplate",
    "executions.view_jobtemplate",
    "executions.change_jobtemplate",
    "schedules.add_trigger",
    "schedules.view_trigger",
)


@pytest.fixture(autouse=True)
def fresh_throttle():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def web1(db) -> Server:
    return Server.objects.create(name="web1", agent_type=Server.AgentType.SSH, host="192.0.2.1")


@pytest.fixture
def remote(web1):
    """A template that runs on web1 (an SSH server, not OtterWeb's machine)."""
    item = save_item(
        raft=Raft.objects.create(name="ops"), name="tick", content="Log-Information hi;\n"
    )
    return executions.save_job_template(
        name="Tick", raft_item=item, targeting="servers", servers=[web1]
    )


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def pull(trigger_id, token: str):
    address = reverse("api:trigger-pull", args=[trigger_id]) + f"?token={token}"
    return Client().post(address, data=b"", content_type="application/json")


def test_trigger_refused_when_its_owner_may_not_run_on_the_local_server_it_now_reaches(
    client_with, remote, here
) -> None:
    maker = client_with(*TEMPLATE_MAKER)
    made = maker.post(f"/api/job-templates/{remote.pk}/triggers/", {"name": "CI"}, format="json")
    assert made.status_code == 201, made.content
    trigger = Trigger.objects.get()
    assert trigger.owner.username == made.json()["owner"]

    # retargeting its template to the local server is refused to the maker...
    retarget = {"targeting": "servers", "servers": ["here"]}
    refused = maker.patch(f"/api/job-templates/{remote.pk}/", retarget, format="json")
    assert refused.status_code == 400
    assert "Can run scripts on the local server" in refused.content.decode()
    assert [s.name for s in remote.servers.all()] == ["web1"]

    # ...and when someone who may retargets it, the maker's trigger still runs nothing there
    executions.save_job_template(
        template=remote,
        name="Tick",
        raft_item=remote.raft_item,
        targeting="servers",
        servers=[here],
    )
    fired = pull(trigger.pk, made.json()["token"])
    assert fired.status_code == 400
    assert "may not run scripts on here" in fired.json()["detail"]
    assert not Execution.objects.exists()
    trigger.refresh_from_db()
    assert "may not run scripts on here" in trigger.last_error


def test_trigger_runs_on_its_owners_behalf(client_with, remote) -> None:
    maker = client_with(*TEMPLATE_MAKER)
    made = maker.post(f"/api/job-templates/{remote.pk}/triggers/", {"name": "CI"}, format="json")
    token = made.json()["token"]
    fired = pull(made.json()["id"], token)
    assert fired.status_code == 202, fired.content
    assert Execution.objects.get().job.requested_by == Trigger.objects.get().owner


def test_schedule_refused_when_its_script_now_names_the_local_server(
    user_with, remote, here
) -> None:
    owner = user_with(*TEMPLATE_MAKER, "schedules.add_schedule")
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = save_schedule(name="hourly", template=remote, cron="0 * * * *", user=owner)
        assert schedule.owner == owner
        # whoever may (OtterWeb itself here) makes the script reach the local server
        save_item(
            raft=remote.raft_item.raft,
            name="tick",
            content="for server here\n{\n    Log-Information hi;\n}\n",
        )
        clock.move_to(utc(2026, 1, 5, 10))
        assert scheduler.fire_due() == [schedule.pk]
    schedule.refresh_from_db()
    assert schedule.last_execution is None and not Execution.objects.exists()
    assert f"belongs to {owner}, who may not run scripts on here" in schedule.last_error


def test_schedule_without_an_owner_runs_nothing(remote) -> None:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False) as clock:
        schedule = save_schedule(name="hourly", template=remote, cron="0 * * * *")
        clock.move_to(utc(2026, 1, 5, 10))
        scheduler.fire_due()
    schedule.refresh_from_db()
    assert not Execution.objects.exists() and "has no owner" in schedule.last_error


def test_raft_item_edit_refused_to_an_editor_when_an_admins_schedule_runs_it_locally(
    admin_user, client_with, here
) -> None:
    item = save_item(
        raft=Raft.objects.create(name="ops"), name="tick", content="Log-Information hi;\n"
    )
    template = executions.save_job_template(
        name="Tick", raft_item=item, targeting="servers", servers=[here]
    )
    schedule = save_schedule(name="hourly", template=template, cron="0 * * * *", user=admin_user)
    assert schedule.owner == admin_user
    editor = client_with(
        "rafts.view_raftitem",
        "rafts.change_raftitem",
        "rafts.view_raft",
        "executions.run_jobtemplate",
    )
    changed = "SHExec rm -rf /tmp/x;\n"
    response = editor.patch(f"/api/raft-items/{item.pk}/", {"content": changed}, format="json")
    assert response.status_code == 400
    assert "Can run scripts on the local server" in response.content.decode()
    item.refresh_from_db()
    assert item.content == "Log-Information hi;\n" and item.versions.count() == 1
    # an item no schedule runs is the editor's to change, as before
    other = save_item(raft=item.raft, name="other", content="Log-Information hi;\n")
    allowed = editor.patch(f"/api/raft-items/{other.pk}/", {"content": changed}, format="json")
    assert allowed.status_code == 200, allowed.content


def test_raft_module_edit_refused_when_it_would_reach_the_local_server(
    user_with, client_with, remote, here
) -> None:
    raft = remote.raft_item.raft
    module = save_item(
        raft=raft,
        name="helper",
        kind="module",
        content="module helper\n{\n    Log-Information hi;\n}\n",
    )
    save_item(raft=raft, name="tick", content="call helper();\n")
    owner = user_with(*TEMPLATE_MAKER, "schedules.add_schedule")
    save_schedule(name="hourly", template=remote, cron="0 * * * *", user=owner)
    editor = client_with(
        "rafts.view_raftitem",
        "rafts.change_raftitem",
        "rafts.view_raft",
        "executions.run_jobtemplate",
    )
    local = "module helper\n{\n    for server here\n    {\n        SHExec id;\n    }\n}\n"
    response = editor.patch(f"/api/raft-items/{module.pk}/", {"content": local}, format="json")
    assert response.status_code == 400
    assert "here (OtterWeb's own machine)" in response.content.decode()
    assert Schedule.objects.get(name="hourly").owner == owner


def test_raft_item_edit_needs_the_privilege_to_run_the_schedules_template(
    admin_user, client, here
) -> None:
    """An Editor of the raft may not change what a schedule runs in an environment where the
    Editor may not run it; an Editor who is also an Operator there may."""
    from django.contrib.auth import get_user_model

    from otterweb.inventory.models import Environment
    from otterweb.privileges import services as privileges
    from otterweb.privileges.models import Role

    production = Environment.objects.create(name="production")
    here.environments.add(production)
    raft = Raft.objects.create(name="ops")
    item = save_item(raft=raft, name="tick", content="Log-Information hi;\n")
    template = executions.save_job_template(
        name="Tick", raft_item=item, targeting="servers", servers=[here]
    )
    save_schedule(name="hourly", template=template, cron="0 * * * *", user=admin_user)
    editor = get_user_model().objects.create_user(username="editor")
    privileges.grant(role=Role.objects.get(name="Editor"), user=editor, raft=raft)
    client.force_login(editor)
    edit = {"content": "Log-Information changed;\n"}
    refused = client.patch(f"/api/raft-items/{item.pk}/", edit, content_type="application/json")
    assert refused.status_code == 400
    assert "privilege to run that template" in refused.content.decode()
    privileges.grant(
        role=Role.objects.get(name="Administrator"), user=editor, environment=production
    )
    allowed = client.patch(f"/api/raft-items/{item.pk}/", edit, content_type="application/json")
    assert allowed.status_code == 200, allowed.content
