"""Triggers: a template's secret URL. A token in the URL or a webhook signed with HMAC-SHA256
starts one execution; a bad token or signature, a stale timestamp, a delivery that came before,
variables the template or trigger does not take are refused, and then nothing runs; calls are
throttled per trigger. Made, listed and deleted through the API."""

from __future__ import annotations

import html
import json
import re
import time
import uuid
from datetime import UTC, datetime

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from otterweb.executions.models import Execution
from otterweb.executions.services import save_job_template
from otterweb.rafts.models import Raft
from otterweb.rafts.services import save_item
from otterweb.schedules import services, signing
from otterweb.schedules.models import Trigger, TriggerDelivery
from otterweb.secrets import decrypt
from tests.web.schedules.conftest import owner

pytestmark = pytest.mark.django_db

NOT_ACCEPTED = {"code": "not_accepted", "detail": "not accepted"}
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def fresh_throttle():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def token_trigger(deploy):
    return create_trigger(template=deploy, name="CI", kind="token", allow_variables=True)


@pytest.fixture
def webhook(deploy):
    return create_trigger(template=deploy, name="GitHub", kind="webhook", allow_variables=True)


def create_trigger(**fields):
    """A trigger of the tests' owner (a superuser): its calls run on that owner's behalf."""
    return services.create_trigger(created_by=owner(), **fields)


def url(trigger: Trigger) -> str:
    return reverse("api:trigger-pull", args=[trigger.pk])


def pull(trigger, *, token=None, body: bytes = b"", headers: dict | None = None, client=None):
    address = url(trigger) + (f"?token={token}" if token is not None else "")
    client = client or Client()
    return client.post(address, data=body, content_type="application/json", headers=headers or {})


def signed(key: str, body: bytes, *, timestamp: int | None = None, **headers) -> dict:
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    return {
        "X-OtterWeb-Timestamp": stamp,
        "X-OtterWeb-Signature": signing.signature_header(key, stamp, body),
        **headers,
    }


def variables(**values) -> bytes:
    return json.dumps({"variables": values}).encode()


# ---- tokens


def test_trigger_token_starts_one_execution_with_the_variables_given(token_trigger) -> None:
    trigger, token = token_trigger
    response = pull(trigger, token=token, body=variables(Version="2.5", Channel="beta"))
    assert response.status_code == 202, response.content
    execution = Execution.objects.get()
    answer = response.json()
    assert answer["execution"] == execution.pk
    assert answer["url"] == f"http://testserver/executions/{execution.pk}/"
    assert answer["api_url"] == f"http://testserver/api/executions/{execution.pk}/"
    assert response["Location"] == answer["url"]
    assert execution.job.variables == {"Version": "2.5", "Verbose": "false", "Channel": "beta"}
    assert execution.job.requested_by == owner() and execution.job.template == trigger.template
    trigger.refresh_from_db()
    assert trigger.last_execution == execution and trigger.last_used is not None


def test_trigger_execution_page_says_which_trigger_on_whose_behalf_and_the_values(
    token_trigger, client
) -> None:
    trigger, token = token_trigger
    pull(trigger, token=token, body=variables(Version="2.5"))
    execution = Execution.objects.get()
    assert execution.job.origin == "trigger CI"
    client.force_login(owner())
    page = client.get(reverse("execution-detail", args=[execution.pk])).content.decode()
    assert f"trigger CI, on behalf of {owner().username}" in page
    assert '<span class="mono">Version</span> = <span class="mono">2.5</span>' in page


def test_trigger_token_without_a_body_runs_with_the_defaults(token_trigger) -> None:
    trigger, token = token_trigger
    assert pull(trigger, token=token).status_code == 202
    assert Execution.objects.get().job.variables["Version"] == "1.0"


def test_trigger_token_may_come_in_a_header(token_trigger) -> None:
    trigger, token = token_trigger
    assert pull(trigger, headers={"X-OtterWeb-Token": token}).status_code == 202


def test_trigger_token_refused_when_wrong_missing_or_of_another_trigger(
    token_trigger, deploy
) -> None:
    trigger, token = token_trigger
    _other, other_token = create_trigger(template=deploy, name="other")
    for response in (
        pull(trigger, token=token[:-1] + ("A" if token[-1] != "A" else "B")),
        pull(trigger, token=""),
        pull(trigger),
        pull(trigger, token=other_token),
        pull(Trigger(pk=uuid.uuid4()), token=token),
    ):
        assert response.status_code == 403
        assert response.json() == NOT_ACCEPTED  # never which part
    assert not Execution.objects.exists()


def test_trigger_disabled_is_not_accepted(token_trigger) -> None:
    trigger, token = token_trigger
    Trigger.objects.filter(pk=trigger.pk).update(enabled=False)
    assert pull(trigger, token=token).status_code == 403
    assert not Execution.objects.exists()


def test_trigger_refuses_variables_it_does_not_allow(deploy) -> None:
    trigger, token = create_trigger(template=deploy, name="fixed")
    response = pull(trigger, token=token, body=variables(Version="9"))
    assert response.status_code == 400
    assert "takes no variables" in response.json()["detail"]
    assert not Execution.objects.exists()
    assert pull(trigger, token=token, body=b'{"variables": {}}').status_code == 202


def test_trigger_refuses_variables_the_template_does_not_declare(token_trigger) -> None:
    trigger, token = token_trigger
    response = pull(trigger, token=token, body=variables(Version="2", Region="eu"))
    assert response.status_code == 400
    assert "does not ask for Region" in response.json()["detail"]
    response = pull(trigger, token=token, body=variables(Channel="nightly"))
    assert response.status_code == 400 and "Channel" in response.json()["detail"]
    assert not Execution.objects.exists()


def test_trigger_refuses_a_nul_character_in_its_variables(token_trigger) -> None:
    trigger, token = token_trigger
    response = pull(trigger, token=token, body=b'{"variables": {"Version": "2\\u0000"}}')
    assert response.status_code == 400
    assert "'Version' holds a NUL character" in response.json()["detail"]
    assert not Execution.objects.exists()


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[1, 2]", b'{"variables": [1]}', b'{"variabels": {"Version": "2"}}'],
)
def test_trigger_token_refuses_a_body_that_is_not_variables(token_trigger, body) -> None:
    trigger, token = token_trigger
    assert pull(trigger, token=token, body=body).status_code == 400
    assert not Execution.objects.exists()


def test_trigger_needs_no_login_and_no_csrf_token(token_trigger) -> None:
    trigger, token = token_trigger
    client = Client(enforce_csrf_checks=True)
    assert pull(trigger, token=token, client=client).status_code == 202


# ---- webhooks


def test_trigger_webhook_signed_starts_one_execution(webhook) -> None:
    trigger, key = webhook
    body = variables(Version="3.1")
    response = pull(trigger, body=body, headers=signed(key, body))
    assert response.status_code == 202, response.content
    execution = Execution.objects.get()
    assert response.json()["execution"] == execution.pk
    assert execution.job.variables["Version"] == "3.1"


def test_trigger_webhook_takes_any_payload_without_variables(webhook) -> None:
    trigger, key = webhook
    for body in (b'{"ref": "refs/heads/main", "after": "abc"}', b"ref=main", b""):
        assert pull(trigger, body=body, headers=signed(key, body)).status_code == 202
    assert Execution.objects.count() == 3
    assert {e.job.variables["Version"] for e in Execution.objects.all()} == {"1.0"}


def test_trigger_webhook_refuses_a_bad_signature(webhook) -> None:
    trigger, key = webhook
    body = variables(Version="3.1")
    good = signed(key, body)
    for headers in (
        signed("another key", body),
        {**good, "X-OtterWeb-Signature": good["X-OtterWeb-Signature"].replace("sha256=", "")},
        {**good, "X-OtterWeb-Signature": "sha256=" + "0" * 64},
        {"X-OtterWeb-Timestamp": good["X-OtterWeb-Timestamp"]},
        {**good, "X-OtterWeb-Timestamp": str(int(good["X-OtterWeb-Timestamp"]) + 1)},
    ):
        response = pull(trigger, body=body, headers=headers)
        assert (response.status_code, response.json()) == (403, NOT_ACCEPTED)
    # the body changed after it was signed
    response = pull(trigger, body=variables(Version="6.6"), headers=good)
    assert (response.status_code, response.json()) == (403, NOT_ACCEPTED)
    # a token is no signature
    trigger_token = pull(trigger, token=key, body=body)
    assert trigger_token.status_code == 403
    assert not Execution.objects.exists()


@pytest.mark.parametrize("offset", [-301, 301, -86400])
def test_trigger_webhook_refuses_a_stale_timestamp(webhook, offset) -> None:
    trigger, key = webhook
    body = b"{}"
    with time_machine.travel(NOW, tick=False):
        headers = signed(key, body, timestamp=int(NOW.timestamp()) + offset)
        response = pull(trigger, body=body, headers=headers)
    assert (response.status_code, response.json()) == (403, NOT_ACCEPTED)
    assert not Execution.objects.exists()


@pytest.mark.parametrize("offset", [-300, 300])
def test_trigger_webhook_takes_a_timestamp_within_five_minutes(webhook, offset) -> None:
    trigger, key = webhook
    body = b"{}"
    with time_machine.travel(NOW, tick=False):
        headers = signed(key, body, timestamp=int(NOW.timestamp()) + offset)
        assert pull(trigger, body=body, headers=headers).status_code == 202


@pytest.mark.parametrize("stamp", ["", "soon", "1e9", "99999999999999999999"])
def test_trigger_webhook_refuses_a_timestamp_that_is_no_time(webhook, stamp) -> None:
    trigger, key = webhook
    # signed with the right key: the timestamp alone is wrong
    headers = {
        "X-OtterWeb-Timestamp": stamp,
        "X-OtterWeb-Signature": signing.signature_header(key, stamp, b"{}"),
    }
    assert pull(trigger, body=b"{}", headers=headers).status_code == 403


def test_trigger_refuses_a_delivery_id_used_before(webhook) -> None:
    trigger, key = webhook
    first = b'{"n": 1}'
    response = pull(
        trigger, body=first, headers=signed(key, first, **{"X-OtterWeb-Delivery": "d-1"})
    )
    assert response.status_code == 202
    second = b'{"n": 2}'  # another message, signed anew, with the same delivery id
    response = pull(
        trigger, body=second, headers=signed(key, second, **{"X-OtterWeb-Delivery": "d-1"})
    )
    assert response.status_code == 409 and response.json()["code"] == "replayed"
    assert Execution.objects.count() == 1
    assert TriggerDelivery.objects.get().delivery_id == "d-1"


def test_trigger_refuses_the_same_signed_message_twice(webhook) -> None:
    trigger, key = webhook
    body = b'{"ref": "main"}'
    headers = signed(key, body)
    assert pull(trigger, body=body, headers=headers).status_code == 202
    assert pull(trigger, body=body, headers=headers).status_code == 409
    # a new delivery id does not make a captured message new
    again = {**headers, "X-OtterWeb-Delivery": "fresh"}
    assert pull(trigger, body=body, headers=again).status_code == 409
    assert Execution.objects.count() == 1


def test_trigger_token_delivery_id_taken_once(token_trigger) -> None:
    trigger, token = token_trigger
    once = {"X-OtterWeb-Delivery": "build-77"}
    assert pull(trigger, token=token, headers=once).status_code == 202
    assert pull(trigger, token=token, headers=once).status_code == 409
    assert pull(trigger, token=token).status_code == 202  # without one: no replay check
    assert Execution.objects.count() == 2


def test_trigger_delivery_refused_for_its_variables_is_not_remembered(token_trigger) -> None:
    trigger, token = token_trigger
    once = {"X-OtterWeb-Delivery": "build-78"}
    assert pull(trigger, token=token, headers=once, body=variables(Nope="1")).status_code == 400
    assert not TriggerDelivery.objects.exists()
    assert pull(trigger, token=token, headers=once).status_code == 202


def test_trigger_replay_is_checked_after_the_signature(webhook) -> None:
    trigger, key = webhook
    body = b"{}"
    assert (
        pull(
            trigger, body=body, headers=signed(key, body, **{"X-OtterWeb-Delivery": "x"})
        ).status_code
        == 202
    )
    forged = {**signed("guess", body), "X-OtterWeb-Delivery": "x"}
    assert pull(trigger, body=body, headers=forged).status_code == 403


def test_trigger_throttled_per_trigger(token_trigger, deploy, settings) -> None:
    settings.OTTERWEB_TRIGGER_THROTTLE_RATE = "3/minute"
    trigger, token = token_trigger
    assert [pull(trigger, token=token).status_code for _ in range(3)] == [202, 202, 202]
    throttled = pull(trigger, token=token)
    assert throttled.status_code == 429 and throttled.json()["code"] == "throttled"
    assert "Retry-After" in throttled.headers
    # bad calls count too, and another trigger has its own count
    other, other_token = create_trigger(template=deploy, name="other")
    assert pull(other, token="wrong").status_code == 403
    assert pull(other, token=other_token).status_code == 202
    assert Execution.objects.count() == 4


def test_trigger_secrets_stored_as_digest_and_encrypted_and_never_logged(
    token_trigger, webhook, caplog
) -> None:
    trigger, token = token_trigger
    hook, key = webhook
    assert trigger.token_digest == signing.digest(token) and token not in trigger.token_digest
    assert hook.encrypted_secret != key and decrypt(hook.encrypted_secret) == key
    assert token.startswith("otwt_") and len(token) > 40
    pull(trigger, token=token)
    pull(trigger, token=token + "x")
    body = b"{}"
    pull(hook, body=body, headers=signed(key, body))
    pull(hook, body=body, headers=signed("wrong", body))
    assert caplog.text and token not in caplog.text and key not in caplog.text
    assert f"trigger={trigger.pk} reason=token message='call not accepted'" in caplog.text


# ---- the API that makes them


def test_trigger_api_makes_lists_and_deletes_triggers(client_with, deploy) -> None:
    client = client_with(
        "executions.view_jobtemplate",
        "executions.run_jobtemplate",
        "executions.run_on_local_server",
        "schedules.view_trigger",
        "schedules.add_trigger",
        "schedules.delete_trigger",
    )
    listing = f"/api/job-templates/{deploy.pk}/triggers/"
    made = client.post(listing, {"name": "CI", "kind": "token"}, format="json")
    assert made.status_code == 201, made.content
    answer = made.json()
    assert answer["token"].startswith("otwt_") and answer["secret"] is None
    assert answer["url"] == f"http://testserver/api/triggers/{answer['id']}/"
    hook = client.post(listing, {"name": "Hook", "kind": "webhook"}, format="json").json()
    assert len(hook["secret"]) == 64 and hook["token"] is None
    rows = client.get(listing).json()["results"]
    assert [row["name"] for row in rows] == ["CI", "Hook"]
    assert all("token" not in row and "secret" not in row for row in rows)
    assert client.post(listing, {"name": "CI"}, format="json").status_code == 400  # taken
    trigger = Trigger.objects.get(name="CI")
    assert pull(trigger, token=answer["token"]).status_code == 202
    assert client.delete(f"{listing}{trigger.pk}/").status_code == 204
    assert pull(trigger, token=answer["token"]).status_code == 403


def test_trigger_api_needs_the_permissions(client_with, deploy) -> None:
    listing = f"/api/job-templates/{deploy.pk}/triggers/"
    assert client_with().get(listing).status_code == 403
    viewer = client_with("executions.view_jobtemplate", "schedules.view_trigger")
    assert viewer.get(listing).status_code == 200
    assert viewer.post(listing, {"name": "x"}, format="json").status_code == 403
    # a template one may not see is not there
    unseen = client_with("schedules.view_trigger", "schedules.add_trigger")
    assert unseen.post(listing, {"name": "x"}, format="json").status_code == 404
    no_run = client_with(
        "executions.view_jobtemplate", "schedules.view_trigger", "schedules.add_trigger"
    )
    refused = no_run.post(listing, {"name": "x"}, format="json")
    assert refused.status_code == 403 and "run job templates" in refused.json()["detail"]
    # runs on the local server ("here"): that needs its own permission
    runs = client_with(
        "executions.view_jobtemplate",
        "schedules.view_trigger",
        "schedules.add_trigger",
        "executions.run_jobtemplate",
    )
    refused = runs.post(listing, {"name": "x"}, format="json")
    assert refused.status_code == 400 and "local server" in refused.json()["detail"]
    assert not Trigger.objects.exists()
    assert (
        client_with("schedules.view_trigger").get("/api/job-templates/999/triggers/").status_code
        == 404
    )


def test_trigger_page_first_example_runs_as_written_with_a_value_for_each_prompt(
    here, admin_client
) -> None:
    raft = Raft.objects.create(name="ops")
    item = save_item(raft=raft, name="scale", content="Log-Information $Count $Note;\n")
    template = save_job_template(
        name="Scale",
        raft_item=item,
        targeting="servers",
        servers=[here],
        prompts=[
            {"name": "Count", "type": "number", "required": True},  # no default
            {"name": "Note", "type": "text", "default": "it's late"},  # a quote for the shell
        ],
    )
    trigger, token = create_trigger(
        template=template, name="CI", kind="token", allow_variables=True
    )
    page = html.unescape(admin_client.get(f"/templates/{template.pk}/triggers/").content.decode())
    [quoted] = re.findall(r"--data '((?:[^']|'\\'')*)'", page)  # the first example's body
    body = quoted.replace("'\\''", "'")
    assert json.loads(body) == {"variables": {"Count": "1", "Note": "it's late"}}
    response = pull(trigger, token=token, body=body.encode())
    assert response.status_code == 202, response.json()
    job = Execution.objects.get(pk=response.json()["execution"]).job
    assert job.variables == {"Count": "1", "Note": "it's late"}


def test_trigger_refusal_names_the_prompt_then_says_why(token_trigger) -> None:
    trigger, token = token_trigger
    response = pull(trigger, token=token, body=variables(Verbose="perhaps"))
    assert response.status_code == 400
    assert "refused Verbose: " in response.json()["detail"]


def test_trigger_page_example_of_a_trigger_without_variables_sends_none(deploy, admin_client):
    create_trigger(template=deploy, name="CI", kind="token", allow_variables=False)
    page = html.unescape(admin_client.get(f"/templates/{deploy.pk}/triggers/").content.decode())
    assert "?token=YOUR-TOKEN" in page
    assert "--data" not in page  # a call with values would be refused
