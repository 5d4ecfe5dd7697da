"""The web tests run on SQLite, and again on PostgreSQL when OTTERWEB_DATABASE_URL is set."""

from __future__ import annotations

import pytest

from otterweb.inventory.models import Server


@pytest.fixture(scope="session", autouse=True)
def close_stray_connections(django_db_setup, django_db_blocker):
    """On PostgreSQL, a connection left by a thread of a test (its thread-local is collected
    late) would keep the test database from being dropped: end them before it is."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture
def here(db):
    """The server the tests' jobs run on (a job names its servers): modules whose jobs run
    use it for every test."""
    return Server.objects.create(name="here")
