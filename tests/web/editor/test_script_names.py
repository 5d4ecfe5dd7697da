"""GET /api/scripts/names/?raft=<name>: the inventory's variable names and the raft items a
script in that raft can call or apply, for the editor's completion; never a variable's value."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from otterweb.inventory.models import Environment, Role, Server
from otterweb.inventory.services import add_variable
from otterweb.rafts.models import Raft, RaftItem

pytestmark = pytest.mark.django_db

URL = "/api/scripts/names/"


@pytest.fixture
def reader(client_with):
    """A signed-in user who may read variables and raft items."""
    return client_with("inventory.view_variable", "rafts.view_raftitem")


@pytest.fixture
def inventory():
    web1 = Server.objects.create(name="web1")
    add_variable(name="Port", value="8080", server=web1)
    add_variable(name="Port", value="80")
    add_variable(name="DbPasswords", value="@(hunter2-secret, x)", sensitive=True)
    add_variable(name="Hosts", value="@(web1, web2)", role=Role.objects.create(name="web"))
    add_variable(
        name="Limits",
        value="%(cpu: 2, memory: 4G)",
        environment=Environment.objects.create(name="prod"),
    )


@pytest.fixture
def rafts():
    ops = Raft.objects.create(name="ops")
    shared = Raft.objects.create(name="shared")
    for raft, name, kind in [
        (ops, "Deploy", RaftItem.Kind.MODULE),
        (ops, "main", RaftItem.Kind.SCRIPT),
        (ops, "web/nginx.conf", RaftItem.Kind.TEMPLATE),
        (ops, "backup.sh", RaftItem.Kind.SHELL_SCRIPT),
        (shared, "Backup", RaftItem.Kind.MODULE),
        (shared, "motd", RaftItem.Kind.ASSET),
    ]:
        RaftItem.objects.create(raft=raft, name=name, kind=kind, content="")
    return ops


def test_script_names_lists_the_inventorys_variables_with_their_kinds(
    reader, inventory, rafts
) -> None:
    response = reader.get(URL, {"raft": "ops"})
    assert response.status_code == 200
    assert response.json()["variables"] == [
        {"name": "DbPasswords", "sigil": "$", "scopes": ["global"]},  # its value is not read
        {"name": "Hosts", "sigil": "@", "scopes": ["role"]},
        {"name": "Limits", "sigil": "%", "scopes": ["environment"]},
        {"name": "Port", "sigil": "$", "scopes": ["server", "global"]},
    ]


def test_script_names_never_include_a_variables_value(reader, inventory, rafts) -> None:
    text = reader.get(URL, {"raft": "ops"}).content.decode()
    for value in ("8080", "hunter2-secret", "web2", "memory", "4G"):
        assert value not in text


def test_script_names_lists_modules_and_templates_the_rafts_own_first(reader, rafts) -> None:
    names = reader.get(URL, {"raft": "ops"}).json()
    assert names["modules"] == [
        {"name": "Deploy", "raft": "ops", "kind": "module"},
        {"name": "main", "raft": "ops", "kind": "script"},
        {"name": "shared::Backup", "raft": "shared", "kind": "module"},
    ]
    assert names["templates"] == [
        {"name": "web/nginx.conf", "raft": "ops", "kind": "template"},
        {"name": "shared::motd", "raft": "shared", "kind": "asset"},
    ]
    from_shared = reader.get(URL, {"raft": "shared"}).json()
    assert [m["name"] for m in from_shared["modules"]] == ["Backup", "ops::Deploy", "ops::main"]


def test_script_names_leaves_out_what_the_user_may_not_read(client_with, inventory, rafts) -> None:
    names = client_with().get(URL, {"raft": "ops"}).json()
    assert names == {"variables": [], "modules": [], "templates": []}


def test_script_names_refuses_an_unknown_raft_with_400(reader, rafts) -> None:
    response = reader.get(URL, {"raft": "nowhere"})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["errors"] == {"raft": ["there is no raft named 'nowhere'"]}
    assert reader.get(URL).json()["errors"]["raft"] == ["This field is required."]


def test_script_names_refuses_a_visitor_who_is_not_signed_in(rafts) -> None:
    response = APIClient().get(URL, {"raft": "ops"})
    assert response.status_code in (401, 403)
    assert "Deploy" not in response.content.decode()


def test_script_names_is_in_the_api_schema(reader) -> None:
    schema = reader.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/scripts/names/" in schema.content
