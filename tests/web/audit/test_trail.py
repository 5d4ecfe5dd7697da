"""The audit trail shows every write a user makes through pages, the API and the admin: the
entries made while a set of writes is done are exactly those writes (kind, action, object,
changed fields, who, from where), and no secret written appears in any of them."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from otterweb.accounts import tokens
from otterweb.audit.api import csv_row
from otterweb.audit.models import Entry
from otterweb.executions import services as executions
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Credential
from otterweb.rafts import services as rafts
from otterweb.rafts.models import Raft
from tests.web.schedules.conftest import deploy, owner  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

SECRETS = ("tok-page-secret-111", "tok-page-secret-222", "tok-admin-secret-333")
A = Entry.Action


def made_since(last: int) -> list[Entry]:
    return list(Entry.objects.filter(pk__gt=last).select_related("content_type").order_by("pk"))


def last_entry() -> int:
    return Entry.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def test_trail_has_exactly_the_writes_made_through_pages_api_and_admin(admin_user) -> None:
    inventory.save_role(name="old-role")
    pages = APIClient(REMOTE_ADDR="10.0.0.1")
    pages.force_login(admin_user)
    api = APIClient(REMOTE_ADDR="10.0.0.2")
    _, token = tokens.create(user=admin_user)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    admin = APIClient(REMOTE_ADDR="10.0.0.3")
    admin.force_login(admin_user)
    start = last_entry()

    # pages (forms posted as a browser does)
    ok = pages.post(reverse("environment-create"), {"name": "production", "description": "live"})
    assert ok.status_code == 302
    ok = pages.post(
        reverse("credential-create"),
        {"name": "api", "kind": "token", "username": "", "secret": SECRETS[0]},
    )
    assert ok.status_code == 302
    ok = pages.post(
        reverse("credential-edit", args=["api"]),
        {"name": "api", "kind": "token", "username": "bot", "secret": SECRETS[1]},
    )
    assert ok.status_code == 302
    # the API, with a token
    made = api.post("/api/servers/", {"name": "web9", "host": "10.9.9.9"}, format="json")
    assert made.status_code == 201, made.content
    changed = api.patch("/api/servers/web9/", {"port": 2222}, format="json")
    assert changed.status_code == 200, changed.content
    assert api.delete("/api/environments/production/").status_code == 204
    # the admin
    ok = admin.post(
        reverse("admin:inventory_credential_add"),
        {"name": "vault", "kind": "token", "username": "", "secret": SECRETS[2], "description": ""},
    )
    assert ok.status_code == 302
    role = inventory.Role.objects.get(name="old-role")
    ok = admin.post(reverse("admin:inventory_role_delete", args=[role.pk]), {"post": "yes"})
    assert ok.status_code == 302

    entries = made_since(start)
    assert [(e.kind, e.action, e.object_repr, e.remote_addr) for e in entries] == [
        ("inventory.environment", A.CREATE, "production", "10.0.0.1"),
        ("inventory.credential", A.CREATE, "api", "10.0.0.1"),
        ("inventory.credential", A.UPDATE, "api", "10.0.0.1"),
        ("inventory.server", A.CREATE, "web9", "10.0.0.2"),
        ("inventory.server", A.UPDATE, "web9", "10.0.0.2"),
        ("inventory.environment", A.DELETE, "production", "10.0.0.2"),
        ("inventory.credential", A.CREATE, "vault", "10.0.0.3"),
        ("inventory.role", A.DELETE, "old-role", "10.0.0.3"),
    ]
    assert {(e.actor, e.actor_name) for e in entries} == {(admin_user, "admin")}
    created, update = entries[1], entries[2]
    assert {"name", "kind", "encrypted_secret"} <= set(created.changes)
    assert created.changes["kind"] == ["None", "token"]
    # an update holds exactly the fields it changed; a secret only that it changed
    assert update.changes == {
        "username": ["", "bot"],
        "encrypted_secret": ["(secret)", "(secret)"],
    }
    assert entries[4].changes == {"port": ["22", "2222"]}
    assert entries[5].changes["description"] == ["live", "None"]
    # no secret, nor its ciphertext, anywhere in any entry
    ciphertexts = list(Credential.objects.values_list("encrypted_secret", flat=True))
    for entry in entries:
        text = json.dumps([entry.changes, entry.additional_data, entry.object_repr, csv_row(entry)])
        for secret in (*SECRETS, *ciphertexts):
            assert secret not in text


def test_trail_records_raft_content_as_its_version_never_the_script_twice(admin_user) -> None:
    raft = Raft.objects.create(name="ops")
    start = last_entry()
    item = rafts.save_item(raft=raft, name="deploy", content="Log-Information one;\n")
    rafts.save_item(raft=raft, name="deploy", content="Log-Information two;\n", message="second")
    entries = made_since(start)
    assert [(e.kind, e.action, e.object_repr) for e in entries] == [
        ("rafts.raftitem", A.CREATE, "ops::deploy"),
        ("rafts.raftitemversion", A.CREATE, "ops::deploy v1"),
        ("rafts.raftitemversion", A.CREATE, "ops::deploy v2"),
    ]
    assert entries[2].changes["number"] == ["None", "2"]
    assert entries[2].changes["message"] == ["None", "second"]
    for entry in entries:
        assert "Log-Information" not in json.dumps([entry.changes, entry.additional_data])
    assert item.versions.count() == 2


def test_trail_records_prompts_written_in_bulk(admin_user, here) -> None:
    raft = Raft.objects.create(name="ops")
    item = rafts.save_item(raft=raft, name="deploy", content="Log-Information $Version;\n")
    start = last_entry()
    prompts = [{"name": "Version", "type": "text", "default": "1.0"}]
    template = executions.save_job_template(
        name="Deploy", raft_item=item, targeting="servers", servers=[here], prompts=prompts
    )
    entries = made_since(start)
    assert [(e.kind, e.action) for e in entries] == [
        ("executions.jobtemplate", A.CREATE),
        ("executions.jobtemplate", A.UPDATE),  # its servers: here added
        ("executions.jobtemplateprompt", A.CREATE),
    ]
    assert entries[1].changes["servers"]["objects"] == ["here"]
    assert entries[2].changes["name"] == ["None", "Version"]
    start = last_entry()
    executions.save_job_template(
        template=template,
        name="Deploy",
        raft_item=item,
        targeting="servers",
        servers=[here],
        prompts=[{"name": "Version", "type": "text", "default": "2.0"}],
    )
    assert [(e.kind, e.action) for e in made_since(start)] == [
        ("executions.jobtemplateprompt", A.DELETE),
        ("executions.jobtemplateprompt", A.CREATE),
    ]


def test_trail_records_what_people_change_of_a_server_not_what_its_checks_find() -> None:
    server = inventory.save_server(name="web8", host="10.0.0.8")
    start = last_entry()
    server.host, server.reachable, server.os_name, server.check_error = "10.0.0.9", True, "x", ""
    server.pending_host_key = "ssh-ed25519 AAAA"
    server.save()
    [entry] = made_since(start)
    assert (entry.kind, entry.action, entry.changes) == (
        "inventory.server",
        A.UPDATE,
        {"host": ["10.0.0.8", "10.0.0.9"]},
    )


def test_trail_records_changes_written_by_queryset_update(deploy) -> None:  # noqa: F811
    from otterweb.inventory import checks
    from otterweb.inventory.models import Server
    from otterweb.schedules import scheduler
    from otterweb.schedules.services import save_schedule

    server = Server.objects.create(name="web7", agent_type="ssh")
    schedule = save_schedule(name="nightly", template=deploy, cron="0 3 * * *", user=owner())
    start = last_entry()
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIwy0tCEb9O6jOBSXEtS5hNuz9sdhzBZDenAjfB/e23n"
    checks.remember_host_key("web7", key)  # trusted on first use
    scheduler._unschedulable(schedule, schedule.next_run, ValueError("no such zone"))
    entries = made_since(start)
    assert [(e.kind, e.action, e.object_repr, e.changes, e.actor) for e in entries] == [
        ("inventory.server", A.UPDATE, "web7", {"host_keys": ["", key]}, None),
        ("schedules.schedule", A.UPDATE, "nightly", {"enabled": ["True", "False"]}, None),
    ]
    assert server.pk == entries[0].object_id
