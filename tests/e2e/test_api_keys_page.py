"""The API keys' page in Chromium: from the header's user menu, a narrower key made, its text
shown once and working against the API, then revoked; the service accounts' page."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.e2e.browser import Watch, browser, check_accessibility, log_in
from tests.e2e.serving import running_site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with running_site("embedded", tmp_path_factory.mktemp("keys")) as running:
        running.api("POST", "/api/environments/", {"name": "Testing"})
        yield running


def status_with(site, key: str, path: str) -> int:
    request = urllib.request.Request(site.base + path, headers={"Authorization": f"Token {key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_api_keys_page_makes_a_key_shown_once_and_revokes_it(site, shots) -> None:
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        page.get_by_role("link", name="API keys").click()
        page.wait_for_url(site.base + "/account/keys/")
        check_accessibility(page)
        page.fill("#id_name", "nightly report")
        page.select_option("#id_role", label="Viewer")
        page.select_option("#id_environment", label="Testing")
        page.get_by_role("button", name="Make the key").click()
        key = page.locator("#new-key-text").input_value()
        assert key.startswith("otterweb_")
        check_accessibility(page)
        page.screenshot(path=shots / "api-keys-made.png", full_page=True)
        assert status_with(site, key, "/api/servers/") == 200
        row = page.get_by_role("row").filter(has_text="nightly report")
        assert "Viewer" in row.inner_text() and "environment Testing" in row.inner_text()

        page.goto(site.base + "/account/keys/")
        assert key not in page.content()  # shown once
        row = page.get_by_role("row").filter(has_text="nightly report")
        assert "127.0.0.1" in row.inner_text()  # last used from
        row.get_by_role("button", name="Revoke the key nightly report").click()
        page.wait_for_url(site.base + "/account/keys/")
        assert "is revoked" in page.locator(".messages").inner_text()
        page.screenshot(path=shots / "api-keys-revoked.png", full_page=True)
        assert status_with(site, key, "/api/servers/") == 401
        watch.check("the API keys' page")


def test_service_accounts_page_makes_an_account_and_its_key(site, shots) -> None:
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        page.goto(site.base + "/account/keys/")
        page.get_by_role("link", name="Service accounts").click()
        page.fill("#id_username", "deployer")
        page.fill("#id_description", "the CI pipeline")
        page.get_by_role("button", name="Make the service account").click()
        page.wait_for_url("**/account/keys/?user=*")
        assert page.get_by_role("heading", level=1).inner_text() == "API keys of deployer"
        page.fill("#id_name", "pipeline")
        page.get_by_role("button", name="Make the key").click()
        key = page.locator("#new-key-text").input_value()
        assert status_with(site, key, "/api/keys/") == 200
        page.goto(site.base + "/account/service-accounts/")
        check_accessibility(page)
        assert "pipeline" in page.get_by_role("row").filter(has_text="deployer").inner_text()
        page.screenshot(path=shots / "service-accounts.png", full_page=True)
        watch.check("the service accounts' page")
