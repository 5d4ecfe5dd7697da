"""The privileges page in Chromium: reached from the navigation, a role granted to a user on an
environment through the form, shown in the table, then revoked; the user's own view narrowed to
that environment in between."""

from __future__ import annotations

import pytest

from tests.e2e.browser import Watch, browser, check_accessibility, log_in
from tests.e2e.serving import running_site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with running_site("embedded", tmp_path_factory.mktemp("privileges")) as running:
        for name in ("Testing", "Production"):
            running.api("POST", "/api/environments/", {"name": name})
        for name, environment in (("t1", "Testing"), ("p1", "Production")):
            running.api(
                "POST",
                "/api/servers/",
                {
                    "name": name,
                    "agent_type": "ssh",
                    "host": "127.0.0.1",
                    "environments": [environment],
                },
            )
        running.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User; User.objects.create_user('bob', password='bob-password-1')",
        )
        yield running


def test_privileges_page_grants_and_revokes_a_role_on_an_environment(site, shots) -> None:
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        page.get_by_role("link", name="Privileges").click()
        page.wait_for_url(site.base + "/privileges/")
        check_accessibility(page)
        page.select_option("#id_role", label="Viewer")
        page.select_option("#id_user", label="bob")
        page.select_option("#id_scope", value="environment")
        page.select_option("#id_environment", label="Testing")
        page.get_by_role("button", name="Grant").click()
        page.wait_for_url(site.base + "/privileges/")
        row = page.get_by_role("row").filter(has_text="bob")
        assert "Viewer" in row.inner_text() and "environment Testing" in row.inner_text()
        page.screenshot(path=shots / "privileges-granted.png", full_page=True)
        watch.check("the privileges page")

    with browser() as context:  # bob sees Testing's server, not Production's
        page = context.new_page()
        log_in(page, site, username="bob", password="bob-password-1")
        page.goto(site.base + "/inventory/servers/")
        listed = page.locator("main").inner_text()
        assert "t1" in listed and "p1" not in listed
        assert page.goto(site.base + "/inventory/servers/p1/").status == 404

    with browser() as context:
        page = context.new_page()
        log_in(page, site)
        page.goto(site.base + "/privileges/")
        page.get_by_role("button", name="Revoke Viewer for bob on environment Testing").click()
        page.wait_for_url(site.base + "/privileges/")
        assert "Revoked" in page.locator(".messages").inner_text()
        assert page.get_by_role("row").filter(has_text="bob").count() == 0
