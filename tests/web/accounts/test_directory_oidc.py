"""OpenID Connect single sign-on (otterweb.accounts.oidc) without a provider: off by default, the
sign-in redirect (PKCE, state, nonce), the ID token's issuer and audience checks on tokens
signed here, claims onto accounts and groups, local accounts never taken over. The whole flow
against a real provider is tests/e2e/test_directory_logins.py."""

from __future__ import annotations

import importlib
import time
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation
from django.urls import clear_url_caches

import otterweb.urls
from otterweb.accounts import directory_settings, oidc

ISSUER = "https://id.example.test/realms/ops"
AUTHORIZE = "https://id.example.test/authorize"
ENV = {
    "OTTERWEB_OIDC_ISSUER": ISSUER + "/",
    "OTTERWEB_OIDC_CLIENT_ID": "otterweb",
    "OTTERWEB_OIDC_CLIENT_SECRET": "client-secret",
    "OTTERWEB_OIDC_AUTHORIZATION_ENDPOINT": AUTHORIZE,
    "OTTERWEB_OIDC_PROVIDER_NAME": "Example ID",
    "OTTERWEB_OIDC_GROUPS": '{"ops": "Operators", "dba": ["Operators", "Databases"]}',
    "OTTERWEB_OIDC_STAFF_GROUPS": "ops",
    "OTTERWEB_OIDC_SUPERUSER_GROUPS": "root",
}


def load_urls() -> None:
    """otterweb.urls again: its single sign-on addresses exist only while it is on."""
    importlib.reload(otterweb.urls)
    clear_url_caches()


@pytest.fixture
def sso(settings):
    """Single sign-on on, from the environment a deployment would set."""
    found = directory_settings.oidc_settings(ENV)
    for name, value in found.items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = [
        *settings.AUTHENTICATION_BACKENDS,
        *directory_settings.backends(found),
    ]
    load_urls()
    yield found
    settings.OTTERWEB_OIDC_ISSUER = ""
    load_urls()


@pytest.fixture(scope="module")
def key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def signed(key, **claims) -> str:
    payload = {
        "iss": ISSUER,
        "aud": "otterweb",
        "sub": "42",
        "nonce": "n-1",
        "exp": int(time.time()) + 300,
        **claims,
    }
    return jwt.encode(payload, key, algorithm="RS256")


def backend_with(key) -> oidc.SingleSignOnBackend:
    backend = oidc.SingleSignOnBackend()
    backend.OIDC_RP_SIGN_ALGO = "RS256"
    backend.OIDC_RP_IDP_SIGN_KEY = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return backend


def claims(**more) -> dict:
    return {"sub": "42", "preferred_username": "dana", "email": "dana@example.test", **more}


# ---- settings and pages


def test_oidc_settings_need_a_client_id_and_the_openid_scope() -> None:
    with pytest.raises(ImproperlyConfigured, match="OTTERWEB_OIDC_CLIENT_ID"):
        directory_settings.oidc_settings({"OTTERWEB_OIDC_ISSUER": ISSUER})
    with pytest.raises(ImproperlyConfigured, match="must include openid"):
        directory_settings.oidc_settings({**ENV, "OTTERWEB_OIDC_SCOPES": "email profile"})
    found = directory_settings.oidc_settings(ENV)
    assert found["OTTERWEB_OIDC_ISSUER"] == ISSUER  # no trailing slash
    assert found["OTTERWEB_OIDC_GROUPS"]["dba"] == ("Operators", "Databases")
    assert directory_settings.backends(found) == [directory_settings.OIDC_BACKEND]


@pytest.mark.django_db
def test_login_page_offers_no_single_sign_on_when_it_is_off(client) -> None:
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with" not in page
    assert client.get("/accounts/oidc/authenticate/").status_code == 404
    assert client.get("/accounts/oidc/callback/?code=x&state=y").status_code == 404


@pytest.mark.django_db
def test_login_page_offers_single_sign_on_when_it_is_on(client, sso) -> None:
    page = client.get("/accounts/login/?next=/rafts/").content.decode()
    assert 'href="/accounts/oidc/authenticate/?next=/rafts/">Sign in with Example ID</a>' in page


@pytest.mark.django_db
def test_sign_in_view_sends_the_browser_to_the_provider_with_pkce_state_and_nonce(
    client, sso
) -> None:
    answer = client.get("/accounts/oidc/authenticate/?next=/rafts/")
    assert answer.status_code == 302
    sent = urlsplit(answer["Location"])
    assert f"{sent.scheme}://{sent.netloc}{sent.path}" == AUTHORIZE
    query = {name: values[0] for name, values in parse_qs(sent.query).items()}
    assert query["client_id"] == "otterweb" and query["response_type"] == "code"
    assert query["scope"] == "openid email profile"
    assert query["redirect_uri"] == "http://testserver/accounts/oidc/callback/"
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) > 40
    state = client.session["oidc_states"][query["state"]]
    assert state["nonce"] == query["nonce"] and state["code_verifier"]
    assert client.session["oidc_login_next"] == "/rafts/"


@pytest.mark.django_db
def test_sign_in_view_returns_to_the_login_page_when_the_provider_is_unreachable(
    client, sso, settings
) -> None:
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = ""  # from the discovery document, which fails
    settings.OTTERWEB_OIDC_ISSUER = "http://127.0.0.1:9/unreachable"
    settings.OIDC_TIMEOUT = 2
    answer = client.get("/accounts/oidc/authenticate/", follow=True)
    assert answer.redirect_chain[-1][0] == "/accounts/login/"
    assert "Signing in with Example ID failed: the provider could not be reached" in (
        answer.content.decode()
    )


@pytest.mark.django_db
def test_callback_view_refuses_a_state_it_did_not_send(client, sso) -> None:
    answer = client.get("/accounts/oidc/callback/?code=c&state=never-sent", follow=True)
    assert answer.redirect_chain[-1][0] == "/accounts/login/"
    assert "_auth_user_id" not in client.session


# ---- the ID token


def test_single_sign_on_backend_accepts_a_token_of_its_issuer_for_itself(sso, key) -> None:
    payload = backend_with(key).verify_token(signed(key), nonce="n-1")
    assert payload["sub"] == "42"
    listed = backend_with(key).verify_token(signed(key, aud=["other", "otterweb"]), nonce="n-1")
    assert listed["aud"] == ["other", "otterweb"]


@pytest.mark.parametrize(
    ("claims_", "refusal"),
    [
        ({"iss": "https://evil.example.test"}, "issuer"),
        ({"aud": "another-client"}, "not this client"),
        ({"nonce": "n-2"}, "Nonce"),
    ],
)
def test_single_sign_on_backend_refuses_a_token_that_is_not_for_it(
    sso, key, claims_, refusal
) -> None:
    with pytest.raises(SuspiciousOperation, match=refusal):
        backend_with(key).verify_token(signed(key, **claims_), nonce="n-1")


def test_single_sign_on_backend_refuses_an_expired_or_forged_token(sso, key) -> None:
    with pytest.raises(jwt.ExpiredSignatureError):
        backend_with(key).verify_token(signed(key, exp=int(time.time()) - 60), nonce="n-1")
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(SuspiciousOperation, match="verification failed"):
        backend_with(key).verify_token(signed(other), nonce="n-1")


# ---- claims onto accounts


@pytest.mark.django_db
def test_single_sign_on_backend_makes_the_account_and_maps_its_groups(sso) -> None:
    backend = oidc.SingleSignOnBackend()
    user = backend.create_user(claims(groups=["dba", "ops"], given_name="Dana"))
    assert (user.username, user.email, user.first_name) == ("dana", "dana@example.test", "Dana")
    assert not user.has_usable_password()
    assert set(user.groups.values_list("name", flat=True)) == {"Operators", "Databases"}
    assert (user.is_staff, user.is_superuser) == (True, False)
    user.groups.add(Group.objects.create(name="By hand"))
    # the next login: no longer in dba nor ops; a group granted by hand stays
    backend.update_user(user, claims(groups=["root"]))
    assert set(user.groups.values_list("name", flat=True)) == {"By hand"}
    assert (user.is_staff, user.is_superuser) == (False, True)


@pytest.mark.django_db
def test_single_sign_on_backend_never_takes_over_a_local_account(sso, caplog) -> None:
    get_user_model().objects.create_user("Dana", password="local-Password-1")
    with pytest.raises(SuspiciousOperation, match="local account"):
        oidc.SingleSignOnBackend().filter_users_by_claims(claims())
    assert "a local account with a password of its own" in caplog.text


@pytest.mark.django_db
def test_single_sign_on_backend_finds_the_account_it_made_before(sso) -> None:
    backend = oidc.SingleSignOnBackend()
    made = backend.create_user(claims())
    assert list(backend.filter_users_by_claims(claims(preferred_username="DANA"))) == [made]


def test_single_sign_on_backend_verify_claims_wants_a_username_and_the_required_group(
    sso, settings
) -> None:
    backend = oidc.SingleSignOnBackend()
    assert backend.verify_claims(claims())
    assert not backend.verify_claims(claims(preferred_username=""))
    assert not backend.verify_claims(claims(preferred_username="dana scully"))
    settings.OTTERWEB_OIDC_REQUIRE_GROUP = "ops"
    assert not backend.verify_claims(claims(groups=["dba"]))
    assert backend.verify_claims(claims(groups=["ops"]))


@pytest.mark.django_db
def test_single_sign_on_backend_leaves_password_logins_alone(client, sso, user_with) -> None:
    user_with(username="ops", password="ops-Password-1")
    answer = client.post("/accounts/login/", {"username": "ops", "password": "ops-Password-1"})
    assert answer.status_code == 302
    wrong = client.post("/accounts/login/", {"username": "ops", "password": "wrong"})
    assert wrong.status_code == 200
