"""Inventory pages: environments, roles, servers, credentials and variables listed, shown,
created, changed and deleted through OtterWeb's own pages; and the admin's variable inlines."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from otterweb.executions.models import Execution, Job
from otterweb.inventory import services
from otterweb.inventory.models import Credential, Environment, Role, Server, Variable

pytestmark = pytest.mark.django_db

MODELS = ["environment", "role", "server", "credential", "variable"]


@pytest.fixture
def inventory():
    production = services.save_environment(name="production")
    eu = services.save_environment(name="production-eu", parent=production)
    base = services.save_role(name="base")
    web = services.save_role(name="web", dependencies=[base])
    deploy = services.save_credential(name="deploy", username="ops", secret="hunter2-secret")
    web1 = services.save_server(
        name="web1",
        agent_type="ssh",
        host="10.0.0.1",
        credential=deploy,
        roles=[web],
        environments=[eu],
    )
    return {
        "production": production,
        "eu": eu,
        "base": base,
        "web": web,
        "deploy": deploy,
        "web1": web1,
    }


@pytest.fixture
def viewer(client_with):
    return client_with(*(f"inventory.view_{model}" for model in MODELS))


def html(response) -> str:
    return response.content.decode()


def field_errors(page: str, field_id: str) -> str:
    """The text of the field group that holds the control ``field_id``: its label, errors, help."""
    found = re.search(rf'<div>((?:(?!<div>).)*?id="{field_id}".*?)</div>', page, re.S)
    assert found, f"no field {field_id} in the page"
    return found.group(1)


PAGES = [
    ("environment-list", []),
    ("environment-detail", ["production"]),
    ("role-list", []),
    ("role-detail", ["web"]),
    ("server-list", []),
    ("server-detail", ["web1"]),
    ("server-variables-page", ["web1"]),
    ("credential-list", []),
    ("credential-detail", ["deploy"]),
    ("variable-list", []),
]


@pytest.mark.parametrize(("name", "args"), PAGES)
def test_inventory_page_renders_for_a_user_with_view_permission(
    viewer, inventory, name, args
) -> None:
    response = viewer.get(reverse(name, args=args))
    assert response.status_code == 200
    assert 'class="page-header"' in html(response)


@pytest.mark.parametrize(("name", "args"), PAGES)
def test_inventory_page_is_forbidden_without_view_permission(
    client, user_with, inventory, name, args
) -> None:
    client.force_login(user_with("executions.view_execution"))
    assert client.get(reverse(name, args=args)).status_code == 403
    client.logout()
    assert client.get(reverse(name, args=args)).status_code == 302


@pytest.mark.parametrize(
    ("name", "args"),
    [(f"{model}-create", []) for model in MODELS[:4]]
    + [
        (f"{model}-{action}", [obj])
        for model, obj in [
            ("environment", "production"),
            ("role", "web"),
            ("server", "web1"),
            ("credential", "deploy"),
        ]
        for action in ("edit", "delete")
    ],
)
def test_inventory_write_page_is_forbidden_with_view_permission_only(
    viewer, inventory, name, args
) -> None:
    assert viewer.get(reverse(name, args=args)).status_code == 403
    assert viewer.post(reverse(name, args=args), {"name": "x"}).status_code == 403


def test_inventory_buttons_are_shown_only_with_the_permission(client_with, inventory) -> None:
    client = client_with("inventory.view_server", "inventory.view_variable")
    page = html(client.get(reverse("server-detail", args=["web1"])))
    assert reverse("server-edit", args=["web1"]) not in page
    assert reverse("server-delete", args=["web1"]) not in page
    assert "Add a variable" not in page
    client = client_with(
        "inventory.view_server",
        "inventory.change_server",
        "inventory.view_variable",
        "inventory.add_variable",
    )
    page = html(client.get(reverse("server-detail", args=["web1"])))
    assert reverse("server-edit", args=["web1"]) in page
    assert reverse("server-delete", args=["web1"]) not in page
    assert "Add a variable" in page


# ---- environments


def test_environment_list_shows_the_tree(viewer, inventory) -> None:
    page = html(viewer.get(reverse("environment-list")))
    production = page.index(reverse("environment-detail", args=["production"]))
    nested = page.index("<ul>", production)
    assert nested < page.index(reverse("environment-detail", args=["production-eu"]))
    assert reverse("variable-list") in page
    # the servers of an environment inside it count for it too
    assert "· 1 server (0 directly)" in page and "· 1 server</span>" in page


def test_environment_page_shows_children_and_servers(viewer, inventory) -> None:
    page = html(viewer.get(reverse("environment-detail", args=["production"])))
    assert reverse("environment-detail", args=["production-eu"]) in page
    page = html(viewer.get(reverse("environment-detail", args=["production-eu"])))
    assert reverse("server-detail", args=["web1"]) in page


def test_environment_create_edit_delete(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("environment-create"),
        {"name": "testing", "parent": inventory["production"].pk, "description": "one\r\ntwo"},
    )
    assert response.status_code == 302
    testing = Environment.objects.get(name="testing")
    assert response["Location"] == reverse("environment-detail", args=["testing"])
    assert testing.parent == inventory["production"]
    assert testing.description == "one\ntwo"  # browsers send \r\n; text is stored with \n
    response = admin_client.post(
        reverse("environment-edit", args=["testing"]),
        {"name": "staging", "parent": "", "description": ""},
    )
    assert response.status_code == 302
    testing.refresh_from_db()
    assert (testing.name, testing.parent) == ("staging", None)
    assert "Delete the environment staging?" in html(
        admin_client.get(reverse("environment-delete", args=["staging"]))
    )
    assert admin_client.post(reverse("environment-delete", args=["staging"])).status_code == 302
    assert not Environment.objects.filter(name="staging").exists()


def test_environment_delete_is_refused_while_it_has_children(admin_client, inventory) -> None:
    url = reverse("environment-delete", args=["production"])
    page = html(admin_client.get(url))
    assert "contains other environments (production-eu)" in page
    assert 'class="danger"' not in page  # no button to press
    response = admin_client.post(url)
    assert response.status_code == 409
    assert "contains other environments" in html(response)
    assert Environment.objects.filter(name="production").exists()


def test_environment_edit_refuses_a_parent_inside_it(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("environment-edit", args=["production"]),
        {"name": "production", "parent": inventory["eu"].pk, "description": ""},
    )
    assert response.status_code == 200
    assert "errorlist" in field_errors(html(response), "id_parent")
    with pytest.raises(Exception, match="cannot also be its parent"):
        services.save_environment(
            environment=inventory["production"], name="production", parent=inventory["eu"]
        )


def test_environment_create_refuses_a_name_in_use_beside_the_field(admin_client, inventory) -> None:
    response = admin_client.post(reverse("environment-create"), {"name": "production"})
    assert response.status_code == 200
    group = field_errors(html(response), "id_name")
    assert "There is already an environment of that name." in group
    assert 'value="production"' in group


# ---- roles


def test_role_page_shows_servers_dependencies_and_dependents(viewer, inventory) -> None:
    services.save_role(name="shop", dependencies=[inventory["web"]])
    page = html(viewer.get(reverse("role-detail", args=["web"])))
    assert reverse("server-detail", args=["web1"]) in page
    needs, needed_by = page.index("Needs</h2>"), page.index("Needed by</h2>")
    assert needs < page.index(reverse("role-detail", args=["base"])) < needed_by
    assert page.index(reverse("role-detail", args=["shop"])) > needed_by


def test_role_create_edit_delete(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("role-create"), {"name": "db", "dependencies": [inventory["base"].pk]}
    )
    assert response.status_code == 302
    assert list(Role.objects.get(name="db").dependencies.all()) == [inventory["base"]]
    admin_client.post(reverse("role-edit", args=["db"]), {"name": "db", "description": "SQL"})
    db = Role.objects.get(name="db")
    assert (db.description, list(db.dependencies.all())) == ("SQL", [])
    page = html(admin_client.get(reverse("role-delete", args=["web"])))
    assert "These servers will no longer have this role: web1." in page
    assert admin_client.post(reverse("role-delete", args=["web"])).status_code == 302
    assert not Role.objects.filter(name="web").exists()


def test_role_edit_refuses_a_circle_of_dependencies(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("role-edit", args=["base"]), {"name": "base", "dependencies": [inventory["web"].pk]}
    )
    assert response.status_code == 200
    assert "in a circle: base → web → base" in field_errors(html(response), "id_dependencies")
    assert not inventory["base"].dependencies.exists()


# ---- servers


def test_server_create_edit_delete(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("server-create"),
        {
            "name": "db1",
            "host": "db.example.org",
            "port": "2222",
            "agent_type": "ssh",
            "credential": inventory["deploy"].pk,
            "roles": [inventory["base"].pk],
            "environments": [inventory["production"].pk],
            "active": "on",
            "description": "a\r\nb",
        },
    )
    assert response.status_code == 302
    db1 = Server.objects.get(name="db1")
    assert (db1.port, db1.credential, db1.description) == (2222, inventory["deploy"], "a\nb")
    assert list(db1.environments.all()) == [inventory["production"]]
    response = admin_client.post(
        reverse("server-edit", args=["db1"]), {"name": "db1", "port": "22", "agent_type": "local"}
    )
    assert response.status_code == 302
    db1.refresh_from_db()
    assert (db1.active, db1.credential, list(db1.roles.all())) == (False, None, [])
    assert admin_client.post(reverse("server-delete", args=["db1"])).status_code == 302
    assert not Server.objects.filter(name="db1").exists()


def test_server_page_shows_resolved_variables_and_a_recent_execution(
    client_with, inventory
) -> None:
    services.add_variable(name="Port", value="8080", environment=inventory["production"])
    services.add_variable(name="Password", value="s3cr3t-value", sensitive=True)
    job = Job.objects.create(name="Deploy shop", script="Log-Information hi;", targets=["web1"])
    execution = Execution.objects.create(job=job)
    other = Execution.objects.create(
        job=Job.objects.create(name="Elsewhere", script="", targets=["web10"])
    )
    client = client_with(
        "inventory.view_server", "inventory.view_variable", "executions.view_execution"
    )
    page = html(client.get(reverse("server-detail", args=["web1"])))
    assert "8080" in page and "environment production" in page
    assert "Password" in page and "s3cr3t-value" not in page
    assert reverse("execution-detail", args=[execution.pk]) in page and "Deploy shop" in page
    assert reverse("execution-detail", args=[other.pk]) not in page


# ---- credentials


def test_credential_secret_is_write_only_on_its_pages(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("credential-create"),
        {
            "name": "api",
            "kind": "token",
            "username": "",
            "secret": "tok-abcdef-123",
            "environments": [inventory["production"].pk],
            "description": "",
        },
    )
    assert response.status_code == 302
    api = Credential.objects.get(name="api")
    assert api.secret() == "tok-abcdef-123"
    for url in (
        reverse("credential-detail", args=["api"]),
        reverse("credential-edit", args=["api"]),
        reverse("credential-list"),
    ):
        assert "tok-abcdef-123" not in html(admin_client.get(url))
    admin_client.post(
        reverse("credential-edit", args=["api"]),
        {"name": "api", "kind": "token", "username": "bot", "secret": ""},
    )
    api.refresh_from_db()
    assert (api.username, api.secret(), list(api.environments.all())) == (
        "bot",
        "tok-abcdef-123",
        [],
    )


def test_credential_private_key_is_stored_with_lf(admin_client, inventory) -> None:
    key = "-----BEGIN KEY-----\r\nabc\r\n-----END KEY-----\r\n"
    admin_client.post(
        reverse("credential-edit", args=["deploy"]),
        {"name": "deploy", "kind": "private_key", "private_key": key},
    )
    assert Credential.objects.get(name="deploy").secret() == key.replace("\r\n", "\n")


def test_credential_form_error_does_not_show_the_secret_again(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("credential-create"), {"name": "deploy", "kind": "token", "secret": "tok-typed-999"}
    )
    assert response.status_code == 200
    assert "errorlist" in field_errors(html(response), "id_name")
    assert "tok-typed-999" not in html(response)


def test_credential_delete_is_refused_while_servers_use_it(admin_client, inventory) -> None:
    response = admin_client.post(reverse("credential-delete", args=["deploy"]))
    assert response.status_code == 409
    assert "Servers log in with deploy (web1)" in html(response)
    assert Credential.objects.filter(name="deploy").exists()
    services.save_server(server=inventory["web1"], name="web1", credential=None)
    assert admin_client.post(reverse("credential-delete", args=["deploy"])).status_code == 302
    assert not Credential.objects.filter(name="deploy").exists()


# ---- variables on each scope's page


SCOPES = [("server", "web1"), ("environment", "production"), ("role", "web"), ("", None)]


def scope_page(scope: str, name: str | None) -> str:
    return reverse(f"{scope}-detail", args=[name]) if scope else reverse("variable-list")


def scope_of(inventory, scope: str, name: str | None) -> dict:
    if not scope:
        return {"server": None, "environment": None, "role": None}
    return {
        scope: {
            "web1": inventory.get("web1"),
            "production": inventory.get("production"),
            "web": inventory.get("web"),
        }[name]
    }


@pytest.mark.parametrize(("scope", "name"), SCOPES)
def test_variable_add_change_delete_on_its_scope_page(admin_client, inventory, scope, name) -> None:
    url = scope_page(scope, name)
    response = admin_client.post(url, {"new-name": "Hosts", "new-value": "@(a, b)"})
    assert response.status_code == 302 and response["Location"] == url + "#variables"
    variable = Variable.objects.get(name="Hosts", **scope_of(inventory, scope, name))
    assert variable.value == "@(a, b)"
    page = html(admin_client.get(url, {"edit": variable.pk}))
    assert f'name="variable-{variable.pk}-value"' in page
    prefix = f"variable-{variable.pk}"
    response = admin_client.post(
        url, {"variable": variable.pk, f"{prefix}-name": "Servers", f"{prefix}-value": "%(web: 2)"}
    )
    assert response.status_code == 302
    variable.refresh_from_db()
    assert (variable.name, variable.value) == ("Servers", "%(web: 2)")
    delete = reverse("variable-delete", args=[variable.pk])
    assert delete in html(admin_client.get(url))
    assert "Delete the variable Servers" in html(admin_client.get(delete))
    response = admin_client.post(delete)
    assert response.status_code == 302 and response["Location"] == url + "#variables"
    assert not Variable.objects.filter(pk=variable.pk).exists()


@pytest.mark.parametrize(("scope", "name"), SCOPES)
def test_variable_sensitive_value_is_never_in_the_html_after_save(
    admin_client, inventory, scope, name
) -> None:
    url = scope_page(scope, name)
    admin_client.post(
        url, {"new-name": "Token", "new-value": "tok-zz-secret", "new-sensitive": "on"}
    )
    variable = Variable.objects.get(name="Token")
    assert variable.sensitive and variable.literal() == "tok-zz-secret"
    assert "tok-zz-secret" not in html(admin_client.get(url))
    assert "tok-zz-secret" not in html(admin_client.get(url, {"edit": variable.pk}))
    assert "tok-zz-secret" not in html(admin_client.get(reverse("server-detail", args=["web1"])))
    prefix = f"variable-{variable.pk}"
    response = admin_client.post(
        url,
        {
            "variable": variable.pk,
            f"{prefix}-name": "ApiToken",
            f"{prefix}-value": "",
            f"{prefix}-sensitive": "on",
        },
    )
    assert response.status_code == 302
    variable.refresh_from_db()
    assert (variable.name, variable.literal()) == ("ApiToken", "tok-zz-secret")  # empty kept it


def test_variable_errors_are_shown_beside_the_field_with_the_input_kept(
    admin_client, inventory
) -> None:
    url = reverse("server-detail", args=["web1"])
    response = admin_client.post(url, {"new-name": "Hosts", "new-value": "@(unclosed"})
    assert response.status_code == 200
    group = field_errors(html(response), "id_new-value")
    assert "value:1:10: error: unexpected end" in group and "@(unclosed" in group
    assert "errorlist" not in field_errors(html(response), "id_new-name")
    services.add_variable(name="Port", value="80", server=inventory["web1"])
    response = admin_client.post(url, {"new-name": "port", "new-value": "81"})
    assert "This server already has a variable named port." in field_errors(
        html(response), "id_new-name"
    )
    assert Variable.objects.filter(server=inventory["web1"]).count() == 1


def test_variable_edit_needs_the_change_permission(client_with, inventory) -> None:
    variable = services.add_variable(name="Port", value="80", role=inventory["web"])
    client = client_with("inventory.view_role", "inventory.view_variable", "inventory.add_variable")
    url = reverse("role-detail", args=["web"])
    prefix = f"variable-{variable.pk}"
    response = client.post(
        url, {"variable": variable.pk, f"{prefix}-name": "Port", f"{prefix}-value": "1"}
    )
    assert response.status_code == 403
    assert Variable.objects.get(pk=variable.pk).value == "80"
    assert client.get(reverse("variable-delete", args=[variable.pk])).status_code == 403


def test_variable_with_two_scopes_is_refused_in_english(inventory) -> None:
    with pytest.raises(Exception) as refused:
        services.add_variable(name="x", value="1", server=inventory["web1"], role=inventory["web"])
    assert refused.value.message_dict == {
        key: [
            "A variable belongs to one place: a server, an environment, a role, or none "
            "(global). Choose at most one."
        ]
        for key in ("server", "role")
    }


# ---- the admin


def inline_post(parent: dict, rows: list[dict], initial: int = 0) -> dict:
    data = {
        **parent,
        "variables-TOTAL_FORMS": str(len(rows)),
        "variables-INITIAL_FORMS": str(initial),
        "variables-MIN_NUM_FORMS": "0",
        "variables-MAX_NUM_FORMS": "1000",
    }
    for index, row in enumerate(rows):
        data.update({f"variables-{index}-{key}": value for key, value in row.items()})
    return data


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        ("environment", {"parent": ""}),
        ("role", {}),
        ("server", {"port": "22", "agent_type": "local", "active": "on"}),
    ],
)
def test_admin_saves_variables_typed_into_the_inline(admin_client, model, fields) -> None:
    response = admin_client.post(
        reverse(f"admin:inventory_{model}_add"),
        inline_post(
            {"name": "added", "description": "", **fields},
            [{"name": "Port", "value": "80"}, {"name": "Hosts", "value": "@(a, b)"}],
        ),
    )
    assert response.status_code == 302
    owner = Variable._meta.get_field(model).related_model.objects.get(name="added")
    assert sorted(owner.variables.values_list("name", "value")) == [
        ("Hosts", "@(a, b)"),
        ("Port", "80"),
    ]


def test_admin_inline_hides_sensitive_values_and_keeps_them_when_left_empty(
    admin_client, inventory
) -> None:
    production = inventory["production"]
    secret = services.add_variable(
        name="Token", value="tok-inline-77", sensitive=True, environment=production
    )
    url = reverse("admin:inventory_environment_change", args=[production.pk])
    page = html(admin_client.get(url))
    assert "tok-inline-77" not in page and "leave empty to keep" in page
    response = admin_client.post(
        url,
        inline_post(
            {"name": "production", "description": "", "parent": ""},
            [
                {
                    "id": secret.pk,
                    "environment": production.pk,
                    "name": "Token",
                    "value": "",
                    "sensitive": "on",
                },
                {"environment": production.pk, "name": "Port", "value": "80"},
            ],
            initial=1,
        ),
    )
    assert response.status_code == 302
    assert Variable.objects.get(pk=secret.pk).literal() == "tok-inline-77"
    assert production.variables.filter(name="Port", value="80").exists()


def test_admin_inline_refuses_two_rows_of_one_name_beside_the_row(admin_client, inventory) -> None:
    production = inventory["production"]
    response = admin_client.post(
        reverse("admin:inventory_environment_change", args=[production.pk]),
        inline_post(
            {"name": "production", "description": "", "parent": ""},
            [
                {"environment": production.pk, "name": "Port", "value": "80"},
                {"environment": production.pk, "name": "port", "value": "81"},
            ],
        ),
    )
    assert response.status_code == 200
    assert "Another row has a variable of that name." in html(response)
    assert not production.variables.exists()


def test_admin_variable_with_two_scopes_reads_as_english_beside_the_fields(
    admin_client, inventory
) -> None:
    response = admin_client.post(
        reverse("admin:inventory_variable_add"),
        {
            "name": "x",
            "value": "1",
            "server": inventory["web1"].pk,
            "role": inventory["web"].pk,
            "environment": "",
        },
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert set(errors) == {"server", "role"}
    assert "A variable belongs to one place" in errors["server"][0]
    assert not Variable.objects.exists()


def test_admin_refuses_a_circle_beside_the_field(admin_client, inventory) -> None:
    production, web, base = inventory["production"], inventory["web"], inventory["base"]
    environment = admin_client.post(
        reverse("admin:inventory_environment_change", args=[production.pk]),
        inline_post({"name": "production", "description": "", "parent": inventory["eu"].pk}, []),
    )
    assert environment.status_code == 200
    assert environment.context["adminform"].form.errors["parent"] == [
        "production-eu is inside production: it cannot also be its parent."
    ]
    role = admin_client.post(
        reverse("admin:inventory_role_change", args=[base.pk]),
        inline_post({"name": "base", "description": "", "dependencies": [web.pk]}, []),
    )
    assert role.status_code == 200
    assert "circle" in role.context["adminform"].form.errors["dependencies"][0]
    assert Environment.objects.get(pk=production.pk).parent is None
    assert not base.dependencies.exists()


def test_admin_saves_a_servers_roles_and_moves_a_variable_through_the_services(
    admin_client, inventory
) -> None:
    response = admin_client.post(
        reverse("admin:inventory_server_add"),
        inline_post(
            {
                "name": "db1",
                "description": "",
                "port": "22",
                "agent_type": "local",
                "active": "on",
                "roles": [inventory["base"].pk],
                "environments": [inventory["eu"].pk],
            },
            [],
        ),
    )
    assert response.status_code == 302
    db1 = Server.objects.get(name="db1")
    assert [r.name for r in db1.roles.all()] == ["base"]
    port = services.add_variable(name="Port", value="80", server=db1)
    services.add_variable(name="Port", value="81", role=inventory["web"])
    clash = {
        "name": "port",
        "value": "80",
        "server": "",
        "environment": "",
        "role": inventory["web"].pk,
    }
    response = admin_client.post(reverse("admin:inventory_variable_change", args=[port.pk]), clash)
    assert "This role already has a variable named port." in html(response)
    moved = {**clash, "name": "Port", "role": inventory["base"].pk}
    response = admin_client.post(reverse("admin:inventory_variable_change", args=[port.pk]), moved)
    assert response.status_code == 302
    port.refresh_from_db()
    assert (port.server, port.role) == (None, inventory["base"])


def test_admin_delete_action_deletes_each_role(admin_client, inventory) -> None:
    response = admin_client.post(
        reverse("admin:inventory_role_changelist"),
        {"action": "delete_selected", "_selected_action": [inventory["web"].pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert list(Role.objects.values_list("name", flat=True)) == ["base"]
    assert list(inventory["web1"].roles.all()) == []
