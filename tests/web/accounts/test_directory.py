"""LDAP logins (otterweb.accounts.directory) against a real slapd started by the tests
(tests/slapd.py): accounts made on the first login, directory groups mapped onto Django groups,
staff and superuser flags from groups, local accounts never taken over, wrong passwords counted
by django-axes. The settings come from the environment through directory_settings, as in
production."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured

from otterweb.accounts import directory_settings
from otterweb.accounts.directory import dn_key
from otterweb.accounts.groups import mapped_groups
from tests.slapd import GROUPS, PEOPLE_ENTRIES, Slapd, group_dn

LOGIN = "/accounts/login/"


def password(username: str) -> str:
    return PEOPLE_ENTRIES[username][0]


@pytest.fixture(scope="module")
def slapd(tmp_path_factory):
    with Slapd(tmp_path_factory.mktemp("slapd")) as server:
        yield server


@pytest.fixture
def directory(settings, slapd):
    """LDAP on, from the environment a deployment would set; returns a function that sets it
    again with more variables."""
    base_backends = list(settings.AUTHENTICATION_BACKENDS)

    def configure(**extra: str) -> None:
        found = directory_settings.ldap_settings({**slapd.settings(), **extra})
        for name, value in found.items():
            setattr(settings, name, value)
        settings.AUTHENTICATION_BACKENDS = base_backends + directory_settings.backends(found)

    configure()
    return configure


def groups_of(username: str) -> set[str]:
    user = get_user_model().objects.get(username=username)
    return set(user.groups.values_list("name", flat=True))


# ---- settings


def test_ldap_settings_are_nothing_when_the_uri_is_unset() -> None:
    assert directory_settings.ldap_settings({}) == {}
    assert directory_settings.oidc_settings({}) == {}
    assert directory_settings.backends({}) == []


def test_ldap_settings_refuse_a_group_mapping_that_is_not_a_json_object(slapd) -> None:
    env = slapd.settings()
    with pytest.raises(ImproperlyConfigured, match="OTTERWEB_LDAP_GROUPS is not valid JSON"):
        directory_settings.ldap_settings({**env, "OTTERWEB_LDAP_GROUPS": "cn=ops=Operators"})
    with pytest.raises(ImproperlyConfigured, match="must map to a group name"):
        directory_settings.ldap_settings({**env, "OTTERWEB_LDAP_GROUPS": '{"cn=ops": 3}'})


def test_ldap_settings_need_a_group_search_base_for_group_mappings(slapd) -> None:
    env = {**slapd.settings(), "OTTERWEB_LDAP_GROUP_SEARCH_BASE": ""}
    with pytest.raises(ImproperlyConfigured, match="OTTERWEB_LDAP_GROUP_SEARCH_BASE"):
        directory_settings.ldap_settings({**env, "OTTERWEB_LDAP_STAFF_GROUPS": group_dn("x")})
    with pytest.raises(ImproperlyConfigured, match="USER_SEARCH_BASE"):
        directory_settings.ldap_settings({"OTTERWEB_LDAP_URI": slapd.uri})


def test_ldap_settings_read_staff_groups_separated_by_semicolons(slapd) -> None:
    found = directory_settings.ldap_settings(
        {
            **slapd.settings(),
            "OTTERWEB_LDAP_STAFF_GROUPS": f"{group_dn('a')}; {group_dn('b')}",
            "OTTERWEB_LDAP_START_TLS": "1",
        }
    )
    assert found["AUTH_LDAP_USER_FLAGS_BY_GROUP"] == {"is_staff": [group_dn("a"), group_dn("b")]}
    assert found["AUTH_LDAP_START_TLS"] is True
    assert directory_settings.backends(found) == [directory_settings.LDAP_BACKEND]


def test_dn_key_ignores_case_and_spaces_between_parts() -> None:
    assert dn_key("CN=Operators, OU=Groups,dc=otterweb,dc=test") == dn_key(group_dn("operators"))
    assert dn_key(group_dn("operators")) != dn_key(group_dn("auditors"))


def test_mapped_groups_gives_every_django_group_of_every_directory_group() -> None:
    mapping = {"a": ("One",), "b": ("Two", "Three"), "c": ("One",)}
    assert mapped_groups(mapping, ["a", "b", "x"]) == {"One", "Two", "Three"}
    assert mapped_groups(mapping, ["A"], key=str.lower) == {"One"}
    assert mapped_groups(mapping, []) == set()


# ---- logging in


@pytest.mark.django_db
def test_directory_backend_makes_the_account_on_the_first_login(client, directory) -> None:
    answer = client.post(LOGIN, {"username": "alice", "password": password("alice")})
    assert answer.status_code == 302 and answer["Location"] == "/"
    alice = get_user_model().objects.get(username="alice")
    assert (alice.first_name, alice.last_name, alice.email) == (
        "Alice",
        "Liddell",
        "alice@otterweb.test",
    )
    assert not alice.has_usable_password()  # the directory checks it, every time
    assert client.get("/").status_code == 200
    assert not (alice.is_staff or alice.is_superuser)


@pytest.mark.django_db
def test_directory_backend_refuses_a_wrong_password_with_the_usual_message(
    client, directory
) -> None:
    answer = client.post(LOGIN, {"username": "alice", "password": "not-her-password"})
    assert answer.status_code == 200
    assert "Your username and password didn't match" in answer.content.decode()
    unknown = client.post(LOGIN, {"username": "nobody", "password": "whatever-1"})
    assert "didn't match" in unknown.content.decode()
    assert not get_user_model().objects.filter(username__in=["alice", "nobody"]).exists()


@pytest.mark.django_db
def test_directory_backend_maps_directory_groups_onto_django_groups(client, directory) -> None:
    directory(
        OTTERWEB_LDAP_GROUPS=json.dumps(
            {
                # another spelling of the same DN: DNs are compared by their parts
                f"CN=Operators, {GROUPS}": "Operators",
                group_dn("administrators"): ["Administrators", "Operators"],
                group_dn("auditors"): "Auditors",
            }
        )
    )
    alice = get_user_model().objects.create_user("alice")  # made by an earlier login
    alice.set_unusable_password()
    alice.save()
    alice.groups.add(Group.objects.create(name="Auditors"), Group.objects.create(name="By hand"))

    client.post(LOGIN, {"username": "alice", "password": password("alice")})
    # earned: Operators; no longer earned: Auditors; never mapped: By hand (kept)
    assert groups_of("alice") == {"Operators", "By hand"}
    client.logout()
    client.post(LOGIN, {"username": "bob", "password": password("bob")})
    assert groups_of("bob") == {"Operators", "Administrators"}


@pytest.mark.django_db
def test_directory_backend_sets_staff_and_superuser_from_directory_groups(
    client, directory
) -> None:
    directory(
        OTTERWEB_LDAP_STAFF_GROUPS=f"{group_dn('operators')};{group_dn('administrators')}",
        OTTERWEB_LDAP_SUPERUSER_GROUPS=group_dn("administrators"),
    )
    for username in ("alice", "bob", "carol"):
        client.post(LOGIN, {"username": username, "password": password(username)})
        client.logout()
    users = {user.username: user for user in get_user_model().objects.all()}
    assert (users["alice"].is_staff, users["alice"].is_superuser) == (True, False)
    assert (users["bob"].is_staff, users["bob"].is_superuser) == (True, True)
    assert (users["carol"].is_staff, users["carol"].is_superuser) == (False, False)


@pytest.mark.django_db
def test_directory_backend_refuses_people_outside_the_required_group(client, directory) -> None:
    directory(OTTERWEB_LDAP_REQUIRE_GROUP=group_dn("operators"))
    refused = client.post(LOGIN, {"username": "carol", "password": password("carol")})
    assert refused.status_code == 200 and "didn't match" in refused.content.decode()
    assert (
        client.post(LOGIN, {"username": "alice", "password": password("alice")}).status_code == 302
    )


@pytest.mark.django_db
def test_directory_backend_never_takes_over_a_local_account(client, directory, caplog) -> None:
    get_user_model().objects.create_user("alice", password="local-Password-9", is_superuser=True)
    refused = client.post(LOGIN, {"username": "alice", "password": password("alice")})
    assert refused.status_code == 200
    assert "a local account with a password of its own has this username" in caplog.text
    assert password("alice") not in caplog.text
    # the local password still works, beside the directory
    local = client.post(LOGIN, {"username": "alice", "password": "local-Password-9"})
    assert local.status_code == 302


@pytest.mark.django_db
def test_directory_backend_wrong_passwords_are_locked_out_by_axes(
    client, directory, settings
) -> None:
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    settings.OTTERWEB_LOGIN_LOCKOUT_MINUTES = 15
    for _ in range(2):
        wrong = client.post(LOGIN, {"username": "alice", "password": "wrong-1"})
        assert wrong.status_code == 200
    locked = client.post(LOGIN, {"username": "alice", "password": "wrong-1"})
    assert locked.status_code == 429
    # the right directory password does not get in either, until the lockout ends
    again = client.post(LOGIN, {"username": "alice", "password": password("alice")})
    assert again.status_code == 429
    assert not get_user_model().objects.filter(username="alice").exists()


@pytest.mark.django_db
def test_directory_backend_fails_cleanly_when_the_directory_is_down(
    client, directory, caplog
) -> None:
    directory(OTTERWEB_LDAP_URI="ldap://127.0.0.1:9", OTTERWEB_LDAP_TIMEOUT_SECONDS="2")
    get_user_model().objects.create_user("ops", password="ops-Password-1")
    answer = client.post(LOGIN, {"username": "alice", "password": password("alice")})
    assert answer.status_code == 200 and "didn't match" in answer.content.decode()
    assert "LDAPError" in caplog.text
    # local accounts are not held up by it
    assert client.post(LOGIN, {"username": "ops", "password": "ops-Password-1"}).status_code == 302
