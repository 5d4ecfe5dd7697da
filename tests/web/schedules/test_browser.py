"""The schedule and trigger pages in Debian's Chromium, on a real embedded server: each opens
with no console error, no failed request and no axe-core violation, and fits a phone; a
schedule is made through its form; triggers are made on their template's page and the curl
commands it shows with the new secret run the template (token and HMAC alike). Screenshots go
to $OTTERWEB_SCREENSHOTS when set (to look at), else to the test's folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.browser import check_accessibility, watched_page
from tests.e2e.serving import Site, stop
from tests.e2e.test_pages import ADMIN_RULES, api, visit

pytestmark = pytest.mark.slow

MAKE_DUE = """
from datetime import timedelta
from django.utils import timezone
from otterweb.schedules.models import Schedule
Schedule.objects.filter(name__in=["every minute", "staging checks"]).update(
    next_run=timezone.now() - timedelta(minutes=1)
)
"""


@pytest.fixture
def site(tmp_path):
    # the embedded mode, also when the web tests run again on PostgreSQL (the environment
    # names it)
    site = Site(
        tmp_path,
        OTTERWEB_SCHEDULER_SECONDS="0.5",
        OTTERWEB_DATABASE_URL="",
        OTTERWEB_REDIS_URL="",
    )
    server = site.serve(subprocess.DEVNULL)
    try:
        yield site
    finally:
        stop(server)


def populate(site: Site) -> dict:
    site.add_raft("ops", {"deploy-web": "Log-Information Deploying $Version;"})
    items = api(site, "GET", "/api/raft-items/")["results"]
    template = api(
        site,
        "POST",
        "/api/job-templates/",
        {
            "name": "Deploy web",
            "raft_item": items[0]["id"],
            "targeting": "servers",
            "servers": ["localhost"],
            "prompts": [{"name": "Version", "type": "text", "default": "2026.11.3"}],
        },
    )
    api(site, "POST", "/api/environments/", {"name": "staging"})
    nightly = api(
        site,
        "POST",
        "/api/schedules/",
        {
            "name": "Nightly deploy",
            "description": "The release of the day, after the backups",
            "template": template["id"],
            "variables": {"Version": "nightly"},
            "cron": "30 2 * * *",
            "time_zone": "Europe/Berlin",
        },
    )
    for body in (
        {"name": "every minute", "template": template["id"], "cron": "* * * * *"},
        {"name": "staging checks", "kind": "configuration", "environment": "staging"},
    ):
        api(site, "POST", "/api/schedules/", {"cron": "*/30 * * * *", **body})
    site.manage("shell", "-c", MAKE_DUE)  # the server's scheduler fires them within a second
    return {"template": template, "nightly": nightly}


def shots() -> Path | None:
    folder = os.environ.get("OTTERWEB_SCREENSHOTS")
    return Path(folder) if folder else None


def run_shown_command(page) -> dict:
    """Run the curl command the page shows with the new secret; its JSON answer."""
    command = page.locator(".notice pre").first.inner_text()
    done = subprocess.run(
        ["bash", "-c", command + " --silent --show-error --fail-with-body"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def test_schedule_pages_in_chromium(site, tmp_path) -> None:
    data = populate(site)
    template, nightly = data["template"]["id"], data["nightly"]["id"]
    folder = shots() or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    problems = []
    with watched_page(site) as (page, watch):
        page.wait_for_timeout(2000)  # the due schedules fire
        pages = [
            ("schedules", "/schedules/"),
            ("schedule-new", "/schedules/-/new/"),
            ("schedule-edit", f"/schedules/{nightly}/edit/"),
            ("schedule-delete", f"/schedules/{nightly}/delete/"),
            ("template", f"/templates/{template}/"),
            ("template-triggers-empty", f"/templates/{template}/triggers/"),
        ]
        for name, path in pages:
            problems += [f"{path}: {p}" for p in visit(page, watch, site.base + path)]
            page.screenshot(path=folder / f"{name}.png", full_page=True)
        listing = page.goto(site.base + "/schedules/")
        assert listing.status == 200
        text = page.locator("main").inner_text()
        assert "every day at 02:30" in text and "Europe/Berlin" in text
        row = page.locator("tr", has_text="every minute").inner_text()
        assert re.search(r"execution \d+", row)  # it fired: its execution is linked

        # a schedule made through its form
        page.goto(site.base + "/schedules/-/new/")
        page.fill("#id_name", "Weekday mornings")
        page.select_option("#id_template", label="Deploy web")
        page.fill("#id_variables", "Version = 1.2.3")
        page.fill("#id_cron", "0 9 * * 1-5")
        page.select_option("#id_time_zone", "America/New_York")
        page.get_by_role("button", name="Save").click()
        page.wait_for_url(site.base + "/schedules/")
        assert "at 09:00 on weekdays" in page.locator("main").inner_text()
        watch.check("the new schedule")

        # triggers: made on the template's page; the command shown runs the template
        page.goto(site.base + f"/templates/{template}/triggers/")
        page.fill("#id_name", "CI")
        page.check("#id_allow_variables")
        page.get_by_role("button", name="Make the trigger").click()
        page.wait_for_selector("#new-secret")
        check_accessibility(page)
        page.screenshot(path=folder / "trigger-token-made.png", full_page=True)
        started = run_shown_command(page)
        assert started["url"].startswith(site.base + "/executions/")
        job = api(site, "GET", f"/api/executions/{started['execution']}/")["job"]
        assert job["variables"] == {"Version": "2026.11.3"}

        page.goto(site.base + f"/templates/{template}/triggers/")
        page.fill("#id_name", "GitHub push")
        page.check("input[name=kind][value=webhook]")
        page.get_by_role("button", name="Make the trigger").click()
        page.wait_for_selector("#new-secret")
        page.screenshot(path=folder / "trigger-webhook-made.png", full_page=True)
        hooked = run_shown_command(page)
        assert hooked["execution"] > started["execution"]
        watch.check("the triggers made")

        triggers = api(site, "GET", f"/api/job-templates/{template}/triggers/")["results"]
        more = [
            ("template-triggers", f"/templates/{template}/triggers/"),
            ("trigger-delete", f"/templates/{template}/triggers/{triggers[0]['id']}/delete/"),
        ]
        for name, path in more:
            problems += [f"{path}: {p}" for p in visit(page, watch, site.base + path)]
            page.screenshot(path=folder / f"{name}.png", full_page=True)
        admin = [
            ("admin-schedules", "/admin/schedules/schedule/"),
            ("admin-schedule", f"/admin/schedules/schedule/{nightly}/change/"),
            ("admin-triggers", "/admin/schedules/trigger/"),
            ("admin-trigger", f"/admin/schedules/trigger/{triggers[0]['id']}/change/"),
        ]
        for name, path in admin:
            found = visit(page, watch, site.base + path, disable=ADMIN_RULES, phone=False)
            problems += [f"{path}: {p}" for p in found]
            page.screenshot(path=folder / f"{name}.png", full_page=True)
    assert not problems, "\n\n".join(problems)
