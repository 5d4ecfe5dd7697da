"""Secrets stay secret: credentials only where their environments allow, sensitive variables
masked in every form a run can print them, never shown by the API or the admin, and encrypted
at rest."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from otterweb import secrets
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Environment, Role, Server, Variable

pytestmark = pytest.mark.django_db(transaction=True)

API_SECRET = "listener-s3cret-token"


class Listener:
    """An HTTP server on 127.0.0.1 that keeps the Authorization header of every request."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append(self.headers.get("Authorization"))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> Listener:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    with Listener() as listening:
        yield listening


@pytest.fixture
def limited_credential():
    """The credential 'api', limited to production; web1 is in production (through its child
    eu), web2 in test."""
    production = Environment.objects.create(name="production")
    eu = Environment.objects.create(name="eu", parent=production)
    test = Environment.objects.create(name="test")
    for name, environment in (("web1", eu), ("web2", test), ("bare", None)):
        server = Server.objects.create(name=name)
        if environment is not None:
            server.environments.add(environment)
    return inventory.save_credential(
        name="api", username="deployer", secret=API_SECRET, environments=[production]
    )


def run(script: str, **targets) -> Execution:
    execution = create_job(script=script, **targets)
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    return execution


def messages(execution: Execution) -> list[str]:
    return list(
        LogEntry.objects.filter(execution_id=execution.pk)
        .order_by("seq")
        .values_list("message", flat=True)
    )


# ---- credential environment limits -----------------------------------------------------------


def test_credential_environment_limits_refuse_use_outside_them(
    limited_credential, listener
) -> None:
    request = f"Get-Http {listener.url} (Credentials: api);"
    on_test = run(request, servers=["web2"])
    on_no_environment = run(request, servers=["bare"])
    untargeted = run(f"for server web1 {{ Log-Information inside; }}\n{request}")
    assert listener.received == []
    assert (on_test.status, on_no_environment.status, untargeted.status) == ("error",) * 3
    assert (
        "credential 'api' may only be used in the environments production, and server web2 is "
        "in test: it was not used" in messages(on_test)
    )
    assert any("server bare is in no environment" in m for m in messages(on_no_environment))
    assert any(
        "this run has no target server, so it is in no environment" in m
        for m in messages(untargeted)
    )


def test_credential_environment_limits_allow_use_inside_them(limited_credential, listener) -> None:
    execution = run(
        f"Get-Http {listener.url} (Credentials: api);\nLog-Information sent {API_SECRET};",
        servers=["web1"],
    )
    assert execution.status == "normal", messages(execution)
    assert len(listener.received) == 1 and listener.received[0].startswith("Basic ")
    assert f"sent {API_SECRET}" not in messages(execution)
    assert "sent ********" in messages(execution)


# ---- credential kinds ---------------------------------------------------------------------------

PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nZQXJ-not-for-http\n-----END OPENSSH PRIVATE KEY-----\n"
)


def test_http_operation_refuses_a_private_key_credential_before_sending(db, listener) -> None:
    Server.objects.create(name="web1")
    inventory.save_credential(
        name="sshkey", kind="private_key", username="deploy", secret=PRIVATE_KEY
    )
    for name, arguments in (("Get-Http", ""), ("Post-Http", ", TextData: x")):
        script = f"{name} {listener.url} (Credentials: sshkey{arguments});"
        execution = run(script, servers=["web1"])
        assert execution.status == "error"
        assert any(
            f"credential 'sshkey' is a private key, and {name} takes only a user name and "
            "password or a token: it was not used, and nothing was sent" in message
            for message in messages(execution)
        ), messages(execution)
        assert not any("ZQXJ" in message for message in messages(execution))
    assert listener.received == []  # not one request reached it


def test_http_operation_sends_a_token_credential_as_a_bearer_token(db, listener) -> None:
    Server.objects.create(name="web1")
    inventory.save_credential(name="ci", kind="token", secret="tok-ZQXJ-123")
    execution = run(f"Get-Http {listener.url} (Credentials: ci);", servers=["web1"])
    assert execution.status == "normal", messages(execution)
    assert listener.received == ["Bearer tok-ZQXJ-123"]


# ---- sensitive values in every form, and everywhere they could show -----------------------------

# Every form a run can print a sensitive value in: a scalar, list elements one by one and joined,
# a map's values, JSON, and through the shell and Python, on the local server.
PRINT_EVERYTHING = """
Log-Information scalar $Token;
foreach $host in @Hosts { Log-Information element $host; }
Log-Information item $ListItem(@Hosts, 1) and $MapItem(%Db, password);
Log-Information joined $Join(",", @Hosts);
Log-Warning json $ToJson(@Hosts) $ToJson(%Db);
# Printed by $Token
{
    SHExec >>echo "`$tv"; echo "`$lv"; echo "`$mv"; printf '%s\\n' "`$mv" >&2>> (
        Variables: %(tv: $Token, lv: $Join(" ", @Hosts), mv: $ToJson(%Db)),
        ErrorOutputLogLevel: Information
    );
    PYExec >>import json
print(tv, json.loads(lv), json.loads(mv))
print(" ".join(json.loads(lv)), repr(json.loads(mv)["password"]), json.dumps(json.loads(mv)))>> (
        Variables: %(tv: $Token, lv: $ToJson(@Hosts), mv: $ToJson(%Db))
    );
}
Log-Error last $ListItem(@Hosts, 0);
"""


MARKER = "ZQXJ"  # in every sensitive leaf, and nowhere else
CSRF_TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")  # random; one in 240,000 holds MARKER


@pytest.fixture
def sensitive() -> list[str]:
    """A sensitive text, list and map on three scopes; returns every text leaf."""
    production = Environment.objects.create(name="production")
    web = Role.objects.create(name="web")
    server = Server.objects.create(name="web1")
    server.environments.add(production)
    server.roles.add(web)
    inventory.set_variable(name="Token", value="tok-ZQXJalpha-1234", sensitive=True)
    inventory.set_variable(
        name="Hosts",
        value='@(list-ZQXJbeta-5678, "list ZQXJgamma,9012")',
        sensitive=True,
        environment=production,
    )
    inventory.set_variable(
        name="Db",
        value='%(user: map-ZQXJdelta-3456, password: "map-ZQXJeps`"ilon\\7890-ünï")',
        sensitive=True,
        role=web,
    )
    inventory.set_variable(name="Port", value="8080", server=server)  # an ordinary one
    leaves = []
    for variable in Variable.objects.filter(sensitive=True):
        value = variable.runtime_value()
        items = value.values() if isinstance(value, dict) else value
        leaves.extend([value] if isinstance(value, str) else items)
    assert len(leaves) == 5 and all(MARKER in leaf for leaf in leaves)
    assert any('"' in leaf and "\\" in leaf for leaf in leaves)
    return leaves


def forms_of(leaves: list[str]) -> set[str]:
    """Each leaf as written, as JSON writes it, and as Python's repr writes it."""
    found = set(leaves)
    for leaf in leaves:
        found |= {json.dumps(leaf)[1:-1], json.dumps(leaf, ensure_ascii=False)[1:-1]}
        found.add(repr(leaf)[1:-1])
    return found


def leaked(text: str, leaves: list[str]) -> list[str]:
    """The forms of the leaves in ``text``, and MARKER if any part of one is there: each leaf
    has it, so a value a process changed (echo's escapes, a split) is found too."""
    text = CSRF_TOKEN.sub("", text)
    found = sorted(form for form in forms_of(leaves) if form in text)
    return [*found, MARKER] if MARKER in text else found


def view_only_staff(user_with):
    """A staff user with every view permission there is, and no other."""
    views = Permission.objects.filter(codename__startswith="view_").select_related("content_type")
    names = (f"{view.content_type.app_label}.{view.codename}" for view in views)
    return user_with(*names, username="viewer", is_staff=True)


def admin_pages(client) -> dict[str, str]:
    """Every admin list page, and the change page of every object, by URL: what it shows."""
    pages = {}
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        urls = [reverse("admin:{}_{}_changelist".format(*info))]
        urls += [
            reverse("admin:{}_{}_change".format(*info), args=[pk])
            for pk in model._default_manager.values_list("pk", flat=True)[:20]
        ]
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            pages[url] = response.content.decode()
    return pages


@pytest.mark.slow
def test_secrets_never_leave_the_server_in_clear(
    sensitive, client, admin_client, django_user_model, user_with, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    execution = run(PRINT_EVERYTHING, servers=["web1"])
    logged = messages(execution)
    assert execution.status == "error"  # the last line is an error: its message is masked too
    assert "joined ********,********" in " ".join(logged)
    assert sum("********" in m for m in logged) >= 12, logged  # the script printed them all
    stored = [*logged, execution.error, *LogScope.objects.values_list("name", flat=True)]
    assert leaked("\n".join(stored), sensitive) == []

    api = APIClient()
    api.force_authenticate(django_user_model.objects.get(username="admin"))
    answers = [
        api.get(url).content.decode()
        for url in (
            "/api/variables/",
            *(f"/api/variables/{pk}/" for pk in Variable.objects.values_list("pk", flat=True)),
            "/api/servers/web1/variables/",
            "/api/executions/",
            f"/api/executions/{execution.pk}/",
            f"/api/executions/{execution.pk}/logs/",
            "/api/jobs/",
            f"/api/jobs/{execution.job_id}/",
        )
    ]
    assert "8080" in answers[0] and leaked("\n".join(answers), sensitive) == []

    pages = {
        url: admin_client.get(url).content.decode()
        for url in (
            reverse("execution-detail", args=[execution.pk]),
            reverse("server-detail", args=["web1"]),
            reverse("server-variables-page", args=["web1"]),
        )
    }
    pages |= admin_pages(admin_client)
    client.force_login(view_only_staff(user_with))
    pages |= {f"viewer {url}": html for url, html in admin_pages(client).items()}
    variable_pages = [url for url in pages if "/inventory/variable/" in url]
    assert len(variable_pages) >= 10  # list and change pages, for both
    assert {
        url: leaked(html, sensitive) for url, html in pages.items() if leaked(html, sensitive)
    } == {}

    assert leaked(caplog.text, sensitive) == []


def test_sensitive_variable_is_encrypted_at_rest(sensitive) -> None:
    with connection.cursor() as cursor:
        cursor.execute("select value, encrypted_value from inventory_variable where sensitive")
        rows = cursor.fetchall()
    assert len(rows) == 3 and leaked(repr(rows), sensitive) == []
    assert all(value == "" and encrypted for value, encrypted in rows)
    assert Variable.objects.get(name="Token").literal() == "tok-ZQXJalpha-1234"


def test_sensitive_variable_made_ordinary_is_decrypted_and_back(sensitive) -> None:
    token = Variable.objects.get(name="Token")
    inventory.change_variable(variable=token, name="Token", value="plain-now", sensitive=False)
    token.refresh_from_db()
    assert (token.value, token.encrypted_value) == ("plain-now", "")
    inventory.change_variable(variable=token, name="Token", value=None, sensitive=True)
    token.refresh_from_db()
    assert token.value == "" and token.literal() == "plain-now"


def test_sensitive_variable_made_ordinary_needs_its_value_again(sensitive, django_user_model):
    api = APIClient()
    api.force_authenticate(django_user_model.objects.create_superuser("root", password="x-1-y"))
    token = Variable.objects.get(name="Token")
    response = api.patch(f"/api/variables/{token.pk}/", {"sensitive": False}, format="json")
    assert response.status_code == 400 and "type its value again" in response.content.decode()
    assert "tok-ZQXJalpha-1234" not in api.get(f"/api/variables/{token.pk}/").content.decode()
    renamed = api.patch(f"/api/variables/{token.pk}/", {"name": "ApiToken"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["value"] == "********"
    assert Variable.objects.get(pk=token.pk).literal() == "tok-ZQXJalpha-1234"


def test_admin_variable_made_ordinary_needs_its_value_again(sensitive, admin_client) -> None:
    token = Variable.objects.get(name="Token")
    response = admin_client.post(
        reverse("admin:inventory_variable_change", args=[token.pk]),
        {"name": "Token", "value": "", "server": "", "environment": "", "role": ""},
    )
    assert response.status_code == 200 and "type its value again" in response.content.decode()
    assert Variable.objects.get(pk=token.pk).sensitive


def test_admin_search_does_not_search_sensitive_values(sensitive, admin_client) -> None:
    url = reverse("admin:inventory_variable_changelist")
    assert "Port" in admin_client.get(url, {"q": "8080"}).content.decode()
    for guess in ("tok-ZQXJ", "ZQXJalpha-1234", "list-ZQXJbeta", "ZQXJgamma,9012", "map-ZQXJ"):
        page = admin_client.get(url, {"q": guess}).content.decode()
        assert "0 variables" in page and ">Token<" not in page, guess


def test_admin_view_only_staff_sees_sensitive_variables_masked(
    sensitive, client, user_with
) -> None:
    client.force_login(view_only_staff(user_with))
    token = Variable.objects.get(name="Token")
    page = client.get(reverse("admin:inventory_variable_change", args=[token.pk]))
    assert page.status_code == 200 and "********" in page.content.decode()
    production = Environment.objects.get(name="production")
    inline = client.get(reverse("admin:inventory_environment_change", args=[production.pk]))
    assert inline.status_code == 200 and "********" in inline.content.decode()
    port = client.get(
        reverse("admin:inventory_variable_change", args=[Variable.objects.get(name="Port").pk])
    )
    assert "8080" in port.content.decode()  # an ordinary value is shown as it is


def test_admin_view_only_staff_never_sees_a_credential_secret(client, user_with) -> None:
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAZQXJkey\n"
    credentials = [
        inventory.save_credential(
            name="deploy-key",
            kind="private_key",
            username="deploy",
            secret=key,
            passphrase="pass-ZQXJphrase",
        ),
        inventory.save_credential(
            name="db", kind="password", username="sa", secret="pw-ZQXJsecret"
        ),
    ]
    client.force_login(user_with("inventory.view_credential", username="viewer", is_staff=True))
    for credential in credentials:
        url = reverse("admin:inventory_credential_change", args=[credential.pk])
        response = client.get(url)
        page = response.content.decode()
        assert response.status_code == 200 and credential.name in page
        assert "ZQXJ" not in page, page[page.find("ZQXJ") - 200 : page.find("ZQXJ") + 50]
        assert "********" in page  # that a secret is stored is shown, never what it is


def test_migration_encrypts_existing_sensitive_values(db) -> None:
    from importlib import import_module

    from django.apps import apps

    migration = import_module("otterweb.inventory.migrations.0004_sensitive_values_encrypted")
    Variable.objects.create(name="Old", value="old-s3cret", sensitive=True)
    Variable.objects.filter(name="Old").update(value="old-s3cret", encrypted_value="")  # as before
    Variable.objects.create(name="Plain", value="plain")
    migration.encrypt_sensitive(apps, None)
    old = Variable.objects.get(name="Old")
    assert old.value == "" and old.literal() == "old-s3cret"
    assert Variable.objects.get(name="Plain").value == "plain"
    migration.decrypt_sensitive(apps, None)
    assert Variable.objects.get(name="Old").value == "old-s3cret"


def test_reencrypt_secrets_covers_sensitive_variables(sensitive, settings) -> None:
    from cryptography.fernet import Fernet

    before = dict(Variable.objects.values_list("name", "encrypted_value"))
    settings.PREVIOUS_ENCRYPTION_KEYS = [settings.ENCRYPTION_KEY]
    settings.ENCRYPTION_KEY = Fernet.generate_key().decode()
    output = io.StringIO()
    call_command("reencrypt_secrets", stdout=output)
    assert "3 sensitive variable values encrypted" in output.getvalue()
    settings.PREVIOUS_ENCRYPTION_KEYS = []
    assert Variable.objects.get(name="Db").runtime_value()["user"] == "map-ZQXJdelta-3456"
    assert all(
        before[name] != token and secrets.decrypt(token)
        for name, token in Variable.objects.exclude(encrypted_value="").values_list(
            "name", "encrypted_value"
        )
    )


def test_ssh_target_refuses_a_token_credential(db) -> None:
    from engine import AgentError, RunCredential
    from otterweb.inventory.checks import ssh_target

    server = Server.objects.create(name="s1", agent_type="ssh", host="192.0.2.1")
    token = RunCredential(name="ci", kind="token", secret="tok-ZQXJ")
    with pytest.raises(AgentError, match="'ci' is a token, and SSH takes only a private key or"):
        ssh_target(server, token)
