"""The configuration API: rollups, a server's plan and checks, check now, and remediation plans
(made, approved, refused as stale with 409 or over the guard with 400); bad requests get 400
with a clear body, missing permissions 403."""

from __future__ import annotations

import pytest

from otterweb.configuration.models import RemediationPlan, ServerState
from otterweb.executions.models import Execution
from otterweb.inventory import services as inventory
from otterweb.rafts import services as rafts

VIEW = "inventory.view_server"
CHECK = "configuration.check_configuration"
LOCAL = "executions.run_on_local_server"  # the test servers are this machine
REMEDIATE = "configuration.remediate_server"


@pytest.fixture
def web(desired):
    base = desired.role("base", "Log-Information base;\n")
    role = desired.file_role("web", needs=[base], remediation="on-demand")
    production = desired.environment("production")
    for name in ("web1", "web2"):
        desired.server(name, role, environments=[production])
    return role


def run_pending(desired) -> None:
    desired.run(desired.pending_runs())


def test_api_check_now_checks_the_role_and_the_overview_rolls_up(desired, web, client_with) -> None:
    api = client_with(VIEW, CHECK, LOCAL)
    answer = api.post("/api/configuration/check/", {"role": "web"}, format="json")
    assert answer.status_code == 202, answer.json()
    assert len(answer.json()["executions"]) == 1 and answer.json()["skipped"] == {}
    run_pending(desired)
    overview = api.get("/api/configuration/").json()
    assert overview["overall"] | {} == {
        "name": "all servers", "state": "drifted", "servers": 2,
        "current": 0, "drifted": 2, "unknown": 0, "error": 0,
    }  # fmt: skip
    roles = {r["name"]: r["state"] for r in overview["roles"]}
    assert roles == {"base": "current", "web": "drifted"}
    assert [s["name"] for s in overview["servers"]] == ["web1", "web2"]
    assert overview["servers"][0]["roles"]["web"] == {"state": "drifted", "drift": 1}
    assert api.get("/api/configuration/?state=current&limit=1").json()["count"] == 0


def test_api_server_configuration_shows_plan_parts_and_checks(desired, web, client_with) -> None:
    api = client_with(VIEW, CHECK, LOCAL)
    api.post("/api/configuration/check/", {"server": "web1"}, format="json")
    run_pending(desired)
    found = api.get("/api/configuration/servers/web1/").json()
    assert found["roles"] == ["base", "web"] and found["state"] == "drifted"
    assert [p["role"] for p in found["parts"]] == ["base", "web"]
    lines = found["plan"].splitlines()
    first, last = found["parts"][1]["first_line"], found["parts"][1]["last_line"]
    assert lines[first - 1] == "# Role web" and "Ensure-File" in "\n".join(lines[first:last])
    (check,) = found["checks"]
    assert check["drift"][0]["role"] == "web" and check["drift"][0]["line"] == 1
    assert check["drift"][0]["raft_item"] == "config::web-config"


def test_api_plan_approve_runs_it_and_a_stale_one_is_409(desired, web, client_with) -> None:
    api = client_with(VIEW, CHECK, REMEDIATE, LOCAL)
    api.post("/api/configuration/check/", {"environment": "production"}, format="json")
    run_pending(desired)
    made = api.post("/api/configuration/plans/", {"role": "web"}, format="json")
    assert made.status_code == 201
    plan = made.json()
    assert [s["server"] for s in plan["servers"]] == ["web1", "web2"] and plan["stale"] == []
    stale = api.post("/api/configuration/plans/", {"server": "web1"}, format="json").json()
    api.post("/api/configuration/check/", {"server": "web1"}, format="json")
    run_pending(desired)
    refused = api.post(f"/api/configuration/plans/{stale['id']}/approve/", {}, format="json")
    assert refused.status_code == 409 and "stale" in refused.json()["detail"]
    approved = api.post(f"/api/configuration/plans/{plan['id']}/approve/", {}, format="json")
    assert approved.status_code == 409  # web1 was checked again after this one too
    fresh = api.post("/api/configuration/plans/", {"role": "web"}, format="json").json()
    approved = api.post(f"/api/configuration/plans/{fresh['id']}/approve/", {}, format="json")
    assert approved.status_code == 202
    (execution,) = approved.json()["executions"]
    assert Execution.objects.get(pk=execution["id"]).mode == "collect-execute"
    again = api.post(f"/api/configuration/plans/{fresh['id']}/approve/", {}, format="json")
    assert again.status_code == 400 and "approved" in again.json()["detail"]


def test_api_plan_over_the_guard_needs_confirm_count(desired, web, client_with, settings) -> None:
    settings.OTTERWEB_REMEDIATION_CONFIRM_OVER = 1
    api = client_with(VIEW, CHECK, REMEDIATE, LOCAL)
    api.post("/api/configuration/check/", {"role": "web"}, format="json")
    run_pending(desired)
    plan = api.post("/api/configuration/plans/", {"role": "web"}, format="json").json()
    url = f"/api/configuration/plans/{plan['id']}/approve/"
    refused = api.post(url, {"confirm_count": 1}, format="json")
    assert refused.status_code == 400 and "type their number" in refused.json()["detail"]
    assert RemediationPlan.objects.get(pk=plan["id"]).status == "proposed"
    assert api.post(url, {"confirm_count": 2}, format="json").status_code == 202


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "Name a server, a role or an environment"),
        ({"role": "nope"}, "nope"),
        ({"server": "web1", "role": "web"}, "named alone"),
        ({"server": ["web1"]}, "invalid"),
    ],
)
def test_api_check_now_refuses_a_bad_scope_with_400(desired, web, client_with, body, says) -> None:
    answer = client_with(VIEW, CHECK, LOCAL).post("/api/configuration/check/", body, format="json")
    assert answer.status_code == 400 and says in str(answer.json())
    assert not Execution.objects.exists()


def test_api_overview_refuses_bad_filters_with_400(desired, web, client_with) -> None:
    api = client_with(VIEW)
    assert api.get("/api/configuration/?state=purple").status_code == 400
    assert api.get("/api/configuration/?offset=x").status_code == 400


def test_api_configuration_needs_its_permissions(desired, web, client_with) -> None:
    viewer = client_with(VIEW)
    assert viewer.get("/api/configuration/").status_code == 200
    assert (
        viewer.post("/api/configuration/check/", {"role": "web"}, format="json").status_code == 403
    )
    assert (
        viewer.post("/api/configuration/plans/", {"role": "web"}, format="json").status_code == 403
    )
    assert client_with().get("/api/configuration/").status_code == 403
    assert not Execution.objects.exists()


def test_api_role_takes_a_configuration_and_a_policy(desired, client_with) -> None:
    api = client_with("inventory.add_role", "inventory.view_role", "inventory.change_role")
    item = desired.role("seed", "Log-Information x;").configuration
    made = api.post(
        "/api/roles/",
        {"name": "app", "configuration": item.pk, "remediation": "automatic"},
        format="json",
    )
    assert made.status_code == 201, made.json()
    assert made.json()["configuration_name"] == "config::seed-config"
    wrong = api.patch("/api/roles/app/", {"remediation": "sometimes"}, format="json")
    assert wrong.status_code == 400


def test_api_check_now_of_the_local_server_needs_its_permission(desired, web, client_with) -> None:
    answer = client_with(VIEW, CHECK).post(
        "/api/configuration/check/", {"role": "web"}, format="json"
    )
    assert answer.status_code == 202 and answer.json()["executions"] == []
    assert "Can run scripts on the local server" in answer.json()["skipped"]["web1"]
    assert not Execution.objects.exists()
    assert not ServerState.objects.exists()  # refused, not checked: no state says otherwise


def test_api_plan_approve_is_409_when_what_it_runs_changed(desired, web, client_with) -> None:
    api = client_with(VIEW, CHECK, REMEDIATE, LOCAL)
    api.post("/api/configuration/check/", {"role": "web"}, format="json")
    run_pending(desired)
    plan = api.post("/api/configuration/plans/", {"role": "web"}, format="json").json()
    assert plan["stale"] == []
    item = web.configuration
    marker = desired.folder / "ran-unseen"
    rafts.save_item(
        raft=item.raft,
        name=item.name,
        content=item.content.replace("hello", "changed") + f'SHExec "touch {marker}";\n',
    )
    refused = api.post(f"/api/configuration/plans/{plan['id']}/approve/", {}, format="json")
    assert refused.status_code == 409, refused.json()
    assert "changed since it was made" in refused.json()["detail"]
    assert RemediationPlan.objects.get(pk=plan["id"]).status == "proposed"
    run_pending(desired)
    assert not marker.exists() and not desired.path("web1", "web").exists()
    assert not Execution.objects.filter(mode="collect-execute").exists()


def test_api_plan_approve_is_409_when_a_variable_changed(desired, web, client_with) -> None:
    api = client_with(VIEW, CHECK, REMEDIATE, LOCAL)
    api.post("/api/configuration/check/", {"role": "web"}, format="json")
    run_pending(desired)
    plan = api.post("/api/configuration/plans/", {"role": "web"}, format="json").json()
    inventory.add_variable(name="Path", value="/etc/passwd", role=web)
    refused = api.post(f"/api/configuration/plans/{plan['id']}/approve/", {}, format="json")
    assert refused.status_code == 409 and "changed since it was made" in refused.json()["detail"]
    assert not Execution.objects.filter(mode="collect-execute").exists()
