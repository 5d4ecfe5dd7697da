"""The embedded database's writers wait in line (otterweb.sqlite3): one write lock across the
threads and processes that open the database, taken before a statement that writes and given
back when the connection leaves its transaction; reads never take it. A writer waits for the
lock, not in SQLite's busy handler, so it goes on the moment the one before it commits."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.db import connection, transaction

from otterweb.sqlite3.base import lock_path, writes

ROOT = Path(__file__).resolve().parents[2]

# A process of its own on the database file given: "hold" writes a row in a transaction and
# keeps it open until it reads a line; "write" says it is ready, then writes a row in autocommit
# mode.
PROCESS = """
import sys
import django
from django.conf import settings
name, engine, timeout, action = sys.argv[1:5]
settings.configure(DATABASES={"default": {"ENGINE": engine, "NAME": name, "OPTIONS": {
    "timeout": float(timeout), "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL;"}}})
django.setup()
from django.db import connection, transaction
if action == "hold":
    with transaction.atomic():
        connection.cursor().execute("INSERT INTO t VALUES ('held')")
        print("holding", flush=True)
        sys.stdin.readline()
else:
    print("ready", flush=True)
    try:
        connection.cursor().execute("INSERT INTO t VALUES ('waited')")
        print("written", flush=True)
    except Exception as error:
        print(type(error).__name__, error, flush=True)
"""


def process(database: Path, engine: str, action: str, *, timeout=20.0):
    return subprocess.Popen(
        [sys.executable, "-c", PROCESS, str(database), engine, str(timeout), action],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": ""},
    )


@pytest.fixture
def database(tmp_path) -> Path:
    path = tmp_path / "writers.sqlite3"
    made = sqlite3.connect(path)
    made.execute("PRAGMA journal_mode=WAL")
    made.execute("CREATE TABLE t (v TEXT)")
    made.close()
    return path


def rows(database: Path) -> list[str]:
    read = sqlite3.connect(database)
    try:
        return [v for (v,) in read.execute("SELECT v FROM t ORDER BY rowid")]
    finally:
        read.close()


def test_sqlite_writer_waits_in_line_for_another_process_instead_of_failing(database) -> None:
    # A writer that gives SQLite's busy handler 10 ms, while another process holds a write
    # transaction for longer: Django's own backend fails; this one waits for the lock and
    # writes after the other commits.
    for engine, expected in (
        ("django.db.backends.sqlite3", "OperationalError database is locked"),
        ("otterweb.sqlite3", "written"),
    ):
        holder = process(database, engine, "hold")
        assert holder.stdout.readline().strip() == "holding"
        writer = process(database, engine, "write", timeout=0.01)
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        holder.communicate("commit\n", timeout=60)
        assert writer.communicate(timeout=60)[0].strip() == expected
        assert holder.returncode == writer.returncode == 0
    assert rows(database) == ["held", "held", "waited"]


@pytest.fixture
def lock_is_held():
    """A function in SQL, held(), and in Python: whether another holder could take the
    database's write lock now."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's writers only")
    fd = os.open(lock_path(connection.settings_dict["NAME"]), os.O_RDWR | os.O_CREAT, 0o600)

    def held() -> int:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return 0

    connection.ensure_connection()
    connection.connection.create_function("held", 0, held)
    yield held
    os.close(fd)


@pytest.mark.django_db(transaction=True)
def test_sqlite_write_lock_is_held_while_writing_and_never_for_reads(lock_is_held) -> None:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS lock_probe (held INTEGER)")
        # a read in autocommit mode: never
        assert cursor.execute("SELECT held()").fetchone() == (1 - 1,)
        # a write in autocommit mode: while it runs, and given back after
        cursor.execute("INSERT INTO lock_probe VALUES (held())")
        assert not lock_is_held()
        # a transaction: from its BEGIN to its COMMIT
        with transaction.atomic():
            cursor.execute("SELECT held()")
            assert cursor.fetchone() == (1,)
            cursor.execute("INSERT INTO lock_probe VALUES (held())")
            assert lock_is_held()
        assert not lock_is_held()
        # and to its rollback
        with pytest.raises(ZeroDivisionError), transaction.atomic():
            cursor.execute("INSERT INTO lock_probe VALUES (held())")
            1 / 0  # noqa: B018
        assert not lock_is_held()
        assert [v for (v,) in cursor.execute("SELECT held FROM lock_probe")] == [1, 1]
        cursor.execute("DROP TABLE lock_probe")
    assert not lock_is_held()


@pytest.mark.django_db(transaction=True)
def test_sqlite_threads_of_one_process_write_one_after_another(lock_is_held) -> None:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS lock_order (v TEXT)")
    began, go_on, order = threading.Event(), threading.Event(), []

    def first() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("INSERT INTO lock_order VALUES ('first')")
                began.set()
                go_on.wait(10)
                order.append("first commits")
        finally:
            connection.close()

    def second() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO lock_order VALUES ('second')")
            order.append("second wrote")
        finally:
            connection.close()

    one = threading.Thread(target=first)
    one.start()
    assert began.wait(10)
    two = threading.Thread(target=second)
    two.start()
    two.join(0.3)
    assert two.is_alive() and order == []  # waiting for the lock the first holds
    go_on.set()
    one.join(10)
    two.join(10)
    assert order == ["first commits", "second wrote"]
    with connection.cursor() as cursor:
        assert [v for (v,) in cursor.execute("SELECT v FROM lock_order")] == ["first", "second"]
        cursor.execute("DROP TABLE lock_order")
    assert not lock_is_held()


def test_sqlite_lock_path_is_beside_the_file_and_none_in_memory(tmp_path) -> None:
    assert lock_path(tmp_path / "a.sqlite3") == f"{tmp_path}/a.sqlite3-writer.lock"
    assert lock_path(f"file:{tmp_path}/a.sqlite3?mode=rw") == f"{tmp_path}/a.sqlite3-writer.lock"
    assert lock_path(":memory:") is None
    assert lock_path("file:memorydb_default?mode=memory&cache=shared") is None


def test_sqlite_writes_tells_statements_that_write_from_those_that_never_do() -> None:
    for query in (
        "INSERT INTO t VALUES (1)",
        " update t set v = 1",
        "DELETE FROM t",
        "BEGIN IMMEDIATE",
        "CREATE TABLE x (v)",
        "REPLACE INTO t VALUES (1)",
    ):
        assert writes(query), query
    for query in (
        "SELECT 1",
        "  select v from t",
        "BEGIN",
        "begin deferred transaction",
        "SAVEPOINT s1",
        "RELEASE SAVEPOINT s1",
        "ROLLBACK TO SAVEPOINT s1",
        "COMMIT",
        "PRAGMA foreign_keys = OFF",
    ):
        assert not writes(query), query
