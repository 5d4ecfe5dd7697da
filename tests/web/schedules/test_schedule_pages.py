"""The schedule pages and a template's schedules and triggers: each renders for a user with the
permissions and is refused without them; the forms make, change, enable, disable and delete
schedules, make triggers (the secret shown on that answer only) and delete them; the admin."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine
from django.urls import reverse

from otterweb.executions.models import Execution
from otterweb.schedules import scheduler, services
from otterweb.schedules.models import Schedule, Trigger
from otterweb.schedules.services import save_schedule
from tests.web.schedules.conftest import owner

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_schedules")]

MANAGE = [
    "schedules.view_schedule",
    "schedules.add_schedule",
    "schedules.change_schedule",
    "schedules.delete_schedule",
    "executions.view_jobtemplate",
    "executions.view_execution",
    "executions.run_jobtemplate",
    "executions.run_on_local_server",
]
TRIGGERS = [
    "executions.view_jobtemplate",
    "executions.run_jobtemplate",
    "executions.run_on_local_server",
    "schedules.view_schedule",
    "schedules.view_trigger",
    "schedules.add_trigger",
    "schedules.delete_trigger",
]


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.fixture
def nightly(deploy) -> Schedule:
    with time_machine.travel(utc(2026, 1, 5, 9, 30), tick=False):
        return save_schedule(
            name="nightly",
            template=deploy,
            cron="30 2 * * *",
            time_zone="Europe/Berlin",
            user=owner(),
        )


def create_trigger(**fields):
    return services.create_trigger(created_by=owner(), **fields)


def form(**fields) -> dict:
    return {"kind": "job", "time_zone": "UTC", "enabled": "on", "variables": "", **fields}


def test_schedule_pages_need_login_and_permission(client, client_with, nightly, deploy) -> None:
    pages = [
        reverse("schedule-list"),
        reverse("schedule-create"),
        reverse("schedule-edit", args=[nightly.pk]),
        reverse("schedule-delete", args=[nightly.pk]),
        reverse("template-triggers", args=[deploy.pk]),
    ]
    for page in pages:
        assert client.get(page).status_code == 302
    nobody = client_with()
    for page in pages:
        assert nobody.get(page).status_code == 403
    viewer = client_with("schedules.view_schedule")
    assert viewer.get(pages[0]).status_code == 200
    for page in pages[1:]:
        assert viewer.get(page).status_code == 403
    enable = reverse("schedule-enable", args=[nightly.pk])
    assert viewer.post(enable, {"enabled": "0"}).status_code == 403


def test_schedule_list_shows_what_when_next_and_last(client_with, nightly, deploy, here) -> None:
    with time_machine.travel(utc(2026, 1, 6, 1, 30, 5), tick=False):
        scheduler.fire_due()
    here.active = False
    here.save()
    with time_machine.travel(utc(2026, 1, 7, 1, 30, 5), tick=False):
        save_schedule(name="checks", kind="configuration", cron="0 * * * *", enabled=False)
        scheduler.fire_due()
    page = client_with(*MANAGE).get(reverse("schedule-list")).content.decode()
    nightly.refresh_from_db()
    assert "nightly" in page and reverse("template-launch", args=[deploy.pk]) in page
    assert "30 2 * * *" in page and "every day at 02:30" in page and "Europe/Berlin" in page
    assert "2026-01-08 02:30 CET" in page and "01:30 UTC" in page  # the next run
    assert "no active server named here" in page  # the last run's error
    execution = Execution.objects.get()
    assert reverse("execution-detail", args=[execution.pk]) not in page  # not the last one
    assert "global check" in page and "disabled" in page and "Enable" in page


def test_schedule_list_links_the_last_execution(client_with, nightly) -> None:
    with time_machine.travel(utc(2026, 1, 6, 1, 30, 5), tick=False):
        scheduler.fire_due()
    execution = Execution.objects.get()
    page = client_with(*MANAGE).get(reverse("schedule-list")).content.decode()
    assert reverse("execution-detail", args=[execution.pk]) in page
    assert "2026-01-06 02:30 CET" in page


def test_schedule_form_makes_a_schedule_and_says_what_is_wrong(client_with, deploy) -> None:
    client = client_with(*MANAGE)
    page = client.get(reverse("schedule-create") + f"?template={deploy.pk}").content.decode()
    assert f'<option value="{deploy.pk}" selected>' in page and "Europe/Berlin" in page
    bad = client.post(
        reverse("schedule-create"),
        form(name="x", template=deploy.pk, cron="every day", variables="Region = eu"),
    )
    text = bad.content.decode()
    assert bad.status_code == 200 and "five fields" in text and "does not ask for Region" in text
    response = client.post(
        reverse("schedule-create"),
        form(
            name="weekdays",
            template=deploy.pk,
            cron="0 9 * * 1-5",
            time_zone="America/New_York",
            variables="Version = 3.0\nChannel=beta",
        ),
    )
    assert response.status_code == 302 and response["Location"] == reverse("schedule-list")
    schedule = Schedule.objects.get()
    assert schedule.variables == {"Version": "3.0", "Channel": "beta"}
    assert schedule.next_run is not None and schedule.created_by is not None
    edit = client.get(reverse("schedule-edit", args=[schedule.pk])).content.decode()
    assert "Version = 3.0" in edit and "Next runs, as saved" in edit and "EST" in edit


def test_schedule_form_says_every_problem_at_once(client_with, deploy) -> None:
    """A field the form cannot read (no name, a time zone that does not exist) is said together
    with what only the service checks (the cron expression, the values for the prompts)."""
    response = client_with(*MANAGE).post(
        reverse("schedule-create"),
        form(name="", template=deploy.pk, cron="every day", time_zone="Mars/Olympus"),
    )
    text = response.content.decode()
    assert response.status_code == 200 and not Schedule.objects.exists()
    assert "This field is required." in text  # the name, by the form
    assert "Mars/Olympus is not one of the available choices" in text  # the time zone
    assert "five fields" in text  # the cron expression, by the service
    assert text.count("This field is required.") == 1  # the name said once


def test_schedule_form_makes_configuration_schedules(client_with) -> None:
    from otterweb.inventory.models import Environment

    Environment.objects.create(name="staging")
    client = client_with(*MANAGE[:4], "inventory.view_environment")
    data = form(kind="configuration", name="staging checks", environment="", cron="*/30 * * * *")
    data["environment"] = str(Environment.objects.get().pk)
    assert client.post(reverse("schedule-create"), data).status_code == 302
    twice = client.post(reverse("schedule-create"), {**data, "name": "again"})
    assert "already has a configuration schedule" in twice.content.decode()


def test_schedule_form_refuses_a_job_schedule_to_who_may_not_run(client_with, deploy) -> None:
    client = client_with(*MANAGE[:5])
    response = client.post(
        reverse("schedule-create"), form(name="x", template=deploy.pk, cron="0 * * * *")
    )
    assert "You may not run job templates" in response.content.decode()
    assert not Schedule.objects.exists()


def test_schedule_enable_disable_and_delete(client_with, nightly) -> None:
    client = client_with(*MANAGE)
    enable = reverse("schedule-enable", args=[nightly.pk])
    assert client.post(enable, {"enabled": "0"}).status_code == 302
    nightly.refresh_from_db()
    assert not nightly.enabled and nightly.next_run is None
    back = client.post(enable, {"enabled": "1", "next": "https://evil.example/"})
    assert back["Location"] == reverse("schedule-list")
    nightly.refresh_from_db()
    assert nightly.enabled and nightly.next_run is not None
    delete = reverse("schedule-delete", args=[nightly.pk])
    assert "Delete the schedule nightly?" in client.get(delete).content.decode()
    assert client.post(delete).status_code == 302
    assert not Schedule.objects.exists()


def test_template_triggers_page_makes_a_trigger_and_shows_its_secret_once(
    client_with, deploy, nightly
) -> None:
    client = client_with(*TRIGGERS)
    address = reverse("template-triggers", args=[deploy.pk])
    page = client.get(address).content.decode()
    assert "nightly" in page and "No triggers yet" in page and "Make the trigger" in page
    made = client.post(address, {"name": "CI", "kind": "token", "allow_variables": "on"})
    text = made.content.decode()
    trigger = Trigger.objects.get()
    assert made.status_code == 200 and made["Cache-Control"] == "no-store"
    token = text.split('id="new-secret" type="text" class="mono" value="')[1].split('"')[0]
    assert token.startswith("otwt_") and "it is not shown again" in text
    assert f"http://testserver/api/triggers/{trigger.pk}/?token={token}" in text
    every = '"variables": {"Version": "1.0", "Verbose": "false", "Channel": "stable"}'
    assert every in text.replace("&quot;", '"')
    again = client.get(address).content.decode()
    assert token not in again and f"/api/triggers/{trigger.pk}/" in again
    assert "?token=YOUR-TOKEN" in again and "X-OtterWeb-Signature" not in again
    hook = client.post(address, {"name": "GitHub", "kind": "webhook"}).content.decode()
    assert "Secret (the HMAC-SHA256 key)" in hook and "X-OtterWeb-Timestamp" in hook
    both = client.get(address).content.decode()
    webhook = Trigger.objects.get(kind="webhook")
    assert "secret='YOUR-SECRET'" in both and "openssl dgst -sha256 -hmac" in both
    assert both.count(f"/api/triggers/{webhook.pk}/") == 2  # its row and its example
    taken = client.post(address, {"name": "CI", "kind": "token"}).content.decode()
    assert "already has a trigger of that name" in taken


def test_template_triggers_page_permissions(client_with, deploy) -> None:
    address = reverse("template-triggers", args=[deploy.pk])
    viewer = client_with("executions.view_jobtemplate", "schedules.view_trigger")
    page = viewer.get(address).content.decode()
    assert "Make the trigger" not in page and "Schedules</h2>" not in page
    assert viewer.post(address, {"name": "x", "kind": "token"}).status_code == 403
    assert not Trigger.objects.exists()


def test_trigger_delete_page(client_with, deploy) -> None:
    trigger, _ = create_trigger(template=deploy, name="CI")
    client = client_with(*TRIGGERS)
    delete = reverse("trigger-delete", args=[deploy.pk, trigger.pk])
    assert "Delete the trigger CI?" in client.get(delete).content.decode()
    assert client.post(delete)["Location"] == reverse("template-triggers", args=[deploy.pk])
    assert not Trigger.objects.exists()
    assert client_with("executions.view_jobtemplate", "schedules.view_trigger").get(
        delete
    ).status_code in (403, 404)


def test_template_page_links_its_schedules_and_triggers(client_with, deploy, nightly) -> None:
    create_trigger(template=deploy, name="CI")
    page = client_with(*TRIGGERS).get(reverse("template-launch", args=[deploy.pk]))
    text = page.content.decode()
    assert reverse("template-triggers", args=[deploy.pk]) in text
    assert "1 schedule, 1 trigger" in text


def test_schedule_admin_pages(admin_client, nightly, deploy) -> None:
    create_trigger(template=deploy, name="CI")
    for name in ("schedule", "trigger"):
        assert admin_client.get(reverse(f"admin:schedules_{name}_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:schedules_schedule_add")).status_code == 200
    change = reverse("admin:schedules_schedule_change", args=[nightly.pk])
    assert admin_client.get(change).status_code == 200
    trigger = Trigger.objects.get()
    trigger_page = reverse("admin:schedules_trigger_change", args=[trigger.pk])
    assert admin_client.get(trigger_page).status_code == 200
    inline = {"deliveries-TOTAL_FORMS": "0", "deliveries-INITIAL_FORMS": "0"}
    changed = admin_client.post(
        trigger_page, {"name": "CI builds", "allow_variables": "on", **inline}
    )
    assert changed.status_code == 302
    trigger.refresh_from_db()
    assert (trigger.name, trigger.enabled, trigger.allow_variables) == ("CI builds", False, True)
    bad = admin_client.post(
        reverse("admin:schedules_schedule_add"),
        {
            "name": "x",
            "kind": "job",
            "template": deploy.pk,
            "cron": "61 * * * *",
            "time_zone": "UTC",
        },
    )
    assert bad.status_code == 200 and "five fields" in bad.content.decode()
    good = admin_client.post(
        reverse("admin:schedules_schedule_add"),
        {
            "name": "y",
            "kind": "job",
            "template": deploy.pk,
            "cron": "0 * * * *",
            "time_zone": "UTC",
            "enabled": "on",
        },
    )
    assert good.status_code == 302
    assert Schedule.objects.get(name="y").next_run is not None


def test_schedule_admin_page_shows_a_schedule_to_staff_who_may_only_view(
    client_with, nightly
) -> None:
    """Their form has only the fields the model does not hold (all the others are read-only):
    the page shows the schedule, never a server error."""
    viewer = client_with("schedules.view_schedule", is_staff=True)
    page = viewer.get(reverse("admin:schedules_schedule_change", args=[nightly.pk]))
    assert page.status_code == 200
    assert nightly.name in page.content.decode()
