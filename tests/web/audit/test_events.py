"""What no model signal says is recorded too: logins, logouts and failed logins with the
address they came from, runs started (by their principal: a user, or the owner of the schedule
that fired) and cancelled, and remediation plans approved."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from otterweb.audit.models import Entry
from otterweb.configuration import services as configuration
from otterweb.schedules import scheduler
from otterweb.schedules.services import save_schedule
from tests.web.configuration.conftest import desired  # noqa: F401 (a fixture)
from tests.web.configuration.test_checks import check
from tests.web.schedules.conftest import deploy, owner  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
A = Entry.Action


def test_login_logout_and_failed_logins_are_recorded_with_the_address(django_user_model) -> None:
    user = django_user_model.objects.create_user("ann", password="right-pw-123")
    browser = APIClient(REMOTE_ADDR="192.0.2.7")
    failed = browser.post(reverse("login"), {"username": "ann", "password": "wrong-pw-456"})
    assert failed.status_code == 200
    browser.post(reverse("login"), {"username": "nobody", "password": "wrong-pw-789"})
    ok = browser.post(reverse("login"), {"username": "ann", "password": "right-pw-123"})
    assert ok.status_code == 302
    assert browser.post(reverse("logout")).status_code == 302
    entries = Entry.objects.filter(action__in=[A.LOGIN, A.LOGOUT, A.LOGIN_FAILED]).order_by("pk")
    assert [(e.action, e.actor, e.object_repr, e.object_pk, e.remote_addr) for e in entries] == [
        (A.LOGIN_FAILED, None, "ann", str(user.pk), "192.0.2.7"),
        (A.LOGIN_FAILED, None, "nobody", "", "192.0.2.7"),
        (A.LOGIN, user, "ann", str(user.pk), "192.0.2.7"),
        (A.LOGOUT, user, "ann", str(user.pk), "192.0.2.7"),
    ]
    for entry in entries:
        assert "pw" not in str(entry.additional_data) + str(entry.changes)


def test_login_address_is_the_proxys_when_behind_one(django_user_model, settings) -> None:
    settings.OTTERWEB_BEHIND_PROXY = True
    django_user_model.objects.create_user("ann", password="right-pw-123")
    browser = APIClient(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.4")
    browser.post(reverse("login"), {"username": "ann", "password": "right-pw-123"})
    assert Entry.objects.get(action=A.LOGIN).remote_addr == "198.51.100.4"


def test_run_started_and_cancelled_are_recorded_with_the_principal(admin_user, here) -> None:
    api = APIClient(REMOTE_ADDR="203.0.113.5")
    api.force_login(admin_user)
    made = api.post(
        "/api/executions/", {"script": "Log-Information hi;", "servers": ["here"]}, format="json"
    )
    assert made.status_code == 201, made.content
    execution_id = made.json()["id"]
    assert api.post(f"/api/executions/{execution_id}/cancel/").status_code in (200, 202)
    started, cancelled = Entry.objects.filter(action__in=[A.RUN_STARTED, A.RUN_CANCELLED]).order_by(
        "pk"
    )
    assert (started.action, started.object_id, started.actor, started.remote_addr) == (
        A.RUN_STARTED,
        execution_id,
        admin_user,
        "203.0.113.5",
    )
    assert started.additional_data["targets"] == ["here"]
    assert started.additional_data["started_by"] == "user"
    assert (cancelled.action, cancelled.object_id, cancelled.actor) == (
        A.RUN_CANCELLED,
        execution_id,
        admin_user,
    )


def test_run_started_by_a_schedule_is_recorded_as_its_owners_and_the_schedule(deploy) -> None:  # noqa: F811
    schedule = save_schedule(
        name="nightly", template=deploy, cron="0 * * * *", time_zone="UTC", user=owner()
    )
    execution = scheduler.fire(schedule, now=datetime(2026, 1, 5, 10, tzinfo=UTC))
    entry = Entry.objects.get(action=A.RUN_STARTED)
    assert (entry.object_id, entry.actor, entry.actor_name, entry.remote_addr) == (
        execution.pk,
        owner(),
        "owner",
        None,
    )
    assert entry.additional_data["started_by"] == "schedule nightly"
    assert entry.additional_data["template"] == "Deploy"
    assert entry.additional_data["script_version"] == "main::deploy v1"


def test_plan_approved_is_recorded_with_who_approved_it(desired, admin_user) -> None:  # noqa: F811
    web = desired.file_role("web", remediation="on-demand")
    web1 = desired.server("web1", web)
    check(desired, web1)
    plan = configuration.make_plan(servers=[web1], scope="role web")
    (remediation,) = configuration.approve_plan(plan=plan, user=admin_user)
    entry = Entry.objects.get(action=A.PLAN_APPROVED)
    assert (entry.object_id, entry.actor, entry.changes) == (
        plan.pk,
        admin_user,
        {"status": ["proposed", "approved"]},
    )
    assert entry.additional_data["servers"] == ["web1"]
    assert entry.additional_data["executions"] == [remediation.pk]
    started = Entry.objects.filter(action=A.RUN_STARTED, object_id=remediation.pk).get()
    assert started.actor == admin_user
