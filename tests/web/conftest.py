"""The web tests run on SQLite, and again on PostgreSQL when OTTERWEB_DATABASE_URL is set."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from otterweb.execution_logs.frame_cache import frame_cache
from otterweb.inventory.models import Server


@pytest.fixture(scope="session", autouse=True)
def close_stray_connections(django_db_setup, django_db_blocker):
    """On PostgreSQL, a connection left by a thread of a test (its thread-local is collected
    late) would keep the test database from being dropped: end them before it is. Only the
    tests' own (their role's client connections): an autovacuum worker in the database is the
    server's, and may not be ended by this role (it failed a run so)."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND usename = current_user AND backend_type = 'client backend'"
        )


@pytest.fixture(autouse=True)
def connection_left_open():
    """On PostgreSQL, a test after which this thread's connection is broken fails by name, and the
    next test gets a new connection. (In CI, once, a worker's connection was found closed and
    every later test of that worker failed with it, naming none as the cause.) This fixture is
    set up before the test's database fixtures, so it runs after they have ended its transaction."""
    yield
    from django.db import connection

    broken = connection.connection
    if connection.vendor != "postgresql" or broken is None or not broken.closed:
        return
    by_django = connection.closed_in_transaction
    connection.atomic_blocks.clear()
    connection.savepoint_ids.clear()
    connection.in_atomic_block = connection.needs_rollback = False
    connection.closed_in_transaction = False
    connection.close()
    pytest.fail(
        "this test left the database connection closed ("
        + (
            "closed on this thread inside the test's transaction"
            if by_django
            else "ended by the server, or its socket closed"
        )
        + "); the next test opens a new one"
    )


@pytest.fixture(autouse=True)
def no_cached_frames():
    """Each test's executions start with no log frame cached (a flushed test database gives
    their ids out again)."""
    frame_cache.clear()
    yield
    frame_cache.clear()


@pytest.fixture
def here(db):
    """The server the tests' jobs run on (a job names its servers): modules whose jobs run
    use it for every test."""
    return Server.objects.create(name="here")


@pytest.fixture
def user_with(db, django_user_model):
    """Makes a user holding the named permissions, each as "app_label.codename", with any other
    fields of the user (username, password, is_staff...) as keywords. A name that is no
    permission fails the test rather than quietly giving the user less than it says."""
    numbers = itertools.count(1)

    def make(*perms: str, **fields):
        fields.setdefault("username", f"user{next(numbers)}")
        user = django_user_model.objects.create_user(**fields)
        user.user_permissions.add(*(permission(name) for name in perms))
        return user

    return make


def permission(name: str) -> Permission:
    app_label, _, codename = name.partition(".")
    try:
        return Permission.objects.get(content_type__app_label=app_label, codename=codename)
    except Permission.DoesNotExist:
        pytest.fail(f"there is no permission {name!r} (name one as app_label.codename)")


@pytest.fixture
def client_with(user_with):
    """A client logged in as a new user made by user_with. It is DRF's APIClient, a Django test
    client that also sends the API's formats (format="json"), so pages and the API both take it."""

    def make(*perms: str, **fields) -> APIClient:
        client = APIClient()
        client.force_login(user_with(*perms, **fields))
        return client

    return make


@pytest.fixture
def ssh_key(sshd):
    """The sshd fixture's client key as a private-key credential, for its test user."""
    from otterweb.inventory import services
    from otterweb.inventory.models import Credential

    return services.save_credential(
        name="deploy-key",
        kind=Credential.Kind.PRIVATE_KEY,
        username=sshd.user,
        secret=sshd.client_key.read_text(),
    )


def ssh_server(test_server, credential, *, host_keys: str = "", name: str = "", **fields):
    """An SSH server of the inventory for one of the sshd fixture's servers."""
    from otterweb.inventory import services
    from otterweb.inventory.models import Server

    return services.save_server(
        name=name or test_server.name,
        host=test_server.address,
        port=test_server.port,
        agent_type=Server.AgentType.SSH,
        credential=credential,
        host_keys=host_keys,
        **fields,
    )
