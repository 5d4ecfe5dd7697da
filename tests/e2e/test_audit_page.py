"""The audit trail's page in Debian's Chromium, on a real server: a failed login, a login and
changes made through the API are there, newest first, with who and from where; the filters
narrow it; the page has no console error, no failed request and no axe-core violation."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.e2e.browser import Watch, browser, check_accessibility, log_in
from tests.e2e.serving import Site, stop

# where the screenshot is kept for a person to look at (OTTERWEB_SCREENSHOTS, or the test's folder)
SHOTS = os.environ.get("OTTERWEB_SCREENSHOTS", "")


def test_audit_page_shows_logins_and_changes_and_filters_them(tmp_path) -> None:
    site = Site(tmp_path)
    server = site.serve(subprocess.DEVNULL)
    try:
        site.api("POST", "/api/environments/", {"name": "production", "description": "live"})
        site.api("POST", "/api/credentials/", {"name": "deploy", "secret": "pw-e2e-not-shown"})
        site.api("PATCH", "/api/environments/production/", {"description": "customers"})
        with browser() as context:
            page = context.new_page()
            watch = Watch().attach(page)
            page.goto(site.base + "/accounts/login/")
            page.fill("#id_username", "ops")
            page.fill("#id_password", "not-the-password")
            page.click("button[type=submit]")
            watch.expected.add(site.base + "/accounts/login/")  # the refusal answers 200 anyway
            log_in(page, site)
            page.goto(site.base + "/audit/")
            watch.check("the audit page")
            rows = page.locator("tbody tr")
            text = page.locator("tbody").inner_text()
            assert "failed login" in text and "login" in text
            assert "customers" in text and "127.0.0.1" in text
            assert "pw-e2e-not-shown" not in page.content()
            first = rows.first.inner_text()
            assert "login" in first and "ops" in first  # newest first: the login just made
            check_accessibility(page)
            shot = Path(SHOTS or tmp_path) / "audit-page.png"
            page.screenshot(path=str(shot), full_page=True)
            page.select_option("#id_kind", "inventory.environment")
            page.select_option("#id_action", "update")
            page.click("form.filters button[type=submit]")
            page.wait_for_url("**/audit/?*")
            assert rows.count() == 1
            assert "customers" in rows.first.inner_text()
            watch.check("the filtered audit page")
            check_accessibility(page)
    finally:
        stop(server)
