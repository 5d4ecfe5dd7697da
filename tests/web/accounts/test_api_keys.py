"""API keys: named knox tokens shown once and stored hashed, expiring, revocable,
their last use and address recorded, an optional narrower role and scope that a key can never
hold beyond its owner (API and websockets alike), service accounts, and the keys' page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import authenticate
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from otterweb.accounts import services, tokens
from otterweb.accounts.models import ApiKey
from otterweb.asgi import application
from otterweb.executions.services import create_job, save_job_template
from otterweb.housekeeping import ROUNDS
from otterweb.inventory import services as inventory
from otterweb.privileges.models import Grant, Role
from otterweb.rafts import services as rafts

KEYS = "/api/keys/"


def with_key(text: str, **extra) -> APIClient:
    client = APIClient(**extra)
    client.credentials(HTTP_AUTHORIZATION=f"Token {text}")
    return client


def session_of(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def role(name: str) -> Role:
    return Role.objects.get(name=name)


@pytest.fixture
def places(db):
    """Testing and Production, a server in each, and a template run on each."""
    testing = inventory.save_environment(name="Testing")
    production = inventory.save_environment(name="Production")
    test1 = inventory.save_server(name="test1", environments=[testing])
    prod1 = inventory.save_server(name="prod1", environments=[production])
    raft = rafts.create_raft(name="ops")
    item = rafts.create_item(raft=raft, name="hello", kind="script", content="Log-Information x;")
    return {
        "testing": testing,
        "production": production,
        "test1": test1,
        "prod1": prod1,
        "test_template": save_job_template(
            name="Hello testing", raft_item=item, targeting="servers", servers=[test1]
        ),
        "prod_template": save_job_template(
            name="Hello production", raft_item=item, targeting="servers", servers=[prod1]
        ),
    }


@pytest.fixture(params=["administrator", "superuser"])
def owner(request, django_user_model, places):
    """An Administrator everywhere (a grant), or a superuser."""
    if request.param == "superuser":
        return django_user_model.objects.create_superuser(username="root", password="x")
    user = django_user_model.objects.create_user(username="boss", password="x")
    Grant.objects.create(role=role("Administrator"), user=user)
    return user


@pytest.fixture
def ops(django_user_model, db):
    return django_user_model.objects.create_user(username="ops", password="pw-of-ops")


# ---- making, expiry, revocation, use


def test_api_keys_post_shows_the_text_once_and_stores_only_its_digest(ops) -> None:
    answer = session_of(ops).post(KEYS, {"name": "ci", "expires_in_days": 30}, format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    text = body["key"]
    assert body["name"] == "ci" and body["state"] == "active" and body["user"] == "ops"
    stored = ApiKey.objects.get(pk=body["id"]).token
    assert text not in (stored.digest, stored.token_key) and len(stored.digest) == 128
    assert abs(stored.expiry - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    listed = session_of(ops).get(KEYS)
    assert text not in listed.content.decode() and "key" not in listed.json()["results"][0]
    assert with_key(text).get(KEYS).status_code == 200


def test_api_keys_post_is_refused_with_a_key(ops) -> None:
    _token, text = tokens.create(user=ops)
    answer = with_key(text).post(KEYS, {"name": "renewed"}, format="json")
    assert answer.status_code == 403 and "session" in answer.json()["detail"]
    assert not ApiKey.objects.filter(name="renewed").exists()


def test_api_keys_list_names_tokens_of_the_token_endpoint_unnamed(ops) -> None:
    made = APIClient().post(
        "/api/auth/token/", {"username": "ops", "password": "pw-of-ops"}, format="json"
    )
    assert made.status_code == 201
    listed = with_key(made.json()["token"]).get(KEYS).json()["results"]
    assert [(k["name"], k["state"]) for k in listed] == [("(unnamed)", "active")]


def test_key_authentication_refuses_an_expired_key(ops) -> None:
    key, text = services.create_key(actor=ops, owner=ops, name="short", days=1)
    assert with_key(text).get(KEYS).status_code == 200
    AuthToken.objects.filter(pk=key.token_id).update(expiry=timezone.now() - timedelta(seconds=1))
    assert with_key(text).get(KEYS).status_code == 401
    key.refresh_from_db()
    assert key.state == ApiKey.State.EXPIRED and key.token_id is None  # listed, expired


def test_key_authentication_reads_token_user_and_key_in_one_query(ops) -> None:
    key, text = services.create_key(actor=ops, owner=ops, name="ci")
    services.authenticate(text, address="192.0.2.7")  # its first use is written
    with CaptureQueriesContext(connection) as queries:
        user, token = services.authenticate(text, address="192.0.2.7")
    assert (user, token.pk) == (ops, key.token_id)
    assert len(queries) == 1, [query["sql"] for query in queries]
    key.refresh_from_db()
    assert key.last_address == "192.0.2.7"


def test_delete_expired_tokens_deletes_only_tokens_past_their_expiry(ops) -> None:
    expired, _text = services.create_key(actor=ops, owner=ops, name="old", days=1)
    kept, _text = services.create_key(actor=ops, owner=ops, name="new", days=1)
    forever, _text = services.create_key(actor=ops, owner=ops, name="forever", days=0)
    AuthToken.objects.filter(pk=expired.token_id).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    assert ROUNDS["otterweb-expired-tokens"].run() == 1
    for key in (expired, kept, forever):
        key.refresh_from_db()
    assert [k.state for k in (expired, kept, forever)] == [ApiKey.State.EXPIRED] + [
        ApiKey.State.ACTIVE
    ] * 2
    assert expired.token_id is None and AuthToken.objects.count() == 2


def test_api_keys_delete_revokes_the_key(ops) -> None:
    key, text = services.create_key(actor=ops, owner=ops, name="ci")
    kept, kept_text = services.create_key(actor=ops, owner=ops, name="other")
    assert session_of(ops).delete(f"{KEYS}{key.pk}/").status_code == 204
    assert with_key(text).get(KEYS).status_code == 401
    assert with_key(kept_text).get(KEYS).status_code == 200
    key.refresh_from_db()
    assert key.state == ApiKey.State.REVOKED and key.revoked_by == ops
    assert not AuthToken.objects.filter(user=ops).exclude(pk=kept.token_id).exists()


def test_api_keys_delete_answers_404_for_another_users_key(ops, django_user_model) -> None:
    other = django_user_model.objects.create_user(username="other")
    key, text = services.create_key(actor=other, owner=other, name="theirs")
    assert session_of(ops).delete(f"{KEYS}{key.pk}/").status_code == 404
    assert with_key(text).get(KEYS).status_code == 200


def test_key_authentication_records_last_use_and_address_at_most_once_a_minute(ops) -> None:
    key, text = services.create_key(actor=ops, owner=ops, name="ci")
    assert key.last_used is None
    assert with_key(text, REMOTE_ADDR="10.1.2.3").get(KEYS).status_code == 200
    key.refresh_from_db()
    first = key.last_used
    assert first is not None and key.last_address == "10.1.2.3"
    with_key(text, REMOTE_ADDR="10.9.9.9").get(KEYS)  # within the minute: not written
    key.refresh_from_db()
    assert (key.last_used, key.last_address) == (first, "10.1.2.3")
    ApiKey.objects.filter(pk=key.pk).update(last_used=first - timedelta(minutes=2))
    with_key(text, REMOTE_ADDR="10.9.9.9").get(KEYS)
    key.refresh_from_db()
    assert key.last_used > first and key.last_address == "10.9.9.9"


# ---- a narrower key


@pytest.fixture
def viewer_of_testing(owner, places) -> str:
    _key, text = services.create_key(
        actor=owner, owner=owner, name="ci", role=role("Viewer"), environment=places["testing"]
    )
    return text


def test_narrower_key_sees_and_does_only_what_its_role_allows_on_its_scope(
    owner, places, viewer_of_testing
) -> None:
    _key, full = services.create_key(actor=owner, owner=owner, name="full")
    assert with_key(full).get("/api/servers/prod1/").status_code == 200  # the owner may
    client = with_key(viewer_of_testing)
    assert client.get("/api/servers/prod1/").status_code == 404
    assert client.get("/api/servers/test1/").status_code == 200
    assert [s["name"] for s in client.get("/api/servers/").json()["results"]] == ["test1"]
    launch = client.post(
        f"/api/job-templates/{places['test_template'].pk}/launch/", {}, format="json"
    )
    assert launch.status_code == 403
    owner.refresh_from_db()
    assert owner.is_superuser == (owner.username == "root")  # the flag is off in memory only


async def connect(execution_id: int, text: str) -> bool:
    connection = WebsocketCommunicator(
        application,
        f"/ws/executions/{execution_id}/",
        headers=[
            (b"authorization", f"Token {text}".encode()),
            (b"origin", b"http://127.0.0.1"),
            (b"host", b"127.0.0.1"),
        ],
    )
    connected, _code = await connection.connect()
    await connection.disconnect()
    return connected


@pytest.mark.django_db(transaction=True)
async def test_narrower_key_websocket_of_another_environments_execution_is_refused(
    owner, places, viewer_of_testing
) -> None:
    production = await sync_to_async(create_job)(script="Log-Information x;", servers=["prod1"])
    testing = await sync_to_async(create_job)(script="Log-Information x;", servers=["test1"])
    _key, full = await sync_to_async(services.create_key)(actor=owner, owner=owner, name="full")
    assert await connect(production.pk, full)
    assert await connect(testing.pk, viewer_of_testing)
    assert not await connect(production.pk, viewer_of_testing)


def test_create_key_refuses_a_key_wider_than_its_owner(places, django_user_model) -> None:
    tester = django_user_model.objects.create_user(username="tester")
    Grant.objects.create(role=role("Viewer"), user=tester, environment=places["testing"])
    client = session_of(tester)
    for wider in (
        {"role": role("Operator").pk, "environment": places["testing"].pk},
        {"role": role("Viewer").pk, "environment": places["production"].pk},
        {"role": role("Viewer").pk},
    ):
        answer = client.post(KEYS, {"name": "wide", **wider}, format="json")
        assert answer.status_code == 400, wider
        assert "cannot be wider than its owner" in answer.json()["errors"]["role"][0]
    assert not ApiKey.objects.filter(user=tester).exists()
    fits = {"name": "fits", "role": role("Viewer").pk, "environment": places["testing"].pk}
    assert client.post(KEYS, fits, format="json").status_code == 201


def test_create_key_refuses_an_environment_and_a_raft_together(ops, places) -> None:
    raft = places["test_template"].raft_item.raft
    both = {"name": "both", "environment": places["testing"].pk, "raft": raft.pk}
    assert session_of(ops).post(KEYS, both, format="json").status_code == 400


def test_api_key_deleted_with_its_environment_takes_its_token_along(owner, places) -> None:
    key, text = services.create_key(
        actor=owner, owner=owner, name="ci", environment=places["testing"]
    )
    places["test_template"].delete()
    places["testing"].delete()
    assert not AuthToken.objects.filter(pk=key.token_id).exists()
    assert with_key(text).get(KEYS).status_code == 401


# ---- service accounts


@pytest.fixture
def admin(django_user_model, db):
    return django_user_model.objects.create_superuser(username="admin", password="x")


def test_service_account_cannot_log_in_with_a_password(admin) -> None:
    robot = services.create_service_account(actor=admin, username="deployer")
    assert not robot.has_usable_password()
    robot.set_password("even-if-one-is-set")
    robot.save()
    assert authenticate(username="deployer", password="even-if-one-is-set") is None
    assert not APIClient().login(username="deployer", password="even-if-one-is-set")
    answer = APIClient().post(
        "/api/auth/token/",
        {"username": "deployer", "password": "even-if-one-is-set"},
        format="json",
    )
    assert answer.status_code == 401


def test_service_account_keys_are_made_and_revoked_by_administrators_only(admin, ops) -> None:
    robot = services.create_service_account(actor=admin, username="deployer")
    refused = session_of(ops).post(KEYS, {"name": "ci", "user": robot.pk}, format="json")
    assert refused.status_code == 403
    made = session_of(admin).post(KEYS, {"name": "ci", "user": robot.pk}, format="json")
    assert made.status_code == 201 and made.json()["user"] == "deployer"
    text, pk = made.json()["key"], made.json()["id"]
    assert with_key(text).get(KEYS).status_code == 200  # the robot may list its keys
    assert session_of(ops).delete(f"{KEYS}{pk}/").status_code == 404
    assert [k["id"] for k in session_of(admin).get(KEYS).json()["results"]] == [pk]
    assert session_of(admin).delete(f"{KEYS}{pk}/").status_code == 204
    assert with_key(text).get(KEYS).status_code == 401


def test_create_service_account_is_refused_to_a_non_administrator(ops) -> None:
    with pytest.raises(services.PermissionDenied):
        services.create_service_account(actor=ops, username="sneaky")


# ---- pages


def test_keys_page_shows_a_new_keys_text_once_and_revokes_it(ops, places) -> None:
    Grant.objects.create(role=role("Viewer"), user=ops, environment=places["testing"])
    client = session_of(ops)
    assert client.get("/account/keys/").status_code == 200
    made = client.post(
        "/account/keys/",
        {"name": "laptop", "expires_in_days": 7, "environment": places["testing"].pk},
    )
    assert made.status_code == 200 and made["Cache-Control"] == "no-store"
    key = ApiKey.objects.get(user=ops, name="laptop")
    text = made.context["text"]
    assert text in made.content.decode() and services.user_for(text) == ops
    again = client.get("/account/keys/").content.decode()
    assert text not in again and "laptop" in again and "environment Testing" in again
    revoked = client.post(f"/account/keys/{key.pk}/revoke/", follow=True)
    assert revoked.status_code == 200 and "is revoked" in revoked.content.decode()
    assert services.user_for(text) is None


def test_keys_page_answers_400_for_a_key_wider_than_its_owner(ops, places) -> None:
    answer = session_of(ops).post(
        "/account/keys/", {"name": "wide", "expires_in_days": 7, "role": role("Viewer").pk}
    )
    assert answer.status_code == 400
    assert "cannot be wider than its owner" in answer.content.decode()


def test_service_accounts_page_is_for_administrators(admin, ops) -> None:
    assert session_of(ops).get("/account/service-accounts/").status_code == 403
    client = session_of(admin)
    made = client.post("/account/service-accounts/", {"username": "deployer"})
    robot = ApiKey._meta.get_field("user").related_model.objects.get(username="deployer")
    assert made.status_code == 302 and made["Location"] == f"/account/keys/?user={robot.pk}"
    assert "deployer" in client.get("/account/service-accounts/").content.decode()
    assert session_of(ops).get(f"/account/keys/?user={robot.pk}").status_code == 404


def test_key_used_narrower_key_keeps_the_owners_django_permissions_to_its_limit(
    places, user_with
) -> None:
    owner = user_with("executions.run_jobtemplate", "inventory.view_server")
    Grant.objects.create(role=role("Administrator"), user=owner)
    _key, text = services.create_key(
        actor=owner, owner=owner, name="ci", role=role("Viewer"), environment=places["testing"]
    )
    assert owner.has_perm("executions.run_jobtemplate")
    user = services.user_for(text)
    assert not user.has_perm("executions.run_jobtemplate")  # not the key's role
    assert user.has_perm("inventory.view_server")  # the key's role, on Testing
    assert not user.has_perm("inventory.view_server", places["prod1"])
    assert user.has_perm("inventory.view_server", places["test1"])
