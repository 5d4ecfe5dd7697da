"""Inventory: variables and their resolution, credentials encrypted at rest, the explain view."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import connection
from django.urls import reverse

from otterweb.inventory import services
from otterweb.inventory.models import Credential, Environment, Role, Server, Variable
from otterweb.inventory.selectors import resolve_variables, servers_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def inventory():
    production = Environment.objects.create(name="production")
    eu = Environment.objects.create(name="production-eu", parent=production)
    web = Role.objects.create(name="web")
    db = Role.objects.create(name="db")
    web1 = Server.objects.create(name="web1")
    web1.environments.add(eu)
    web1.roles.add(web, db)
    db1 = Server.objects.create(name="db1")
    db1.roles.add(db)
    db1.environments.add(production)
    Server.objects.create(name="old", active=False).roles.add(web)
    return {"production": production, "eu": eu, "web": web, "db": db, "web1": web1, "db1": db1}


def test_resolve_variables_order_server_environment_child_parent_role_global(inventory) -> None:
    services.set_variable(name="Port", value="1")
    services.set_variable(name="Port", value="2", role=inventory["web"])
    services.set_variable(name="Port", value="3", environment=inventory["production"])
    services.set_variable(name="Port", value="4", environment=inventory["eu"])
    resolved = resolve_variables(server=inventory["web1"])
    assert (resolved["port"].value, resolved["port"].scope) == ("4", "environment production-eu")
    assert resolved["port"].shadowed == ("environment production", "role web", "global")
    services.set_variable(name="port", value="5", server=inventory["web1"])
    assert resolve_variables(server=inventory["web1"])["port"].value == "5"


def test_resolve_variables_ties_between_roles_go_to_the_role_in_context(inventory) -> None:
    services.set_variable(name="Pool", value="web-pool", role=inventory["web"])
    services.set_variable(name="Pool", value="db-pool", role=inventory["db"])
    assert (
        resolve_variables(server=inventory["web1"])["pool"].value == "db-pool"
    )  # by name: db before web
    assert (
        resolve_variables(server=inventory["web1"], role=inventory["web"])["pool"].value
        == "web-pool"
    )


def test_variable_values_are_otterscript_literals(inventory) -> None:
    services.set_variable(name="Hosts", value="@(a, b)")
    services.set_variable(name="Config", value="%(port: 80, tls: @(yes))")
    resolved = resolve_variables(server=inventory["db1"])
    assert resolved["hosts"].value == ["a", "b"]
    assert resolved["config"].value == {"port": "80", "tls": ["yes"]}
    with pytest.raises(ValidationError, match="value:1:10: error: unexpected end"):
        services.set_variable(name="Bad", value="@(unclosed")


def test_variable_belongs_to_one_scope(inventory) -> None:
    with pytest.raises(ValidationError):
        services.set_variable(name="x", value="1", server=inventory["web1"], role=inventory["web"])


def test_servers_for_names_roles_and_environments_with_children(inventory) -> None:
    assert [s.name for s in servers_for(servers=["db1"])] == ["db1"]
    assert [s.name for s in servers_for(roles=["web"])] == ["web1"]  # the inactive one is left out
    assert [s.name for s in servers_for(environments=["production"])] == ["db1", "web1"]
    assert [s.name for s in servers_for(roles=["db"], environments=["production-eu"])] == ["web1"]


def test_credential_secret_is_encrypted_at_rest(inventory) -> None:
    credential = services.save_credential(
        name="deploy", username="ops", secret="hunter2-very-secret"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "select encrypted_secret from inventory_credential where id = %s", [credential.pk]
        )
        stored = cursor.fetchone()[0]
    assert "hunter2" not in stored and stored
    assert Credential.objects.get(pk=credential.pk).secret() == "hunter2-very-secret"
    services.save_credential(
        name="deploy", username="ops2"
    )  # no secret given: the stored one stays
    assert Credential.objects.get(pk=credential.pk).secret() == "hunter2-very-secret"


def test_credential_limited_to_environments(inventory) -> None:
    credential = services.save_credential(
        name="prod-only", secret="x", environments=[inventory["production"]]
    )
    assert credential.usable_in([inventory["eu"]])  # a child of production
    assert not credential.usable_in([Environment.objects.create(name="test")])


def test_credential_wrong_key_is_a_clear_error(inventory, settings) -> None:
    credential = services.save_credential(name="k", secret="s3cret")
    settings.ENCRYPTION_KEY = "a2V5LXRoYXQtaXMtbm90LXRoZS1zYW1lLTMyYnl0ZXM="
    with pytest.raises(ImproperlyConfigured, match="changed since it was saved"):
        Credential.objects.get(pk=credential.pk).secret()


def test_explain_view_shows_values_scopes_and_masks_sensitive(client_with, inventory) -> None:
    services.set_variable(name="Port", value="8080", environment=inventory["production"])
    services.set_variable(name="DbPassword", value="p4ss", sensitive=True, server=inventory["db1"])
    client = client_with("inventory.view_server", "inventory.view_variable")
    page = client.get(reverse("server-variables-page", args=["db1"])).content.decode()
    assert "8080" in page and "environment production" in page
    assert "p4ss" not in page and "********" in page


def test_explain_view_refuses_users_without_permission(client_with, inventory) -> None:
    client = client_with()
    assert client.get(reverse("server-variables-page", args=["db1"])).status_code == 403
    client.logout()
    assert client.get(reverse("server-variables-page", args=["db1"])).status_code == 302


def test_admin_credential_secret_is_write_only(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("admin:inventory_credential_add"),
        {"name": "api", "kind": "token", "username": "", "secret": "tok-123456", "description": ""},
    )
    assert response.status_code == 302
    credential = Credential.objects.get(name="api")
    assert credential.secret() == "tok-123456"
    page = admin_client.get(
        reverse("admin:inventory_credential_change", args=[credential.pk])
    ).content.decode()
    assert "tok-123456" not in page and credential.encrypted_secret not in page


def test_admin_sensitive_variable_value_is_not_shown(admin_client, inventory) -> None:
    variable = services.set_variable(name="Token", value="abcdef123", sensitive=True)
    assert (
        "abcdef123"
        not in admin_client.get(reverse("admin:inventory_variable_changelist")).content.decode()
    )
    assert (
        "abcdef123"
        not in admin_client.get(
            reverse("admin:inventory_variable_change", args=[variable.pk])
        ).content.decode()
    )
    assert Variable.objects.get(pk=variable.pk).literal() == "abcdef123"
