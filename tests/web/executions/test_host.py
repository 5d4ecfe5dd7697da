"""The engine's host for web executions: the inventory snapshot it loads."""

from __future__ import annotations

import asyncio

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from engine import Inventory, Manager, Package
from engine.interpreter import NullSink
from otterweb.executions.host import DjangoHost
from otterweb.inventory import services
from otterweb.inventory.models import InstalledPackage, Role, Server, Variable
from otterweb.inventory.selectors import resolve_variables
from otterweb.privileges.models import Role as PrivilegeRole
from otterweb.privileges.services import grant

pytestmark = pytest.mark.django_db

SERVERS, ROLES = 20, 5


@pytest.fixture
def large_inventory() -> list[Server]:
    """20 servers, each with the 5 roles, in the leaves of two environment trees three levels
    deep (every fourth in two leaves), variables at every scope, most of them named in
    several (the cascade decides), and a credential limited to the leaves."""
    leaves = []
    for tree in ("production", "staging"):
        parent = None
        for level in ("", "-eu", "-eu-west"):
            parent = services.save_environment(name=f"{tree}{level}", parent=parent)
            services.add_variable(name="Tier", value=f"{parent.name}", environment=parent)
            services.add_variable(name=f"Only-{parent.name}", value="@(a, b)", environment=parent)
        leaves.append(parent)
        services.save_environment(name=f"{tree}-us", parent=parent.parent.parent)
    roles = [services.save_role(name=f"role{number}") for number in range(ROLES)]
    for role in roles:
        services.add_variable(name="Pool", value=f"%(name: {role.name})", role=role)
        services.add_variable(name="Tier", value=f"tier of {role.name}", role=role)
    servers = []
    for number in range(SERVERS):
        environments = leaves if number % 4 == 0 else [leaves[number % 2]]
        server = services.save_server(
            name=f"server{number:02}", roles=roles, environments=environments
        )
        services.add_variable(name="Port", value=str(8000 + number), server=server)
        if number % 3 == 0:
            services.add_variable(name="Pool", value=f"own{number}", server=server)
        servers.append(server)
    services.add_variable(name="Port", value="80")
    services.add_variable(name="Token", value="s3cret", sensitive=True)
    services.add_variable(name="Hosts", value="@(a, $Port)")
    services.save_credential(name="deploy", secret="key", environments=leaves)
    return servers


def load_host() -> DjangoHost:
    return DjangoHost.load(sink=NullSink(), execution_id="1", working_directory="/tmp")


def test_load_reads_the_inventory_in_a_fixed_number_of_queries(
    large_inventory, django_assert_max_num_queries
) -> None:
    with django_assert_max_num_queries(7):
        host = load_host()
    assert len(host.servers()) == SERVERS + 1  # and localhost
    assert host.credential("deploy", server="server05").secret == "key"


def test_load_resolves_each_server_and_role_as_resolve_variables_does(large_inventory) -> None:
    host = load_host()
    names = set(Variable.objects.values_list("name", flat=True))
    for server in large_inventory[:5]:
        for role in [None, *Role.objects.order_by("-name")[:2]]:
            resolved = resolve_variables(server=server, role=role)
            seen = {
                name: host.variable(name, server.name, role.name if role else None)
                for name in names
            }
            assert seen == {
                name: resolved[name.casefold()].value if name.casefold() in resolved else None
                for name in names
            }


def test_load_resolves_the_cascade_from_the_snapshot(large_inventory) -> None:
    host = load_host()
    assert host.variable("Tier", "server00", None) == "production-eu-west"
    assert host.variable("Only-staging", "server01", None) == ["a", "b"]
    assert host.variable("Only-staging", "server02", None) is None
    assert host.variable("pool", "server03", None) == "own3"
    assert host.variable("Pool", "server01", "role3") == {"name": "role3"}
    assert host.variable("Port", "server07", "role1") == "8007"
    assert host.variable("Hosts", "server07", None) == ["a", "$Port"]
    assert host.variable("Port", "unknown", None) == "80"
    assert host.sensitive_values().count("s3cret") >= 1


def test_load_keeps_inactive_servers_and_their_variables_out(large_inventory) -> None:
    hidden = services.save_server(name="hidden", active=False)
    services.add_variable(name="Secret", value="hush", sensitive=True, server=hidden)
    host = load_host()
    assert "hidden" not in host.servers()
    assert "hush" not in host.sensitive_values()


@pytest.mark.django_db(transaction=True)
def test_record_packages_keeps_a_runs_packages_on_the_inventorys_server() -> None:
    server = services.save_server(name="web1")
    host = load_host()
    packages = [Package("openssl", "3.0.15-1~deb12u1", "amd64")]
    assert asyncio.run(host.record_packages("WEB1", Manager.DEBIAN, packages)) == ""
    (kept,) = InstalledPackage.objects.filter(server=server)
    assert (kept.manager, kept.name, kept.version) == ("deb", "openssl", "3.0.15-1~deb12u1")
    assert asyncio.run(host.record_packages("elsewhere", Manager.DEBIAN, packages)) == (
        "elsewhere is not a server of the inventory"
    )


def test_server_facts_come_from_the_servers_last_check() -> None:
    checked = services.save_server(name="web1")
    services.save_server(name="new")
    services.record_inventory(
        server=checked,
        inventory=Inventory(os_id="debian", os_version="12", architecture="x86_64", cpus=2),
        collected=timezone.now(),
    )
    Server.objects.filter(pk=checked.pk).update(os_name="Debian GNU/Linux 12 (bookworm)")
    host = load_host()
    facts = host.server_facts("WEB1")
    assert (facts["os_name"], facts["os_id"], facts["cpus"]) == (
        "Debian GNU/Linux 12 (bookworm)",
        "debian",
        2,
    )
    assert host.server_facts("new") == {} and host.server_facts("elsewhere") == {}


def test_smtp_server_comes_from_the_settings_and_the_named_credential(settings) -> None:
    settings.OTTERWEB_SMTP_HOST = ""
    with pytest.raises(ValueError, match="OTTERWEB_SMTP_HOST"):
        load_host().smtp_server()
    services.save_credential(name="mailer", username="otter", secret="smtp-s3cret")
    settings.OTTERWEB_SMTP_HOST, settings.OTTERWEB_SMTP_PORT = "mail.example.org", 465
    settings.OTTERWEB_SMTP_SECURITY, settings.OTTERWEB_SMTP_FROM = "tls", "ops@example.org"
    settings.OTTERWEB_SMTP_CREDENTIAL = "Mailer"
    server = load_host().smtp_server()
    assert (server.where, server.security, server.sender) == (
        "mail.example.org:465",
        "tls",
        "ops@example.org",
    )
    assert (server.username, server.password) == ("otter", "smtp-s3cret")
    assert "smtp-s3cret" not in repr(server)
    settings.OTTERWEB_SMTP_CREDENTIAL = "gone"
    with pytest.raises(ValueError, match="'gone'"):
        load_host().smtp_server()


def host_for(principal) -> DjangoHost:
    return DjangoHost.load(
        sink=NullSink(), execution_id="1", working_directory="/tmp", principal=principal
    )


@pytest.mark.django_db(transaction=True)
def test_set_variable_sets_it_within_the_principals_privileges() -> None:
    production = services.save_environment(name="production")
    staging = services.save_environment(name="staging")
    services.save_server(name="web1", environments=[production])
    ann = get_user_model().objects.create_user(username="ann")
    grant(role=PrivilegeRole.objects.get(name="Administrator"), user=ann, environment=staging)

    asyncio.run(host_for(None).set_variable("Pool", "@(a, b)", server="WEB1"))
    (kept,) = Variable.objects.filter(server__name="web1")
    assert (kept.name, kept.runtime_value()) == ("Pool", ["a", "b"])

    asyncio.run(host_for(ann).set_variable("Tier", "gold", environment="staging"))
    assert Variable.objects.get(environment=staging).value == "gold"
    with pytest.raises(ValueError, match="may not add variables on server web1"):
        asyncio.run(host_for(ann).set_variable("Extra", "x", server="web1"))
    assert not Variable.objects.filter(name="Extra").exists()
    with pytest.raises(ValueError, match="may not change variables on server web1"):
        asyncio.run(host_for(ann).set_variable("pool", "@(c)", server="web1"))
    assert Variable.objects.get(server__name="web1").runtime_value() == ["a", "b"]
    with pytest.raises(ValueError, match="there is no server gone"):
        asyncio.run(host_for(None).set_variable("Pool", "x", server="gone"))
