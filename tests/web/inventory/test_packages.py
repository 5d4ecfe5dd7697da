"""The collected inventory on the pages and in the API: a server's facts and packages, and the
search across servers by package, version and operating system, within what the user may
see."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from engine import Inventory, Manager, Package
from otterweb.inventory import services
from otterweb.inventory.models import Environment, Server
from otterweb.privileges import services as privileges
from otterweb.privileges.models import Role

pytestmark = pytest.mark.django_db

BOOKWORM = {"os_id": "debian", "os_version": "12"}


def collected(name: str, system: dict, openssl: str, environment: Environment | None = None):
    server = Server.objects.create(name=name, os_name=f"{system['os_id']} {system['os_version']}")
    if environment is not None:
        server.environments.set([environment])
    inventory = Inventory(
        **system,
        architecture="x86_64",
        cpus=4,
        memory_mb=8192,
        addresses=("10.0.0.5",),
        packages={
            Manager.DEBIAN: [
                Package("openssl", openssl, "amd64"),
                Package("curl", "7.88.1-10", "amd64"),
            ]
        },
    )
    services.record_inventory(server=server, inventory=inventory, collected=timezone.now())
    return server


@pytest.fixture
def fleet() -> dict[str, Server]:
    production = Environment.objects.create(name="production")
    return {
        "old": collected("old", BOOKWORM, "3.0.11-1~deb12u2", production),
        "new": collected("new", BOOKWORM, "3.0.15-1~deb12u1", production),
        "jammy": collected(
            "jammy", {"os_id": "ubuntu", "os_version": "22.04"}, "3.0.2-0ubuntu1.18"
        ),
    }


def found(client, query: str) -> list[tuple[str, str]]:
    answer = client.get(f"/api/packages/?{query}")
    assert answer.status_code == 200, answer.content
    return [(row["server"], row["version"]) for row in answer.json()["results"]]


def test_api_packages_finds_servers_by_version_in_the_managers_order(fleet, client_with) -> None:
    client = client_with("inventory.view_server")
    assert found(client, "name=openssl&test=older&version=3.0.15") == [
        ("jammy", "3.0.2-0ubuntu1.18"),
        ("old", "3.0.11-1~deb12u2"),
    ]
    # 3.0.11-1~deb12u2 is older than 3.0.11-1: ~ sorts before the end
    assert found(client, "name=OpenSSL&test=at-least&version=3.0.11-1") == [
        ("new", "3.0.15-1~deb12u1")
    ]
    assert found(client, "name=openssl&test=exactly&version=3.0.15-1~deb12u1") == [
        ("new", "3.0.15-1~deb12u1")
    ]
    assert found(client, "name=openssl&system=debian-12") == [
        ("new", "3.0.15-1~deb12u1"),
        ("old", "3.0.11-1~deb12u2"),
    ]
    (row,) = client.get("/api/packages/?name=openssl&system=ubuntu-22.04").json()["results"]
    assert row["system"] == "ubuntu-22.04" and row["manager"] == "deb"
    # without a name: every package, by server and name
    assert found(client, "system=ubuntu-22.04") == [
        ("jammy", "7.88.1-10"),
        ("jammy", "3.0.2-0ubuntu1.18"),
    ]


def test_api_packages_refuses_a_search_it_cannot_make_with_a_clear_body(fleet, client_with) -> None:
    client = client_with("inventory.view_server")
    answer = client.get("/api/packages/?version=1.0")
    assert answer.status_code == 400
    assert "Name the package whose version is compared." in answer.content.decode()
    answer = client.get("/api/packages/?name=openssl&system=plan9-4")
    assert answer.status_code == 400 and "system" in answer.json()["errors"]
    assert client.get("/api/packages/?name=openssl&test=newest").status_code == 400
    empty = client.get("/api/packages/?name=openssl&test=")  # given, it is one of the tests
    assert empty.status_code == 400 and "leave the test out" in empty.json()["errors"]["test"][0]
    assert client_with().get("/api/packages/?name=openssl").status_code == 403


def test_api_packages_shows_only_the_servers_the_user_may_see(fleet) -> None:
    ann = get_user_model().objects.create_user(username="ann")
    privileges.grant(
        role=Role.objects.get(name="Viewer"), user=ann, environment=Environment.objects.get()
    )
    client = APIClient()
    client.force_login(ann)
    assert [server for server, _ in found(client, "name=openssl")] == ["new", "old"]
    assert client.get("/api/servers/jammy/packages/").status_code == 404


def test_api_server_packages_lists_them_filtered_by_a_part_of_the_name(fleet, client_with) -> None:
    client = client_with("inventory.view_server")
    rows = client.get("/api/servers/old/packages/?q=SSL").json()["results"]
    assert rows == [
        {
            "manager": "deb",
            "name": "openssl",
            "version": "3.0.11-1~deb12u2",
            "architecture": "amd64",
        }
    ]
    server = client.get("/api/servers/old/").json()
    assert server["facts"]["cpus"] == 4 and server["facts"]["addresses"] == ["10.0.0.5"]
    assert server["packages_collected"] == server["facts_collected"]


def test_server_page_shows_what_the_server_is_and_links_its_packages(fleet, client_with) -> None:
    client = client_with("inventory.view_server")
    page = client.get("/inventory/servers/old/").content.decode()
    for shown in ("x86_64", "8.0 GiB", "10.0.0.5", "2 Debian packages"):
        assert shown in page
    assert 'href="/inventory/servers/old/packages/"' in page
    page = client.get("/inventory/servers/old/packages/?q=curl").content.decode()
    assert "7.88.1-10" in page and "3.0.11-1~deb12u2" not in page


def test_package_search_page_lists_servers_by_package_or_by_system(fleet, client_with) -> None:
    client = client_with("inventory.view_server")
    page = client.get(
        "/inventory/packages/?name=openssl&test=older&version=3.0.15"
    ).content.decode()
    assert "2 servers with openssl older than 3.0.15" in page
    assert "3.0.11-1~deb12u2" in page and "3.0.15-1~deb12u1" not in page
    page = client.get("/inventory/packages/?system=ubuntu-22.04").content.decode()
    assert "1 server running ubuntu-22.04" in page and 'href="/inventory/servers/jammy/"' in page
    page = client.get("/inventory/packages/?version=1.0").content.decode()
    assert "Name the package whose version is compared." in page


def test_api_packages_answers_the_browsable_api_too(fleet, client_with) -> None:
    answer = client_with("inventory.view_server").get("/api/packages/", HTTP_ACCEPT="text/html")
    assert answer.status_code == 200 and b"openssl" in answer.content
