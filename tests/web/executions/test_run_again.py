"""Run again (otterweb.executions.services.run_again, POST /api/executions/<id>/run-again/): a new
job of the same script or its raft item's latest version, on the same servers, others, or those
the execution failed on, with its mode and variables or others checked as a launch checks them."""

from __future__ import annotations

import pytest

from otterweb.executions.models import Execution, JobTemplatePrompt
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job, launch_template, save_job_template
from otterweb.inventory.models import Server
from otterweb.rafts import services as rafts

pytestmark = pytest.mark.django_db(transaction=True)

# fails on the server named "broken", goes well on the others
SCRIPT = (
    'if $ServerName == broken { Log-Error "it broke"; }\nLog-Information "done on $ServerName";'
)
RUNNER = ("executions.view_execution", "executions.add_execution", "executions.run_on_local_server")


@pytest.fixture
def servers() -> list[str]:
    names = ["web1", "broken", "web2"]
    for name in names:
        Server.objects.create(name=name)
    return names


def ran(execution: Execution) -> Execution:
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    return execution


def run_again(client, execution: Execution, **body):
    return client.post(f"/api/executions/{execution.pk}/run-again/", body, format="json")


def test_run_again_runs_the_same_script_on_the_same_servers_with_the_same_variables(
    servers, client_with
) -> None:
    first = ran(create_job(script=SCRIPT, servers=servers, variables={"Count": 3}, simulate=True))
    response = run_again(client_with(*RUNNER), first)
    assert response.status_code == 201, response.json()
    again = Execution.objects.get(pk=response.json()["id"])
    assert again.pk != first.pk and again.job_id != first.job_id
    assert (again.job.script, again.job.targets) == (first.job.script, first.job.targets)
    assert sorted(again.job.targets) == sorted(servers)
    assert again.job.variables == first.job.variables == {"Count": "3"}
    assert (again.mode, again.simulate, again.run_state) == (first.mode, True, "pending")
    assert again.job.requested_by.has_perm("executions.add_execution")


def test_run_again_on_the_failed_servers_runs_only_where_it_failed(servers, client_with) -> None:
    first = ran(create_job(script=SCRIPT, servers=servers))
    assert first.status == "error"
    response = run_again(client_with(*RUNNER), first, failed_only=True)
    assert response.status_code == 201, response.json()
    assert Execution.objects.get(pk=response.json()["id"]).job.targets == ["broken"]


def test_run_again_on_the_failed_servers_of_a_run_that_went_well_is_refused(
    servers, client_with
) -> None:
    first = ran(create_job(script=SCRIPT, servers=["web1", "web2"]))
    assert first.status == "normal"
    response = run_again(client_with(*RUNNER), first, failed_only=True)
    assert response.status_code == 400
    assert "failed on no server" in response.json()["detail"]
    both = run_again(client_with(*RUNNER), first, failed_only=True, servers=["web1"])
    assert both.status_code == 400 and "not both" in both.json()["detail"]


def test_run_again_on_other_servers(servers, client_with) -> None:
    first = ran(create_job(script=SCRIPT, servers=["web1"]))
    response = run_again(client_with(*RUNNER), first, servers=["web2", "broken"])
    assert response.status_code == 201, response.json()
    assert Execution.objects.get(pk=response.json()["id"]).job.targets == ["broken", "web2"]
    missing = run_again(client_with(*RUNNER), first, servers=["gone"])
    assert missing.status_code == 400 and "no active server named gone" in missing.json()["detail"]


def test_run_again_the_latest_version_of_a_raft_item(servers, client_with) -> None:
    raft = rafts.create_raft(name="ops")
    item = rafts.create_item(
        raft=raft, name="deploy", kind="script", content="Log-Information one;"
    )
    first = ran(create_job(raft_item=item, servers=["web1"]))
    rafts.save_item(raft=raft, name="deploy", content="Log-Information two;", message="second")
    client = client_with(*RUNNER)

    same = Execution.objects.get(pk=run_again(client, first).json()["id"])
    assert same.job.script == "Log-Information one;"
    assert same.job.script_version == first.job.script_version
    latest = Execution.objects.get(pk=run_again(client, first, version="latest").json()["id"])
    assert latest.job.script == "Log-Information two;"
    assert latest.job.script_version == item.versions.first() != first.job.script_version


def test_run_again_the_latest_version_of_an_ad_hoc_script_is_refused(servers, client_with) -> None:
    first = ran(create_job(script=SCRIPT, servers=["web1"]))
    response = run_again(client_with(*RUNNER), first, version="latest")
    assert response.status_code == 400
    assert "no raft item" in response.json()["detail"]


def test_run_again_of_a_template_run_checks_the_values_against_its_prompts(
    servers, client_with
) -> None:
    raft = rafts.create_raft(name="ops")
    item = rafts.create_item(
        raft=raft, name="scale", kind="script", content="Log-Information $Count;"
    )
    template = save_job_template(
        name="scale",
        raft_item=item,
        targeting="servers",
        servers=Server.objects.filter(name="web1"),
        prompts=[{"name": "Count", "type": JobTemplatePrompt.Type.NUMBER, "required": True}],
    )
    first = ran(launch_template(template=template, variables={"Count": "2"}))
    launcher = client_with(
        "executions.view_execution", "executions.run_jobtemplate", "executions.run_on_local_server"
    )
    same = run_again(launcher, first)
    assert same.status_code == 201, same.json()
    assert Execution.objects.get(pk=same.json()["id"]).job.variables == {"Count": "2"}
    wrong = run_again(launcher, first, variables={"Count": "many"})
    assert wrong.status_code == 400
    assert "refused Count" in wrong.json()["detail"]


def test_run_again_needs_the_permission_to_run(servers, client_with) -> None:
    first = ran(create_job(script=SCRIPT, servers=["web1"]))
    viewer = client_with("executions.view_execution")
    response = run_again(viewer, first)
    assert response.status_code == 403
    assert Execution.objects.count() == 1


def test_run_again_page_starts_from_the_failed_servers_and_runs_what_was_chosen(
    servers, client_with
) -> None:
    first = ran(create_job(script=SCRIPT, servers=servers, variables={"Greeting": "hi"}))
    client = client_with(*RUNNER)
    detail = client.get(f"/executions/{first.pk}/").content.decode()
    assert "Run again on the 1 server that failed" in detail
    assert f'href="/executions/{first.pk}/run-again/?failed=1"' in detail

    page = client.get(f"/executions/{first.pk}/run-again/?failed=1").content.decode()
    assert f"the server execution {first.pk} failed on (broken)" in page
    assert '<option value="broken" selected>' in page
    assert '<option value="web1">' in page  # offered, not chosen
    assert 'name="variable_Greeting" value="hi"' in page

    response = client.post(
        f"/executions/{first.pk}/run-again/",
        {"servers": ["broken", "web2"], "variable_Greeting": "hello"},
    )
    again = Execution.objects.exclude(pk=first.pk).get()
    assert response.status_code == 302 and response["Location"] == f"/executions/{again.pk}/"
    assert again.job.targets == ["broken", "web2"]
    assert again.job.variables == {"Greeting": "hello"}


def test_run_again_page_shows_why_it_was_refused(servers, client_with) -> None:
    first = ran(create_job(script=SCRIPT, servers=["web1"]))
    response = client_with(*RUNNER).post(f"/executions/{first.pk}/run-again/", {"servers": []})
    assert response.status_code == 200
    assert "Choose servers or roles to run on" in response.content.decode()
    assert Execution.objects.count() == 1


def test_run_again_page_offers_only_the_servers_the_user_may_see(servers, client) -> None:
    from django.contrib.auth import get_user_model

    from otterweb.inventory.models import Environment
    from otterweb.privileges import services as privileges
    from otterweb.privileges.models import Role

    testing = Environment.objects.create(name="testing")
    Server.objects.get(name="web1").environments.add(testing)
    first = ran(create_job(script=SCRIPT, servers=["web1"]))
    operator = get_user_model().objects.create_user(username="operator")
    privileges.grant(role=Role.objects.get(name="Operator"), user=operator, environment=testing)
    client.force_login(operator)
    page = client.get(f"/executions/{first.pk}/run-again/").content.decode()
    assert '<option value="web1" selected>' in page
    assert "web2" not in page and "broken" not in page  # in no environment it may see
