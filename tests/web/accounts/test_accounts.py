"""Signing in: API tokens stored hashed and expiring (knox), made by `create_token` or
/api/auth/token/; logins locked out after too many wrong passwords (axes) on every path that takes
a password; old DRF tokens carried over as digests; the first administrator's password in an
owner-only file, removed when it is changed."""

from __future__ import annotations

import io
import stat
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import RequestFactory
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from otterweb.accounts import first_admin, lockout, services, tokens

pytestmark = pytest.mark.django_db

PASSWORD = "pw-12345-x"
TOKEN_URL = "/api/auth/token/"


@pytest.fixture
def ops(user_with):
    return user_with(username="ops", password=PASSWORD)


@pytest.fixture
def axes_on(settings):
    """Login throttling as in production (the test settings turn it off)."""
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    settings.OTTERWEB_LOGIN_LOCKOUT_MINUTES = 15


def with_token(text: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {text}")
    return client


# ---- tokens


def test_create_token_prints_a_token_that_is_stored_only_as_its_digest(ops) -> None:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_token", "ops", stdout=out, stderr=err)
    text = out.getvalue().strip()
    assert text.startswith("otterweb_") and len(text.split()) == 1
    assert "valid until" in err.getvalue() and text not in err.getvalue()
    stored = AuthToken.objects.get(user=ops)
    assert text not in (stored.digest, stored.token_key) and len(stored.digest) == 128
    assert with_token(text).get("/api/servers/").status_code != 401


def test_create_token_expires_after_the_setting_or_the_days_given(ops, settings) -> None:
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_TTL": timedelta(days=7)}
    token, _text = tokens.create(user=ops)
    assert abs(token.expiry - (timezone.now() + timedelta(days=7))) < timedelta(minutes=1)
    call_command("create_token", "ops", "--days", "0", stdout=io.StringIO(), stderr=io.StringIO())
    assert AuthToken.objects.filter(user=ops, expiry=None).count() == 1
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("create_token", "nobody", stdout=io.StringIO())


def test_token_authentication_refuses_an_expired_token(ops) -> None:
    token, text = tokens.create(user=ops)
    assert with_token(text).get("/api/servers/").status_code == 403  # known, without permission
    AuthToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    answer = with_token(text).get("/api/servers/")
    assert answer.status_code == 401 and answer.json()["detail"] == "Invalid token."
    assert not AuthToken.objects.filter(pk=token.pk).exists()  # knox deletes it
    assert services.user_for(text) is None


def test_token_endpoint_makes_a_token_for_a_username_and_password(ops) -> None:
    answer = APIClient().post(TOKEN_URL, {"username": "ops", "password": PASSWORD}, format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["expiry"] and services.user_for(body["token"]) == ops
    wrong = APIClient().post(TOKEN_URL, {"username": "ops", "password": "nope"}, format="json")
    assert wrong.status_code == 401
    assert wrong.json() == {"code": "authentication_failed", "detail": "wrong username or password"}
    half = APIClient().post(TOKEN_URL, {"username": "ops"}, format="json")
    assert half.status_code == 400


def test_token_endpoint_makes_a_token_from_a_session_but_not_from_another_token(ops) -> None:
    browser = APIClient()
    browser.force_login(ops)
    answer = browser.post(TOKEN_URL, {}, format="json")
    assert answer.status_code == 201 and services.user_for(answer.json()["token"]) == ops
    # a token cannot renew itself forever: a new one needs the password
    refused = with_token(answer.json()["token"]).post(TOKEN_URL, {}, format="json")
    assert refused.status_code == 401


def test_token_endpoint_delete_revokes_the_token_it_carries(ops) -> None:
    _token, text = tokens.create(user=ops)
    kept, _other = tokens.create(user=ops)
    assert with_token(text).delete(TOKEN_URL).status_code == 204
    assert services.user_for(text) is None
    assert AuthToken.objects.filter(pk=kept.pk).exists()
    assert APIClient().delete(TOKEN_URL).status_code == 401


def test_schema_describes_the_token_authentication(admin_client) -> None:
    schema = admin_client.get("/api/schema/", {"format": "json"}).json()
    scheme = schema["components"]["securitySchemes"]["knoxApiToken"]
    assert scheme["type"] == "apiKey" and scheme["name"] == "Authorization"
    assert "Token" in scheme["description"]
    assert "/api/auth/token/" in schema["paths"]
    assert {"knoxApiToken": []} in schema["paths"]["/api/servers/"]["get"]["security"]


@pytest.mark.django_db(transaction=True)  # SQLite's schema editor works outside a transaction
def test_legacy_drf_tokens_are_carried_over_as_digests_and_their_table_dropped(ops) -> None:
    from django.apps import apps
    from django.db.migrations.recorder import MigrationRecorder

    migration = __import__(
        "otterweb.accounts.migrations.0001_hash_drf_tokens", fromlist=["hash_old_tokens"]
    )
    key = "0123456789abcdef0123456789abcdef01234567"  # DRF's: 40 hexadecimal digits
    with connection.cursor() as cursor:
        cursor.execute(
            'CREATE TABLE authtoken_token ("key" varchar(40) NOT NULL PRIMARY KEY, '
            '"created" timestamp NOT NULL, "user_id" integer NOT NULL)'
        )
        cursor.execute(
            'INSERT INTO authtoken_token ("key", "created", "user_id") VALUES (%s, %s, %s)',
            [key, timezone.now(), ops.pk],
        )
    MigrationRecorder(connection).record_applied("authtoken", "0001_initial")
    with connection.schema_editor() as editor:
        migration.hash_old_tokens(apps, editor)
    assert "authtoken_token" not in connection.introspection.table_names()
    assert not MigrationRecorder(connection).migration_qs.filter(app="authtoken").exists()
    carried = AuthToken.objects.get(user=ops)
    assert key not in (carried.digest, carried.token_key) and carried.expiry > timezone.now()
    assert services.user_for(key) == ops  # clients keep sending the key they have


# ---- login lockout


def test_login_page_locks_a_username_out_after_the_failure_limit(
    client, ops, user_with, axes_on
) -> None:
    for _ in range(2):
        wrong = client.post("/accounts/login/", {"username": "ops", "password": "nope"})
        assert wrong.status_code == 200 and "didn" in wrong.content.decode()
    locked = client.post("/accounts/login/", {"username": "ops", "password": "nope"})
    assert locked.status_code == 429 and locked["Retry-After"] == "900"
    page = locked.content.decode()
    assert "Too many failed logins" in page and "15 minutes" in page
    # the right password does not get in either, until the lockout ends
    right = client.post("/accounts/login/", {"username": "ops", "password": PASSWORD})
    assert right.status_code == 429 and "_auth_user_id" not in client.session
    # another username from the same address is not locked out
    user_with(username="dev", password=PASSWORD)
    other = client.post("/accounts/login/", {"username": "dev", "password": PASSWORD})
    assert other.status_code == 302


@pytest.mark.django_db(transaction=True)
async def test_login_page_locks_out_when_served_over_asgi(async_client, user_with, axes_on) -> None:
    """daphne runs the middleware asynchronously: axes takes another path there."""
    from asgiref.sync import sync_to_async

    await sync_to_async(user_with)(username="ops", password=PASSWORD)
    for _ in range(3):
        answer = await async_client.post(
            "/accounts/login/", {"username": "ops", "password": "nope"}
        )
    assert answer.status_code == 429 and "Too many failed logins" in answer.content.decode()


def test_admin_login_locks_out_and_an_administrator_unlocks(client, ops, axes_on) -> None:
    ops.is_staff = True
    ops.save()
    for _ in range(3):
        answer = client.post("/admin/login/", {"username": "ops", "password": "nope"})
    assert answer.status_code == 429 and "Too many failed logins" in answer.content.decode()
    call_command("axes_reset_username", "ops", stdout=io.StringIO())
    answer = client.post("/admin/login/", {"username": "ops", "password": PASSWORD})
    assert answer.status_code == 302 and client.session["_auth_user_id"] == str(ops.pk)


def test_token_endpoint_locks_out_with_the_api_error_body(ops, axes_on) -> None:
    client = APIClient()
    for _ in range(3):
        answer = client.post(TOKEN_URL, {"username": "ops", "password": "nope"}, format="json")
    assert answer.status_code == 429 and answer.json()["code"] == "locked_out"
    assert "Too many failed logins" in answer.json()["detail"]
    right = client.post(TOKEN_URL, {"username": "ops", "password": PASSWORD}, format="json")
    assert right.status_code == 429 and not AuthToken.objects.exists()


def test_login_success_resets_the_failures_below_the_limit(client, ops, axes_on) -> None:
    for _ in range(2):
        client.post("/accounts/login/", {"username": "ops", "password": "nope"})
    assert (
        client.post("/accounts/login/", {"username": "ops", "password": PASSWORD}).status_code
        == 302
    )
    client.logout()
    for _ in range(2):
        client.post("/accounts/login/", {"username": "ops", "password": "nope"})
    assert (
        client.post("/accounts/login/", {"username": "ops", "password": PASSWORD}).status_code
        == 302
    )


def test_lockout_client_ip_behind_the_proxy_is_the_address_it_added(settings) -> None:
    request = RequestFactory().post(
        "/accounts/login/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9"
    )
    settings.OTTERWEB_BEHIND_PROXY = False
    assert lockout.client_ip(request) == "10.0.0.2"
    settings.OTTERWEB_BEHIND_PROXY = True
    assert lockout.client_ip(request) == "203.0.113.9"  # not what the client wrote itself


# ---- the first administrator


def test_first_admin_password_goes_to_an_owner_only_file(settings, tmp_path) -> None:
    settings.DATA_DIR = tmp_path
    path = first_admin.create_if_none(data=tmp_path)
    assert path == tmp_path / "first-admin-password"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fields = first_admin.read(path)
    assert fields["username"] == "admin"
    assert get_user_model().objects.get(username="admin").check_password(fields["password"])
    assert first_admin.create_if_none(data=tmp_path) is None  # once


def test_first_admin_password_file_is_removed_when_the_password_changes(settings, tmp_path) -> None:
    settings.DATA_DIR = tmp_path
    path = first_admin.create_if_none(data=tmp_path)
    client = APIClient()
    admin = get_user_model().objects.get(username="admin")
    admin.last_login = timezone.now()
    admin.save()  # a login saves the user: the file stays
    assert path.exists()
    client.force_login(admin)
    changed = client.post(
        "/accounts/password_change/",
        {
            "old_password": first_admin.read(path)["password"],
            "new_password1": "a-new-Password-9",
            "new_password2": "a-new-Password-9",
        },
    )
    assert changed.status_code == 302
    assert not path.exists()


def test_serve_first_start_prints_the_password_files_path_not_the_password(
    settings, tmp_path
) -> None:
    from otterweb.management.commands.serve import _first_admin

    settings.DATA_DIR = tmp_path
    out = io.StringIO()
    _first_admin(out)
    printed = out.getvalue()
    password = first_admin.read(tmp_path / "first-admin-password")["password"]
    assert str(tmp_path / "first-admin-password") in printed and password not in printed
    again = io.StringIO()
    _first_admin(again)
    assert again.getvalue() == ""
