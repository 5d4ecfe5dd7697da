"""Schedules through the services and the API: made, changed (the next run worked out again,
read-only), enabled and disabled, deleted; what is refused and why; the permissions; and the
global configuration check the migration makes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from otterweb.inventory.models import Environment, Server
from otterweb.schedules.models import Schedule

pytestmark = pytest.mark.django_db

MANAGE = [
    "schedules.view_schedule",
    "schedules.add_schedule",
    "schedules.change_schedule",
    "schedules.delete_schedule",
    "executions.run_jobtemplate",
    "executions.run_on_local_server",
]


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_schedules_migration_makes_the_global_hourly_configuration_check() -> None:
    schedule = Schedule.objects.get(kind="configuration", environment=None)
    assert (schedule.cron, schedule.time_zone, schedule.enabled) == ("0 * * * *", "UTC", True)
    assert schedule.template is None and schedule.next_run is not None
    assert schedule.next_run.minute == 0 and schedule.next_run.second == 0


@pytest.mark.usefixtures("no_schedules")
def test_schedules_api_makes_a_job_schedule_with_its_next_run(client_with, deploy) -> None:
    client = client_with(*MANAGE)
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False):
        response = client.post(
            "/api/schedules/",
            {
                "name": "nightly deploy",
                "kind": "job",
                "template": deploy.pk,
                "variables": {"version": "2.0", "Verbose": True},
                "cron": "30  2 * * *",
                "time_zone": "Europe/Berlin",
                "next_run": "2030-01-01T00:00:00Z",  # read-only: ignored
            },
            format="json",
        )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["next_run"] == "2026-01-06T01:30:00Z"
    assert body["cron"] == "30 2 * * *" and body["cron_words"] == "every day at 02:30"
    assert body["variables"] == {"Version": "2.0", "Verbose": True}
    assert body["runs"] == "job template Deploy" and body["enabled"] is True
    schedule = Schedule.objects.get()
    assert schedule.created_by.username.startswith("user")


@pytest.mark.usefixtures("no_schedules")
def test_schedules_api_changes_and_disables_and_deletes(client_with, deploy) -> None:
    client = client_with(*MANAGE)
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False):
        made = client.post(
            "/api/schedules/",
            {"name": "hourly", "template": deploy.pk, "cron": "0 * * * *"},
            format="json",
        ).json()
        assert made["next_run"] == "2026-01-05T10:00:00Z" and made["kind"] == "job"
        address = f"/api/schedules/{made['id']}/"
        changed = client.patch(address, {"cron": "*/15 * * * *"}, format="json").json()
        assert changed["next_run"] == "2026-01-05T09:45:00Z"
        assert changed["cron_words"] == "every 15 minutes"
        # a change of name leaves the next run where it was
        renamed = client.patch(address, {"name": "quarterly"}, format="json").json()
        assert renamed["next_run"] == "2026-01-05T09:45:00Z"
        off = client.patch(address, {"enabled": False}, format="json").json()
        assert off["next_run"] is None
        on = client.patch(address, {"enabled": True}, format="json").json()
        assert on["next_run"] == "2026-01-05T09:45:00Z"
    assert client.delete(address).status_code == 204
    assert not Schedule.objects.exists()


@pytest.mark.parametrize(
    ("fields", "field", "text"),
    [
        ({"cron": "every day"}, "cron", "five fields"),
        ({"cron": "0 0 * * * *"}, "cron", "five fields"),
        ({"time_zone": "Mars/Olympus"}, "time_zone", "time zone"),
        ({"variables": {"Region": "eu"}}, "variables", "does not ask for Region"),
        ({"variables": {"Channel": "nightly"}}, "variables", "Channel"),
        ({"variables": {"Version": ""}}, "variables", "Version: the template needs a value"),
        ({"template": None}, "template", "Choose the job template"),
    ],
)
def test_schedules_api_refuses_with_the_field(client_with, deploy, fields, field, text) -> None:
    client = client_with(*MANAGE)
    data = {"name": "s", "template": deploy.pk, "cron": "0 * * * *", **fields}
    response = client.post("/api/schedules/", data, format="json")
    assert response.status_code == 400, response.content
    assert text in " ".join(response.json()["errors"][field])
    assert not Schedule.objects.filter(name="s").exists()


@pytest.mark.usefixtures("no_schedules")
def test_schedules_configuration_one_per_environment_and_one_global(client_with) -> None:
    client = client_with(*MANAGE[:4])  # no permission to run templates needed
    Environment.objects.create(name="staging")
    data = {"kind": "configuration", "cron": "0 * * * *"}
    post = client.post
    assert post("/api/schedules/", {**data, "name": "global"}, format="json").status_code == 201
    again = post("/api/schedules/", {**data, "name": "global 2"}, format="json")
    assert again.status_code == 400
    assert "already is a global" in " ".join(again.json()["errors"]["environment"])
    staging = {**data, "environment": "staging"}
    made = post("/api/schedules/", {**staging, "name": "staging"}, format="json")
    assert made.status_code == 201 and made.json()["environment"] == "staging"
    assert "configuration check of staging" in made.json()["runs"]
    twice = post("/api/schedules/", {**staging, "name": "staging 2"}, format="json")
    assert twice.status_code == 400
    assert "already has a configuration schedule" in str(twice.json()["errors"])
    # a configuration schedule runs no template (and keeps no variables)
    one = Schedule.objects.get(name="staging")
    assert one.template is None and one.variables == {}


def test_schedules_api_permissions(client_with, deploy, here) -> None:
    assert client_with().get("/api/schedules/").status_code == 403
    viewer = client_with("schedules.view_schedule")
    assert viewer.get("/api/schedules/").status_code == 200
    data = {"name": "s", "template": deploy.pk, "cron": "0 * * * *"}
    assert viewer.post("/api/schedules/", data, format="json").status_code == 403
    adder = client_with("schedules.view_schedule", "schedules.add_schedule")
    refused = adder.post("/api/schedules/", data, format="json")
    assert refused.status_code == 403 and "run job templates" in refused.json()["detail"]
    runner = client_with(
        "schedules.view_schedule", "schedules.add_schedule", "executions.run_jobtemplate"
    )
    refused = runner.post("/api/schedules/", data, format="json")
    assert refused.status_code == 400 and "local server" in str(refused.json()["errors"])
    here.agent_type, here.host = Server.AgentType.SSH, "192.0.2.1"
    here.save()
    assert runner.post("/api/schedules/", data, format="json").status_code == 201
