"""The configuration pages: the matrix and its filters, a server's plan with each role's lines,
a check's drift with its collection log, Check now and Remediate (their permissions), the plan
page's approval with the typed count, and the execution page naming its configuration run."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from otterweb.configuration import services
from otterweb.configuration.models import RemediationPlan
from otterweb.executions.models import Execution

VIEW = "inventory.view_server"
CHECK = "configuration.check_configuration"
REMEDIATE = "configuration.remediate_server"
LOCAL = "executions.run_on_local_server"


@pytest.fixture
def checked(desired):
    base = desired.role("base", "Log-Information base;\n")
    web = desired.file_role("web", needs=[base], remediation="on-demand")
    production = desired.environment("production")
    servers = [desired.server(f"web{n}", web, environments=[production]) for n in (1, 2)]
    desired.path("web2", "web").write_text("hello")
    desired.run(services.check_servers(servers=servers).executions)
    return servers


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_matrix_page_shows_states_rollups_and_filters(checked, client, user_with) -> None:
    client.force_login(user_with(VIEW))
    page = text(client.get(reverse("configuration")))
    assert "All 2 active servers: drifted 1 drifted · 1 current" in page
    assert "web1 drifted (1)" in page and "web2 current" in page
    filtered = text(client.get(reverse("configuration") + "?state=current"))
    assert "web2" in filtered and "web1 drifted" not in filtered
    assert "No server matches" in text(client.get(reverse("configuration") + "?q=nothing"))
    assert "Check now" not in page  # without the permission, no button


def test_server_page_shows_the_plan_with_each_roles_lines(checked, client, user_with) -> None:
    client.force_login(user_with(VIEW))
    page = client.get(reverse("configuration-server", args=["web1"])).content.decode()
    rows = re.findall(r'<tr class="part"><td[^>]*>(\d+)</td><td[^>]*>(\w*)</td>', page)
    roles = {number: role for number, role in rows}
    assert roles["1"] == "base" and "web" in roles.values()  # each part marked where it starts
    assert "base</a> → <a" in page  # the roles in order, dependencies first
    assert "Last checks" in page and "1 operation" in page


def test_check_page_shows_drift_and_links_the_collection_log(checked, client, user_with) -> None:
    client.force_login(user_with(VIEW, "executions.view_execution"))
    check = checked[0].configuration_state.last_check
    page = client.get(reverse("configuration-check", args=[check.pk])).content.decode()
    assert "1 operation drifted" in page and "config::web-config" in page
    assert '<td>Exists</td><td class="mono">true</td><td class="mono">false</td>' in page
    assert reverse("execution-detail", args=[check.run.execution_id]) in page
    execution = text(client.get(reverse("execution-detail", args=[check.run.execution_id])))
    assert "checks its servers against roles base, web" in execution


def test_check_now_and_remediate_need_their_permissions(checked, client, user_with) -> None:
    client.force_login(user_with(VIEW))
    before = Execution.objects.count()
    assert client.post(reverse("configuration-check-now"), {"role": "web"}).status_code == 403
    assert client.post(reverse("configuration-remediate"), {"role": "web"}).status_code == 403
    assert Execution.objects.count() == before and not RemediationPlan.objects.exists()


def test_check_now_from_the_page_starts_a_check_and_says_so(checked, client, user_with) -> None:
    client.force_login(user_with(VIEW, CHECK, LOCAL))
    response = client.post(
        reverse("configuration-check-now"), {"environment": "production", "next": "/configuration/"}
    )
    assert response.status_code == 302 and response.url == "/configuration/"
    followed = text(client.get(response.url))
    assert "Checking 2 servers of environment production in 1 execution" in followed


def test_remediate_from_the_page_shows_the_plan_then_approves_it_with_the_count(
    checked, client, user_with, settings
) -> None:
    settings.OTTERWEB_REMEDIATION_CONFIRM_OVER = 0
    client.force_login(user_with(VIEW, REMEDIATE, LOCAL))
    response = client.post(reverse("configuration-remediate"), {"role": "web"})
    plan = RemediationPlan.objects.get()
    assert response.url == reverse("configuration-plan", args=[plan.pk])
    page = text(client.get(response.url))
    assert "Remediate role web" in page and "web2: not drifted (current)" in page
    assert "Type their number to confirm" in page
    act = reverse("configuration-plan-act", args=[plan.pk])
    refused = client.post(act, {"action": "approve", "confirm_count": "7"}, follow=True)
    assert "type their number to confirm" in text(refused)
    approved = client.post(act, {"action": "approve", "confirm_count": "1"})
    execution = Execution.objects.get(configuration_run__plan=plan)
    assert approved.url == reverse("execution-detail", args=[execution.pk])
    assert execution.mode == "collect-execute"


def test_plan_page_discards_a_plan_and_shows_a_stale_one(
    checked, client, user_with, desired
) -> None:
    client.force_login(user_with(VIEW, REMEDIATE))
    plan = services.make_plan(servers=checked, scope="role web")
    desired.run(services.check_servers(servers=checked[:1]).executions)
    page = text(client.get(reverse("configuration-plan", args=[plan.pk])))
    assert "This plan is stale: web1 was checked again" in page
    client.post(reverse("configuration-plan-act", args=[plan.pk]), {"action": "discard"})
    plan.refresh_from_db()
    assert plan.status == RemediationPlan.Status.DISCARDED


def test_matrix_filtered_by_role_and_environment_acts_on_just_those(
    checked, client, user_with
) -> None:
    client.force_login(user_with(VIEW, REMEDIATE))
    page = client.get(reverse("configuration") + "?role=web&environment=production")
    assert "Every server of role web in environment production" in text(page)
    client.post(reverse("configuration-remediate"), {"role": "web", "environment": "production"})
    plan = RemediationPlan.objects.get()
    assert plan.scope == "role web in environment production"
    assert [p.server.name for p in plan.servers.all()] == ["web1"]


def test_matrix_parent_environment_rolls_up_its_childrens_servers_and_acts_on_them(
    desired, client, user_with
) -> None:
    web = desired.file_role("web", remediation="on-demand")
    production = desired.environment("production")
    eu = desired.environment("production-eu", parent=production)
    servers = [desired.server(f"web{n}", web, environments=[eu]) for n in (1, 2)]
    desired.path("web2", "web").write_text("hello")
    desired.run(services.check_servers(servers=servers).executions)
    client.force_login(user_with(VIEW, CHECK, REMEDIATE))
    page = text(client.get(reverse("configuration")))
    assert "environment production 2 drifted" in page  # not 0 servers, unknown
    html = client.get(reverse("configuration")).content.decode()
    # its Check now and Remediate, as its child's
    assert html.count('name="environment" value="production"') == 2
    client.post(reverse("configuration-remediate"), {"environment": "production"})
    plan = RemediationPlan.objects.get()
    assert [p.server.name for p in plan.servers.all()] == ["web1"]
