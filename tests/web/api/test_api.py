"""The REST API: every endpoint, 400 for bad input (one error body), 403 without permission."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from otterweb.accounts import tokens
from otterweb.execution_logs.models import LogEntry
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.inventory.models import Credential, Environment, Server

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("here")]


@pytest.fixture
def admin():
    client = APIClient()
    user = get_user_model().objects.create_superuser("root", password="pw-12345-x")
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.create(user=user)[1]}")
    return client


@pytest.fixture
def limited(client_with):
    """A user who may only view servers."""
    return client_with("inventory.view_server")


def test_api_requires_authentication() -> None:
    response = APIClient().get("/api/servers/")
    assert response.status_code in (401, 403)
    assert "detail" in response.json() and "code" in response.json()


def test_api_inventory_crud(admin) -> None:
    assert (
        admin.post("/api/environments/", {"name": "production"}, format="json").status_code == 201
    )
    assert (
        admin.post(
            "/api/environments/", {"name": "production-eu", "parent": "production"}, format="json"
        ).status_code
        == 201
    )
    assert admin.post("/api/roles/", {"name": "web"}, format="json").status_code == 201
    created = admin.post(
        "/api/servers/",
        {"name": "web1", "roles": ["web"], "environments": ["production-eu"]},
        format="json",
    )
    assert created.status_code == 201 and created.json()["roles"] == ["web"]
    assert (
        admin.patch("/api/servers/web1/", {"active": False}, format="json").json()["active"]
        is False
    )
    assert admin.get("/api/servers/web1/").json()["environments"] == ["production-eu"]
    assert admin.delete("/api/roles/web/").status_code == 204


def test_api_inventory_writes_refuse_what_the_services_refuse(admin) -> None:
    admin.post("/api/environments/", {"name": "production"}, format="json")
    admin.post("/api/environments/", {"name": "eu", "parent": "production"}, format="json")
    circle = admin.patch("/api/environments/production/", {"parent": "eu"}, format="json")
    assert circle.status_code == 400
    assert circle.json()["errors"]["parent"] == [
        "eu is inside production: it cannot also be its parent."
    ]
    assert Environment.objects.get(name="production").parent is None
    admin.post("/api/roles/", {"name": "base"}, format="json")
    admin.post("/api/roles/", {"name": "web", "dependencies": ["base"]}, format="json")
    loop = admin.patch("/api/roles/base/", {"dependencies": ["web"]}, format="json")
    assert loop.status_code == 400 and "circle" in loop.json()["errors"]["dependencies"][0]
    parent = admin.delete("/api/environments/production/")
    assert parent.status_code == 400 and "contains other environments" in parent.json()["detail"]
    assert Environment.objects.filter(name="production").exists()


def test_api_partial_updates_keep_the_fields_left_out(admin) -> None:
    admin.post("/api/roles/", {"name": "base"}, format="json")
    admin.post("/api/roles/", {"name": "web", "dependencies": ["base"]}, format="json")
    assert admin.patch("/api/roles/web/", {"description": "front"}, format="json").json()[
        "dependencies"
    ] == ["base"]
    admin.post("/api/credentials/", {"name": "deploy", "secret": "s3cret"}, format="json")
    renamed = admin.patch("/api/credentials/deploy/", {"name": "ops"}, format="json")
    assert renamed.status_code == 200
    assert list(Credential.objects.values_list("name", flat=True)) == ["ops"]
    assert Credential.objects.get(name="ops").secret() == "s3cret"


def test_api_variables_are_literals_sensitive_masked_and_explained(admin) -> None:
    admin.post("/api/environments/", {"name": "production"}, format="json")
    admin.post("/api/servers/", {"name": "web1", "environments": ["production"]}, format="json")
    assert (
        admin.post(
            "/api/variables/",
            {"name": "Port", "value": "8080", "environment": "production"},
            format="json",
        ).status_code
        == 201
    )
    secret = admin.post(
        "/api/variables/",
        {"name": "Token", "value": "s3cr3t-token", "sensitive": True},
        format="json",
    )
    assert secret.json()["value"] == "********"
    bad = admin.post("/api/variables/", {"name": "Bad", "value": "@(open"}, format="json")
    assert (
        bad.status_code == 400
        and bad.json()["code"] == "invalid"
        and "value" in bad.json()["errors"]
    )
    both = admin.post(
        "/api/variables/",
        {"name": "X", "value": "1", "server": "web1", "environment": "production"},
        format="json",
    )
    assert both.status_code == 400
    explained = {v["name"]: v for v in admin.get("/api/servers/web1/variables/").json()}
    assert explained["Port"] == {
        "name": "Port",
        "value": "8080",
        "sensitive": False,
        "scope": "environment production",
        "shadowed": [],
    }
    assert explained["Token"]["value"] == "********"
    assert "s3cr3t-token" not in admin.get("/api/variables/").content.decode()


def test_api_credential_secret_is_write_only(admin) -> None:
    created = admin.post(
        "/api/credentials/",
        {"name": "deploy", "username": "ops", "secret": "hunter2-secret"},
        format="json",
    )
    assert created.status_code == 201
    body = created.json()
    assert "secret" not in body and body["has_secret"] is True and "encrypted_secret" not in body
    assert Credential.objects.get(name="deploy").secret() == "hunter2-secret"
    admin.patch("/api/credentials/deploy/", {"username": "ops2"}, format="json")
    assert Credential.objects.get(name="deploy").secret() == "hunter2-secret"
    assert "hunter2" not in admin.get("/api/credentials/deploy/").content.decode()


def test_api_rafts_items_versions_diff_restore(admin) -> None:
    admin.post("/api/rafts/", {"name": "main"}, format="json")
    item = admin.post(
        "/api/raft-items/",
        {"raft": "main", "name": "deploy", "content": "Log-Information one;\n"},
        format="json",
    ).json()
    assert item["version"] == 1
    changed = admin.patch(
        f"/api/raft-items/{item['id']}/",
        {"content": "Log-Information two;\n", "message": "two"},
        format="json",
    )
    assert changed.json()["version"] == 2
    versions = admin.get(f"/api/raft-item-versions/?item={item['id']}").json()["results"]
    assert [v["number"] for v in versions] == [2, 1] and versions[0]["message"] == "two"
    diff = admin.get(f"/api/raft-item-versions/{versions[0]['id']}/diff/").json()["diff"]
    assert "-Log-Information one;" in diff and "+Log-Information two;" in diff
    restored = admin.post(f"/api/raft-item-versions/{versions[1]['id']}/restore/").json()
    assert restored["content"] == "Log-Information one;\n" and restored["version"] == 3
    broken = admin.post(
        "/api/raft-items/", {"raft": "main", "name": "bad", "content": "set $x 1;"}, format="json"
    )
    assert broken.status_code == 400 and "bad:1:8: error" in str(broken.json()["errors"])


def test_api_script_endpoints(admin) -> None:
    checked = admin.post("/api/scripts/check/", {"script": "break;"}, format="json").json()
    assert checked["diagnostics"][0]["severity"] == "warning"
    assert (
        admin.post(
            "/api/scripts/format/", {"script": "Exec x(Arguments:1);"}, format="json"
        ).json()["script"]
        == "Exec x\n(\n    Arguments: 1\n);\n"
    )
    workspace = admin.post(
        "/api/scripts/blocks/", {"script": "Log-Debug hi;"}, format="json"
    ).json()["workspace"]
    assert (
        admin.post("/api/scripts/unblocks/", {"workspace": workspace}, format="json").json()[
            "script"
        ]
        == "Log-Debug hi;"  # as it was written: blocks keep the text they came from
    )
    broken = admin.post("/api/scripts/check/", {"script": "set $x 1;"}, format="json")
    assert broken.status_code == 400
    body = broken.json()
    assert body["code"] == "script" and body["detail"].startswith(
        "the script does not parse: line 1, column 8"
    )
    assert body["diagnostics"][0]["line"] == 1 and body["diagnostics"][0]["column"] == 8
    assert admin.post("/api/scripts/check/", {"nothing": 1}, format="json").status_code == 400
    assert (
        admin.post(
            "/api/scripts/unblocks/",
            {"workspace": {"blocks": {"blocks": [{"type": "nope"}]}}},
            format="json",
        ).status_code
        == 400
    )


@pytest.mark.django_db(transaction=True)
def test_api_executions_start_follow_logs_and_cancel(admin) -> None:
    started = admin.post(
        "/api/executions/",
        {
            "script": "Log-Information one;\nLog-Warning two;",
            "mode": "execute",
            "servers": ["here"],
            "name": "nightly check",
        },
        format="json",
    )
    assert started.status_code == 201
    execution_id = started.json()["id"]
    assert Execution.objects.get(pk=execution_id).job.name == "nightly check"
    assert started.json()["run_state"] == "pending"
    run_execution(execution_id, worker="test")
    detail = admin.get(f"/api/executions/{execution_id}/").json()
    assert (detail["run_state"], detail["status"], detail["last_seq"]) == (
        "completed",
        "warning",
        2,
    )
    logs = admin.get(f"/api/executions/{execution_id}/logs/?after=1").json()
    assert [(e["seq"], e["level"], e["message"]) for e in logs] == [(2, "warning", "two")]
    assert admin.get(f"/api/executions/{execution_id}/logs/?after=x").status_code == 400
    pending = admin.post(
        "/api/executions/", {"script": "Log-Information x;", "servers": ["here"]}, format="json"
    ).json()
    cancelled = admin.post(f"/api/executions/{pending['id']}/cancel/")
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"


def test_api_execution_bad_input_is_400_with_a_clear_body(admin) -> None:
    for body, words in [
        ({}, "give either script or raft_item"),
        ({"script": "x;", "raft_item": 999}, "raft_item"),
        ({"script": "set $x 1;"}, "1:8: error"),
        (
            {"script": "Log-Information x;", "servers": ["nowhere"]},
            "no active server named nowhere",
        ),
        ({"script": "Log-Information x;", "mode": "sometimes"}, "is not a valid choice"),
    ]:
        response = admin.post("/api/executions/", body, format="json")
        assert response.status_code == 400, body
        assert words in str(response.json()), (body, response.json())
    assert Execution.objects.count() == 0


def test_api_without_permission_is_403_not_data(limited) -> None:
    assert limited.get("/api/servers/").status_code == 200
    for url in (
        "/api/credentials/",
        "/api/variables/",
        "/api/executions/",
        "/api/rafts/",
        "/api/jobs/",
    ):
        response = limited.get(url)
        assert response.status_code == 403, url
        assert "results" not in response.json()
    assert limited.post("/api/servers/", {"name": "x"}, format="json").status_code == 403
    assert (
        limited.post(
            "/api/executions/", {"script": "Log-Information x;"}, format="json"
        ).status_code
        == 403
    )


def test_api_logs_of_an_execution_need_view_permission(limited, admin) -> None:
    execution_id = admin.post(
        "/api/executions/", {"script": "Log-Information x;", "servers": ["here"]}, format="json"
    ).json()["id"]
    LogEntry.objects.create(
        execution_id=execution_id,
        seq=1,
        level=10,
        message="secret line",
        time="2026-01-01T00:00:00Z",
    )
    response = limited.get(f"/api/executions/{execution_id}/logs/")
    assert response.status_code == 403 and "secret line" not in response.content.decode()


def test_api_schema_and_docs_are_served(admin) -> None:
    schema = admin.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/executions/" in schema.content
    assert admin.get("/api/docs/").status_code == 200


@pytest.fixture
def template():
    from otterweb.executions.models import JobTemplate
    from otterweb.inventory.models import Environment, Role
    from otterweb.rafts.models import Raft
    from otterweb.rafts.services import save_item

    raft = Raft.objects.create(name="ops")
    item = save_item(
        raft=raft, name="deploy", kind="script", content="Log-Information $Version on $ServerName;"
    )
    web, production = Role.objects.create(name="web"), Environment.objects.create(name="production")
    for name in ("web1", "web2", "db1"):
        server = Server.objects.create(name=name)
        server.environments.add(production)
        if name.startswith("web"):
            server.roles.add(web)
    template = JobTemplate.objects.create(
        name="Deploy web", raft_item=item, targeting="roles", mode="execute"
    )
    template.prompt_fields.create(name="Version", required=True, description="the build")
    template.prompt_fields.create(name="Channel", default="stable", position=1)
    template.roles.add(web)
    template.environments.add(production)
    return template


@pytest.mark.django_db(transaction=True)  # the run stores its log on a thread of its own
def test_api_job_template_launch_runs_its_item_on_its_targets_with_prompted_values(
    admin, template
) -> None:
    launched = admin.post(
        f"/api/job-templates/{template.pk}/launch/",
        {"variables": {"version": "1.2"}, "simulate": True},
        format="json",
    )
    assert launched.status_code == 201, launched.json()
    job = launched.json()["job"]
    assert (job["name"], job["template"], job["targets"]) == (
        "Deploy web",
        template.pk,
        ["web1", "web2"],
    )
    assert job["variables"] == {"Version": "1.2", "Channel": "stable"}
    assert launched.json()["simulate"] is True and launched.json()["mode"] == "execute"
    run_execution(launched.json()["id"], worker="test")
    messages = [e.message for e in LogEntry.objects.filter(execution_id=launched.json()["id"])]
    assert sorted(messages) == ["1.2 on web1", "1.2 on web2"]


def test_api_job_template_launch_refuses_missing_and_unknown_variables(admin, template) -> None:
    missing = admin.post(f"/api/job-templates/{template.pk}/launch/", {}, format="json")
    assert missing.status_code == 400
    assert "needs a value for Version" in missing.json()["detail"]
    unknown = admin.post(
        f"/api/job-templates/{template.pk}/launch/",
        {"variables": {"Version": "1", "Colour": "red"}},
        format="json",
    )
    assert unknown.status_code == 400 and "does not ask for Colour" in unknown.json()["detail"]
    template.roles.clear()
    no_targets = admin.post(
        f"/api/job-templates/{template.pk}/launch/", {"variables": {"Version": "1"}}, format="json"
    )
    assert (
        no_targets.status_code == 400
        and "targets roles but names none" in no_targets.json()["detail"]
    )
    assert not Execution.objects.exists()


def test_api_job_template_launch_needs_the_run_permission(template, client_with) -> None:
    url = f"/api/job-templates/{template.pk}/launch/"
    body = {"variables": {"Version": "1"}}
    viewer = client_with("executions.view_jobtemplate")
    assert viewer.post(url, body, format="json").status_code == 403
    runner = client_with("executions.view_jobtemplate", "executions.run_jobtemplate")
    # its server is OtterWeb's own machine: that needs a permission of its own
    refused = runner.post(url, body, format="json")
    assert refused.status_code == 400 and "local server" in str(refused.json())
    local = client_with(
        "executions.view_jobtemplate",
        "executions.run_jobtemplate",
        "executions.run_on_local_server",
    )
    assert local.post(url, body, format="json").status_code == 201


def test_api_job_template_prompts_are_validated(admin, template) -> None:
    response = admin.patch(
        f"/api/job-templates/{template.pk}/",
        {"prompts": [{"name": "A"}, {"name": "a"}]},
        format="json",
    )
    assert response.status_code == 400 and "no name is used twice" in str(response.json())
    response = admin.patch(
        f"/api/job-templates/{template.pk}/",
        {"prompts": [{"name": "A", "colour": 1}]},
        format="json",
    )
    assert response.status_code == 400 and "colour" in str(response.json())


def test_api_cancel_needs_the_cancel_permission_not_add(admin, client_with) -> None:
    pending = admin.post(
        "/api/executions/", {"script": "Log-Information x;", "servers": ["here"]}, format="json"
    ).json()
    url = f"/api/executions/{pending['id']}/cancel/"
    refused = client_with("executions.view_execution").post(url)
    assert refused.status_code == 403
    assert refused.json()["detail"] == "You may not cancel executions."
    operator = client_with("executions.view_execution", "executions.cancel_execution")
    assert operator.post(url).status_code == 202


def test_api_throttle_answers_429_past_the_rate_per_user_and_per_address(
    admin, client_with, settings
) -> None:
    from django.core.cache import cache

    cache.clear()
    settings.OTTERWEB_API_THROTTLE_USER_RATE = "5/minute"
    settings.OTTERWEB_API_THROTTLE_ANON_RATE = "2/minute"
    try:
        assert [admin.get("/api/servers/").status_code for _ in range(5)] == [200] * 5
        throttled = admin.get("/api/servers/")
        assert throttled.status_code == 429
        assert throttled.json()["code"] == "throttled" and "throttled" in throttled.json()["detail"]
        assert int(throttled.headers["Retry-After"]) > 0
        assert admin.post("/api/servers/", {"name": "x"}, format="json").status_code == 429
        # another user has a count of their own, wherever they come from
        assert client_with("inventory.view_server").get("/api/servers/").status_code == 200
        # without a login: per address, the one the connection comes from (not a header's)
        anonymous = APIClient()
        for forged in ("10.0.0.1", "10.0.0.2"):
            answer = anonymous.get("/api/schema/", HTTP_X_FORWARDED_FOR=forged)
            assert answer.status_code == 200
        refused = anonymous.get(
            "/api/schema/", HTTP_X_FORWARDED_FOR="10.0.0.3", HTTP_ACCEPT="application/json"
        )
        assert refused.status_code == 429 and refused.json()["code"] == "throttled"
        assert APIClient(REMOTE_ADDR="192.0.2.9").get("/api/schema/").status_code == 200
    finally:
        cache.clear()
