"""What the execution pages, the API and the admin say happened; jobs refused without targets;
where a run would go (the target preview)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from otterweb.accounts import tokens
from otterweb.execution_logs.events import status_message
from otterweb.execution_logs.models import LogEntry
from otterweb.executions.models import Execution
from otterweb.executions.services import NO_TARGETS, create_job, request_cancel
from otterweb.inventory.models import Environment, Role, Server

pytestmark = pytest.mark.django_db

DRIFT = [
    {
        "server": "web1",
        "operation": "Ensure-File /etc/app.conf",
        "line": 3,
        "differences": [{"property": "Text", "expected": "port=80", "actual": "port=8080"}],
    },
    {
        "server": "web2",
        "operation": "Ensure-File /etc/app.conf",
        "line": 3,
        "differences": [{"property": "Text", "expected": "port=80", "actual": "port=81"}],
    },
    {
        "server": "web2",
        "operation": "Ensure-Directory /srv",
        "line": 5,
        "differences": [{"property": "Exists", "expected": True, "actual": False}],
    },
]


@pytest.fixture
def inventory():
    production = Environment.objects.create(name="production")
    testing = Environment.objects.create(name="testing")
    web, db = Role.objects.create(name="web"), Role.objects.create(name="db")
    for name, role, environment in [
        ("web1", web, production),
        ("web2", web, production),
        ("web3", web, testing),
        ("db1", db, production),
    ]:
        server = Server.objects.create(name=name)
        server.roles.add(role)
        server.environments.add(environment)
    Server.objects.create(name="retired", active=False).roles.add(web)


@pytest.fixture
def outcomes(inventory, user_with):
    """A cancelled run, a drift check that found drift in 3 operations, one that found none,
    a failed run, and one still running."""
    ops = user_with("executions.run_on_local_server", "executions.add_execution", username="ops")
    cancelled = create_job(script="Log-Information x;", name="cancelled run", servers=["web1"])
    request_cancel(execution=cancelled)
    drifted = create_job(
        script="Log-Information x;", name="drifted audit", servers=["web1", "web2"], mode="collect"
    )
    drifted.start(worker="w")
    drifted.finish(status=Execution.Status.NORMAL, drift=DRIFT)
    clean = create_job(
        script="Log-Information x;", name="clean audit", servers=["web1"], mode="collect"
    )
    clean.start(worker="w")
    clean.finish(status=Execution.Status.NORMAL, drift=[])
    failed = create_job(
        script="Log-Information x;", name="failed deploy", servers=["web1"], requested_by=ops
    )
    failed.start(worker="w")
    failed.finish(status=Execution.Status.ERROR, drift=[])
    running = create_job(
        script="Log-Information x;", name="running deploy", servers=["web1", "db1"]
    )
    running.start(worker="w")
    return {
        e.job.name: Execution.objects.get(pk=e.pk)
        for e in (cancelled, drifted, clean, failed, running)
    }


def listed(client, **query) -> set[str]:
    page = client.get(reverse("execution-list"), query).content.decode()
    names = ("cancelled run", "drifted audit", "clean audit", "failed deploy", "running deploy")
    return {name for name in names if name in page}


# ---- outcomes, everywhere


def test_execution_list_shows_outcome_badges_for_cancelled_and_drifted(
    admin_client, outcomes
) -> None:
    page = admin_client.get(reverse("execution-list")).content.decode()
    assert '<span class="badge cancelled">Cancelled</span>' in page
    assert '<span class="badge drifted">Drifted (3 operations)</span>' in page
    assert '<span class="badge normal">Normal</span>' in page  # the check without drift
    assert '<span class="badge error">Error</span>' in page
    assert '<span class="badge executing">Executing</span>' in page


def test_execution_list_rows_link_to_the_page_with_duration_targets_and_who_ran_it(
    admin_client, outcomes
) -> None:
    failed = outcomes["failed deploy"]
    Execution.objects.filter(pk=failed.pk).update(ended=failed.started + timedelta(seconds=75))
    page = admin_client.get(reverse("execution-list")).content.decode()
    row = page[page.index(reverse("execution-detail", args=[failed.pk])) :].split("</tr>")[0]
    assert "failed deploy" in row and "1 min 15 s" in row and ">ops<" in row
    assert '<td data-label="Targets" class="num">1</td>' in row
    running = outcomes["running deploy"]
    row = page[page.index(reverse("execution-detail", args=[running.pk])) :].split("</tr>")[0]
    assert '<td data-label="Targets" class="num">2</td>' in row


def test_execution_list_filters_by_cancelled_and_drifted(admin_client, outcomes) -> None:
    page = admin_client.get(reverse("execution-list")).content.decode()
    assert '<option value="cancelled">Cancelled</option>' in page
    assert '<option value="drifted">Drifted</option>' in page
    assert listed(admin_client, status="cancelled") == {"cancelled run"}
    assert listed(admin_client, status="drifted") == {"drifted audit"}
    assert listed(admin_client, status="normal") == {"clean audit"}  # not the drifted one
    assert listed(admin_client, status="error") == {"failed deploy"}
    assert listed(admin_client, run_state="executing") == {"running deploy"}


def test_execution_list_filters_since_a_time(admin_client, outcomes) -> None:
    old = outcomes["failed deploy"]
    Execution.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(days=3))
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert "failed deploy" not in listed(admin_client, since=since)
    assert "cancelled run" in listed(admin_client, since=since)
    page = admin_client.get(reverse("execution-list"), {"since": since}).content.decode()
    assert 'name="since"' in page  # kept when the other filters change
    assert listed(admin_client, since="not a time") == set(outcomes)


def test_execution_page_shows_the_outcome_in_a_live_status_and_none_on_the_log(
    admin_client, outcomes
) -> None:
    drifted = outcomes["drifted audit"]
    page = admin_client.get(reverse("execution-detail", args=[drifted.pk])).content.decode()
    assert (
        '<span id="status" class="badge drifted" role="status" aria-live="polite">'
        "Drifted (3 operations)</span>"
    ) in page
    assert page.count("aria-live") == 1
    log = page[page.index('<div id="log"') :].split(">")[0]
    assert "aria-live" not in log
    for element in ('id="state"', 'id="log"', 'aria-labelledby="log-heading"'):
        assert element in page
    assert 'data-state="completed"' in log  # the viewer shows an ended log whole, no tail
    cancelled = outcomes["cancelled run"]
    page = admin_client.get(reverse("execution-detail", args=[cancelled.pk])).content.decode()
    assert 'class="badge cancelled" role="status" aria-live="polite">Cancelled</span>' in page
    assert 'id="cancel"' not in page  # ended
    running = admin_client.get(reverse("execution-detail", args=[outcomes["running deploy"].pk]))
    running = running.content.decode()
    # the viewer (logs/viewer.ts) follows a running log's tail; its toolbar is drawn by it
    assert 'id="cancel"' in running and 'data-state="executing"' in running
    assert 'id="log-download-text"' in running and 'id="log-download-jsonl"' in running


def test_execution_status_message_carries_the_outcome_for_the_live_page(outcomes) -> None:
    message = status_message(outcomes["drifted audit"])
    assert (message["outcome"], message["outcome_label"]) == ("drifted", "Drifted (3 operations)")
    message = status_message(outcomes["cancelled run"])
    assert (message["outcome"], message["outcome_label"]) == ("cancelled", "Cancelled")


def test_api_execution_has_outcome_and_outcome_label(outcomes) -> None:
    user = get_user_model().objects.create_superuser("root", password="pw-12345-x")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.create(user=user)[1]}")
    for name, outcome, label in [
        ("drifted audit", "drifted", "Drifted (3 operations)"),
        ("cancelled run", "cancelled", "Cancelled"),
        ("running deploy", "executing", "Executing"),
    ]:
        body = client.get(f"/api/executions/{outcomes[name].pk}/").json()
        assert (body["outcome"], body["outcome_label"]) == (outcome, label)


# ---- a job names its targets, or its script does


def test_create_job_refuses_a_job_without_targets(inventory) -> None:
    with pytest.raises(ValidationError) as refused:
        create_job(script="Log-Information x;")
    assert refused.value.messages == [NO_TARGETS]
    assert "Choose servers or roles to run on" in NO_TARGETS and "“for server …”" in NO_TARGETS
    assert not Execution.objects.exists()


@pytest.mark.parametrize(
    "script",
    [
        "for server web1\n{\n    Log-Information x;\n}",
        "foreach role in @(web, db)\n{\n    Log-Information x;\n}",
        "if $a == b\n{\n    for role web\n    {\n        Log-Information x;\n    }\n}",
    ],
)
def test_create_job_accepts_no_targets_when_the_script_targets_servers(inventory, script) -> None:
    execution = create_job(script=script)
    assert execution.job.targets == []


def test_create_job_refuses_a_directory_context_as_targets(inventory) -> None:
    with pytest.raises(ValidationError, match="Choose servers or roles"):
        create_job(script="for directory /tmp\n{\n    Log-Information x;\n}")


def test_api_start_without_targets_is_400_saying_what_to_choose(admin_client, inventory) -> None:
    response = admin_client.post(
        "/api/executions/", {"script": "Log-Information x;"}, content_type="application/json"
    )
    assert response.status_code == 400 and NO_TARGETS in str(response.json())


# ---- the target preview


def preview(client, **query):
    return client.get(reverse("target-preview"), query)


def test_target_preview_lists_named_servers(admin_client, inventory) -> None:
    response = preview(admin_client, servers=["web2", "db1"])
    assert response.status_code == 200
    assert response.json() == {
        "servers": ["db1", "web2"],
        "count": 2,
        "summary": "Runs on 2 servers: db1, web2",
    }


def test_target_preview_resolves_roles_in_environments_like_create_job(
    admin_client, inventory
) -> None:
    body = preview(admin_client, roles=["web"], environments=["production"]).json()
    assert body["servers"] == ["web1", "web2"]  # not web3 (testing), not the inactive one
    execution = create_job(script="Log-Information x;", roles=["web"], environments=["production"])
    assert execution.job.targets == body["servers"]
    body = preview(admin_client, roles=["web"], servers=["db1"]).json()
    assert body == {
        "servers": ["db1", "web1", "web2", "web3"],
        "count": 4,
        "summary": "Runs on 4 servers: db1, web1, web2, web3",
    }


def test_target_preview_says_what_to_choose(admin_client, inventory) -> None:
    assert preview(admin_client).json() == {"servers": [], "count": 0, "summary": NO_TARGETS}
    body = preview(admin_client, roles=["db"], environments=["testing"]).json()
    assert body["count"] == 0
    assert body["summary"] == "No active server has those roles in those environments."


def test_target_preview_is_400_for_unknown_names(admin_client, inventory) -> None:
    response = preview(
        admin_client, servers=["web1", "nowhere", "retired"], roles=["cache"], environments=["web"]
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "servers": ["No active server named nowhere, retired."],
        "roles": ["No role named cache."],
        "environments": ["No environment named web."],
    }
    assert "No role named cache." in response.json()["detail"]
    assert response.json()["code"] == "invalid"


def test_target_preview_needs_login_and_the_view_server_permission(
    client, client_with, inventory
) -> None:
    anonymous = preview(client, servers=["web1"])
    assert anonymous.status_code == 403
    assert anonymous.json() == {"detail": "Log in first.", "code": "not_authenticated"}
    response = preview(client_with(), servers=["web1"])
    assert response.status_code == 403 and "web1" not in response.content.decode()
    assert response.json()["code"] == "permission_denied"
    viewer = client_with("inventory.view_server")
    assert preview(viewer, servers=["web1"]).json()["servers"] == ["web1"]


# ---- the server page


def test_server_page_lists_the_servers_recent_executions_for_who_may_see_them(
    outcomes, client_with
) -> None:
    url = reverse("server-detail", args=["db1"])
    viewer = client_with("inventory.view_server", "executions.view_execution")
    text = viewer.get(url).content.decode()
    assert "Recent executions" in text and "running deploy" in text
    assert "failed deploy" not in text  # it ran on web1 only
    text = client_with("inventory.view_server").get(url).content.decode()
    assert "Recent executions" not in text and "running deploy" not in text


# ---- the admin never inlines a log


def test_execution_admin_change_page_links_to_the_log_without_its_rows(
    admin_client, inventory, django_assert_max_num_queries
) -> None:
    execution = create_job(script="Log-Information x;", servers=["web1"])
    now = timezone.now()
    LogEntry.objects.bulk_create(
        LogEntry(
            execution_id=execution.pk, seq=seq, level=10, message=f"line number {seq}", time=now
        )
        for seq in range(1, 3001)
    )
    url = reverse("admin:executions_execution_change", args=[execution.pk])
    with django_assert_max_num_queries(15):
        page = admin_client.get(url).content.decode()
    assert "line number" not in page and "log_entries-" not in page
    assert "3,000 lines" in page
    assert f'href="{reverse("execution-detail", args=[execution.pk])}"' in page
