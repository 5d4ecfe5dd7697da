"""The home page: behind login, a dashboard of what runs, what failed, what the inventory
holds, and what to do first."""

from __future__ import annotations

import contextlib
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from otterweb.executions.models import Execution, Job
from otterweb.inventory.models import Environment, Role, Server

pytestmark = pytest.mark.django_db


def test_home_redirects_anonymous_user_to_login(client) -> None:
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_home_shows_for_logged_in_user(client_with) -> None:
    response = client_with().get(reverse("home"))
    assert response.status_code == 200
    assert b"<h1>Dashboard</h1>" in response.content


def test_login_page_renders(client) -> None:
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b'name="username"' in response.content


# ---- the dashboard


@pytest.fixture
def ops(user_with):
    return user_with(
        "executions.view_execution",
        "inventory.view_server",
        "inventory.view_role",
        "inventory.view_environment",
        username="ops",
    )


def make_execution(
    name: str, *, run_state: str, status: str = "normal", ago=timedelta(0), user=None
):
    """An execution as the worker leaves it, made without running anything."""
    job = Job.objects.create(
        name=name, script="Log-Information x;", targets=["web1"], requested_by=user
    )
    now = timezone.now() - ago
    execution = Execution.objects.create(job=job, run_state=run_state, status=status)
    started = None if run_state == "pending" else now
    ended = now if run_state == "completed" else None
    Execution.objects.filter(pk=execution.pk).update(created=now, started=started, ended=ended)
    return execution


def test_home_shows_what_to_do_first_when_nothing_exists(client, ops) -> None:
    client.force_login(ops)
    page = client.get(reverse("home")).content.decode()
    assert "Start here" in page and "Describe your servers." in page and "Write a script." in page
    assert "Nothing is running." in page and "No execution has ended yet." in page


def test_home_offers_a_user_with_a_password_to_change_it_on_every_page(client, ops) -> None:
    link = 'href="/accounts/password_change/"'
    ops.set_password("generated-0123")
    ops.save()
    client.force_login(ops)
    home = client.get(reverse("home")).content.decode()
    assert "Make the password yours." in home and home.count(link) == 2  # Start here, the header
    assert link in client.get(reverse("execution-list")).content.decode()
    ops.set_unusable_password()  # signs in through the directory or single sign-on
    ops.save()
    client.force_login(ops)
    home = client.get(reverse("home")).content.decode()
    assert link not in home and "Make the password yours." not in home


def test_home_counts_servers_roles_and_environments_with_links(admin_client) -> None:
    production = Environment.objects.create(name="production")
    web = Role.objects.create(name="web")
    for name in ("web1", "web2", "db1"):
        server = Server.objects.create(name=name)
        server.roles.add(web)
        server.environments.add(production)
    page = admin_client.get(reverse("home")).content.decode()
    assert "Start here" not in page
    servers_link = reverse("admin:inventory_server_changelist")
    with contextlib.suppress(NoReverseMatch):  # the inventory's own page when there is one
        servers_link = reverse("server-list")
    assert f'<a href="{servers_link}">3<span class="visually-hidden"> servers</span></a>' in page
    assert '1<span class="visually-hidden"> role</span>' in page
    assert '1<span class="visually-hidden"> environment</span>' in page


def test_home_shows_running_executions_and_the_runs_failed_in_a_day(client, ops) -> None:
    client.force_login(ops)
    make_execution("deploy web", run_state="executing", user=ops)
    make_execution("nightly backup", run_state="completed", status="error", ago=timedelta(hours=2))
    make_execution("old failure", run_state="completed", status="error", ago=timedelta(days=3))
    make_execution("check", run_state="completed", status="normal", ago=timedelta(hours=1))
    response = client.get(reverse("home"))
    page = response.content.decode()
    running = page[page.index('data-rows="running"') : page.index('data-rows="recent"')]
    assert "deploy web" in running and '<span class="badge executing">Executing</span>' in running
    assert "nightly backup" not in running
    recent = page[page.index('data-rows="recent"') :]
    assert "nightly backup" in recent and '<span class="badge error">Error</span>' in recent
    assert "<span data-failed-count>1</span>" in page and 'class="card alert"' in page
    failed_url = response.context["failed_url"]
    listed = client.get(failed_url).content.decode()
    assert "nightly backup" in listed and "old failure" not in listed and "check" not in listed
    assert "frontend/assets/home-" in page  # its entry: frontend/src/pages/home.ts


def test_home_needs_a_fixed_number_of_queries(client, ops, django_assert_num_queries) -> None:
    client.force_login(ops)
    make_execution("first", run_state="executing", user=ops)
    client.get(reverse("home"))  # the session and permissions cached as on any later request
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("home"))
    for index in range(30):
        make_execution(f"run {index}", run_state="executing", user=ops)
        make_execution(f"done {index}", run_state="completed", status="error", user=ops)
        Server.objects.create(name=f"server{index}")
    with django_assert_num_queries(len(few.captured_queries)):
        client.get(reverse("home"))


def test_home_offers_the_daily_actions_that_exist(admin_client) -> None:
    page = admin_client.get(reverse("home")).content.decode()
    assert f'href="{reverse("template-list")}">Run a job template</a>' in page
    assert f'href="{reverse("execution-list")}">All executions</a>' in page
    assert ">Add a server</a>" in page


def test_execution_activity_sends_rows_for_the_dashboard_to_poll(client, client_with, ops) -> None:
    running = make_execution("deploy web", run_state="executing", user=ops)
    make_execution("nightly backup", run_state="completed", status="error", ago=timedelta(hours=2))
    url = reverse("execution-activity")
    assert client.get(url).status_code == 403  # not logged in
    client.force_login(ops)
    body = client.get(url).json()
    assert [row["name"] for row in body["running"]] == ["deploy web"]
    assert body["running"][0]["url"] == reverse("execution-detail", args=[running.pk])
    assert (body["running"][0]["outcome"], body["running"][0]["by"]) == ("executing", "ops")
    assert [(row["name"], row["outcome_label"]) for row in body["recent"]] == [
        ("nightly backup", "Error")
    ]
    assert body["failed"] == 1 and body["failed_url"].startswith(reverse("execution-list"))
    assert client_with().get(url).status_code == 403


def test_home_shows_configuration_by_environment_with_drift_each_day_and_unreachable_servers(
    admin_client,
) -> None:
    from otterweb.configuration.models import Check, ConfigurationRun, ServerState, State

    europe = Environment.objects.create(name="europe")
    paris = Environment.objects.create(name="paris", parent=europe)
    web = Server.objects.create(name="web.01")
    web.environments.add(paris)
    db = Server.objects.create(name="db", reachable=False, check_error="connection refused")
    db.environments.add(europe)
    run = ConfigurationRun.objects.create(
        execution=Execution.objects.create(job=Job.objects.create(name="check", script="")),
        purpose="check",
    )
    now = timezone.now()
    for days_ago in (0, 2):  # web drifted today and two days ago; db never
        Check.objects.create(
            server=web, run=run, state=State.DRIFTED, checked=now - timedelta(days=days_ago)
        )
    ServerState.objects.create(server=web, state=State.DRIFTED, drift_count=2)
    ServerState.objects.create(server=db, state=State.ERROR)
    page = admin_client.get(reverse("home")).content.decode()
    rows = {
        name: row
        for name, row in re.findall(
            r'<th scope="row"[^>]*><a href="[^"]*">([^<]+)</a>(.*?)</tr>', page, re.S
        )
    }
    assert set(rows) == {"all servers", "europe", "paris"}
    # a server in paris counts in europe too, as the Configuration page rolls them up
    assert 'href="/configuration/?environment=europe&amp;state=drifted">1</a>' in rows["europe"]
    assert "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1" in rows["paris"]  # the chart's label
    assert rows["all servers"].count("1 server drifted") == 2
    assert 'href="/inventory/servers/db/">db</a> <span class="muted">connection refused' in page
