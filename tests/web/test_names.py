"""One rule for the names scripts use (otterweb.names): the same in forms, the API and the admin,
and every page's address carries a name it allows (web.01 among them)."""

from __future__ import annotations

from html import unescape

import pytest
from django.urls import reverse

from otterweb.configuration.models import ServerState
from otterweb.inventory.models import Server
from otterweb.names import NAME_HELP
from otterweb.rafts.models import Raft

pytestmark = pytest.mark.django_db

RULE = "Use only letters, digits, '-', '_' and '.', with one letter, digit or '_' at least"


def test_names_with_a_dot_make_a_server_whose_pages_open(admin_client) -> None:
    made = admin_client.post(
        reverse("server-create"), {"name": "web.01", "agent_type": "local", "port": 22}
    )
    assert made.status_code == 302, made.content.decode()[:2000]
    assert Server.objects.filter(name="web.01").exists()
    for name in ("server-detail", "server-edit", "server-packages"):
        url = reverse(name, args=["web.01"])
        assert "/web.01/" in url
        assert admin_client.get(url).status_code == 200, url
    assert admin_client.get("/api/servers/web.01/").json()["name"] == "web.01"
    ServerState.objects.create(server=Server.objects.get(name="web.01"))
    assert admin_client.get("/configuration/servers/web.01/").status_code == 200


@pytest.mark.parametrize("name", ["web 01", "..", "-", "db;rm"])
def test_names_refused_say_the_rule_in_the_form_the_api_and_for_rafts(
    admin_client, name: str
) -> None:
    page = admin_client.post(
        reverse("server-create"), {"name": name, "agent_type": "local", "port": 22}
    )
    assert RULE in unescape(page.content.decode())
    answer = admin_client.post("/api/servers/", {"name": name}, content_type="application/json")
    assert answer.status_code == 400
    assert any(RULE in message for message in answer.json()["errors"]["name"]), answer.json()
    raft = admin_client.post(reverse("raft-create"), {"name": name})
    assert RULE in unescape(raft.content.decode()) and "slug" not in raft.content.decode()
    assert not Raft.objects.filter(name=name).exists()


def test_names_help_says_the_rule_it_checks() -> None:
    assert NAME_HELP.startswith("Letters, digits, '-', '_' and '.', with one letter")
    assert Server._meta.get_field("name").help_text == NAME_HELP
    assert Raft._meta.get_field("name").help_text == NAME_HELP


def test_names_of_related_objects_are_a_name_or_null_never_empty(admin_client) -> None:
    def post(name: str, parent) -> tuple[int, dict]:
        answer = admin_client.post(
            "/api/environments/", {"name": name, "parent": parent}, content_type="application/json"
        )
        return answer.status_code, answer.json()

    assert post("europe", None)[0] == 201
    status, body = post(
        "paris", ""
    )  # DRF would take it for null; the schema says a name is 1+ long
    assert (status, body["errors"]["parent"]) == (
        400,
        ["A name, or null for none (not an empty text)."],
    )
    assert post("paris", "europe")[0] == 201
