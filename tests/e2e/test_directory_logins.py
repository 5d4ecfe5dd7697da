"""Directory logins end to end, in Debian's Chromium: OtterWeb served as a user would (`manage.py
serve`, production settings) with LDAP pointed at a real slapd (tests/slapd.py) and OpenID
Connect at a real provider, a second Django site with django-oauth-toolkit
(tests/oidc_provider), both started here on free ports of 127.0.0.1. People sign in on the
pages: an LDAP user with their directory password on OtterWeb's login page, an OIDC user through
the provider's login and consent pages; directory groups become the mapped Django groups.

Screenshots of every step go to OTTERWEB_SCREENSHOTS when it is set (else the test's tmp
folder)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.browser import Watch, browser, check_accessibility
from tests.e2e.serving import running_site
from tests.oidc_provider import server as provider_server
from tests.oidc_provider.server import OidcProvider
from tests.slapd import PEOPLE_ENTRIES, Slapd, group_dn

CALLBACK = "/accounts/oidc/callback/"
WRONG = "Your username and password didn't match"


@pytest.fixture(scope="module")
def slapd(tmp_path_factory):
    with Slapd(tmp_path_factory.mktemp("slapd")) as server:
        yield server


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    with OidcProvider(tmp_path_factory.mktemp("oidc-provider")) as running:
        yield running


@pytest.fixture(scope="module")
def site(tmp_path_factory, slapd, provider):
    """OtterWeb with both directories on, as an installation would set them."""
    directories = {
        **slapd.settings(),
        "OTTERWEB_LDAP_GROUPS": json.dumps({group_dn("operators"): "Operators"}),
        "OTTERWEB_LDAP_STAFF_GROUPS": group_dn("administrators"),
        **provider.settings(),
        "OTTERWEB_OIDC_GROUPS": json.dumps({"platform-team": ["Operators", "Platform"]}),
        "OTTERWEB_OIDC_STAFF_GROUPS": "platform-team",
    }
    with running_site("embedded", tmp_path_factory.mktemp("site"), **directories) as running:
        provider.register(running.base + CALLBACK)
        yield running


def account(site, username: str) -> dict:
    """The account as OtterWeb stored it: its Django groups and flags."""
    printed = site.manage(
        "shell",
        "-c",
        "import json; from django.contrib.auth.models import User; "
        f"u = User.objects.get(username={username!r}); "
        "print(json.dumps({'groups': sorted(u.groups.values_list('name', flat=True)), "
        "'staff': u.is_staff, 'superuser': u.is_superuser, 'email': u.email, "
        "'password': u.has_usable_password()}))",
    )
    return json.loads(printed.strip().splitlines()[-1])


def signed_in_as(page, username: str) -> None:
    assert page.locator(".site-user span").inner_text() == username


def test_login_page_signs_in_an_ldap_user_with_their_directory_password(site, shots) -> None:
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        page.goto(site.base + "/accounts/login/")
        check_accessibility(page)
        page.screenshot(path=shots / "login-page.png", full_page=True)
        page.fill("#id_username", "alice")
        page.fill("#id_password", PEOPLE_ENTRIES["alice"][0])
        page.click("button[type=submit]")
        page.wait_for_url(site.base + "/")
        signed_in_as(page, "alice")
        page.screenshot(path=shots / "ldap-signed-in.png", full_page=True)
        watch.check("the LDAP login")
    alice = account(site, "alice")
    # a member of cn=operators: the mapped Django group; not of cn=administrators: not staff
    assert alice == {
        "groups": ["Operators"],
        "staff": False,
        "superuser": False,
        "email": "alice@otterweb.test",
        "password": False,
    }


def test_login_page_gives_the_ldap_staff_group_staff(site) -> None:
    with browser() as context:
        page = context.new_page()
        page.goto(site.base + "/accounts/login/")
        page.fill("#id_username", "bob")
        page.fill("#id_password", PEOPLE_ENTRIES["bob"][0])
        page.click("button[type=submit]")
        page.wait_for_url(site.base + "/")
        signed_in_as(page, "bob")
    assert account(site, "bob")["staff"] is True


def test_login_page_refuses_a_wrong_ldap_password_with_the_usual_message(site, shots) -> None:
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        page.goto(site.base + "/accounts/login/")
        page.fill("#id_username", "carol")
        page.fill("#id_password", "not-carols-password")
        page.click("button[type=submit]")
        page.wait_for_load_state()
        assert page.url.startswith(site.base + "/accounts/login/")
        assert WRONG in page.locator(".errors").inner_text()
        page.screenshot(path=shots / "ldap-wrong-password.png", full_page=True)
        watch.check("a wrong LDAP password")
        # the right one then gets in
        page.fill("#id_username", "carol")
        page.fill("#id_password", PEOPLE_ENTRIES["carol"][0])
        page.click("button[type=submit]")
        page.wait_for_url(site.base + "/")
        signed_in_as(page, "carol")


def test_single_sign_on_signs_in_through_the_provider_login_and_consent_pages(
    site, provider, shots
) -> None:
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        watch.expect(provider.base + "/favicon.ico")
        page.goto(site.base + "/accounts/login/")
        page.get_by_role("link", name=f"Sign in with {provider_server.PROVIDER_NAME}").click()
        # the provider's own login page
        page.wait_for_url(f"{provider.base}/accounts/login/**")
        page.screenshot(path=shots / "oidc-provider-login.png", full_page=True)
        page.fill("#id_username", provider_server.USERNAME)
        page.fill("#id_password", provider_server.PASSWORD)
        page.click("button[type=submit]")
        # its consent page, for OtterWeb and the scopes it asked for
        page.wait_for_url(f"{provider.base}/o/authorize/**")
        assert "Authorize OtterWeb?" in page.content()
        assert "The groups you are in" in page.inner_text("body")
        page.screenshot(path=shots / "oidc-provider-consent.png", full_page=True)
        watch.expect(provider.base + "/favicon.ico")
        page.click("input[name=allow]")
        # back at OtterWeb, signed in
        page.wait_for_url(site.base + "/")
        signed_in_as(page, provider_server.USERNAME)
        page.screenshot(path=shots / "oidc-signed-in.png", full_page=True)
        watch.check("single sign-on")
    dana = account(site, provider_server.USERNAME)
    assert dana == {
        "groups": ["Operators", "Platform"],
        "staff": True,
        "superuser": False,
        "email": "dana@provider.test",
        "password": False,
    }


def test_single_sign_on_refused_consent_returns_to_the_login_page_with_a_message(
    site, provider, shots
) -> None:
    with browser() as context:
        page = context.new_page()
        page.goto(site.base + "/accounts/login/?next=/executions/")
        page.get_by_role("link", name=f"Sign in with {provider_server.PROVIDER_NAME}").click()
        page.wait_for_url(f"{provider.base}/accounts/login/**")
        page.fill("#id_username", provider_server.USERNAME)
        page.fill("#id_password", provider_server.PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{provider.base}/o/authorize/**")
        page.get_by_role("button", name="Cancel").click()
        page.wait_for_url(site.base + "/accounts/login/")
        message = page.locator(".messages").inner_text()
        assert f"Signing in with {provider_server.PROVIDER_NAME} failed" in message
        assert page.locator(".site-user").count() == 0  # not signed in
        page.screenshot(path=shots / "oidc-refused.png", full_page=True)
