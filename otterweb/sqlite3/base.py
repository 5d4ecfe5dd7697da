"""Django's SQLite backend, with one writer at a time across every thread and process that
opens the database, waiting in line for a lock instead of in SQLite's busy handler.

Several processes write the embedded database at once (the serving process, its worker
processes). SQLite lets one write at a time, and one that finds the database locked sleeps in
its busy handler in growing steps (up to 100 ms) and tries again: under a burst of small jobs,
writers would sleep ~0.4 s each for a lock that is mostly free. Here a writer first takes the
database's write lock, a ``threading.Lock`` for the threads of its process, then ``flock`` on a
file beside the database (``<name>-writer.lock``) for processes, and wakes the moment the one
before it lets go. The lock is taken before a write transaction begins (``BEGIN IMMEDIATE``, or
the first write of one that began deferred) and before a write in autocommit mode, and given back
once the connection is out of its transaction (commit, rollback, close). Reads never take it: in
WAL mode they never wait for the writer.

SQLite's own ``timeout`` still applies behind it (a writer that does not take the lock: the
sqlite3 shell, a checkpoint when the last connection closes), and a thread waits for another
thread of its process at most that long too, then fails as SQLite would ("database is
locked"). A process that dies holding the lock loses it with its file descriptors.

An in-memory database takes no lock: one process, and SQLite's shared cache, hold it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from urllib.parse import parse_qs, urlsplit

from django.db import OperationalError
from django.db.backends.sqlite3 import base

# The statements that never write (or begin a deferred transaction, which writes nothing until
# one of its statements does): any other takes the write lock first.
READS = ("SELECT", "PRAGMA", "EXPLAIN", "SAVEPOINT", "RELEASE", "COMMIT", "END", "ROLLBACK")
DEFERRED_BEGINS = ("BEGIN", "BEGIN DEFERRED", "BEGIN TRANSACTION", "BEGIN DEFERRED TRANSACTION")


def writes(query: str) -> bool:
    head = query.lstrip()[:30].upper()
    if head.startswith(READS):
        return False
    if head.startswith("BEGIN"):
        return " ".join(head.rstrip(";").split()) not in DEFERRED_BEGINS
    return True


class WriteLock:
    """One database file's write lock in this process: a ``threading.Lock`` that threads wait
    on, and ``flock`` on the lock file held by whichever thread holds it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.threads = threading.Lock()
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def acquire(self, timeout: float) -> None:
        if not self.threads.acquire(timeout=timeout):
            raise OperationalError("database is locked")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            self.threads.release()
            raise

    def release(self) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            self.threads.release()


_locks: dict[str, WriteLock] = {}
_locks_lock = threading.Lock()


def write_lock(path: str) -> WriteLock:
    lock = _locks.get(path)
    if lock is None:
        with _locks_lock:
            lock = _locks.get(path)
            if lock is None:
                lock = _locks[path] = WriteLock(path)
    return lock


def _forget_parents_locks() -> None:
    """A forked child has locks of its own: the parent's copies (the file descriptors shared
    with the parent, the thread locks as they were at the fork) are closed and forgotten."""
    global _locks_lock
    for lock in _locks.values():
        with contextlib.suppress(OSError):
            os.close(lock.fd)
    _locks.clear()
    _locks_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_parents_locks)


def lock_path(name) -> str | None:
    """The lock file of the database ``name`` (a path or a ``file:`` URI); None in memory."""
    name = str(name)
    if name == ":memory:" or not name:
        return None
    if name.startswith("file:"):
        parts = urlsplit(name)
        if parts.query and "memory" in parse_qs(parts.query).get("mode", []):
            return None
        name = parts.path
    return f"{name}-writer.lock"


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.holds_write_lock = False
        self.write_lock_path: str | None = None
        self.lock_timeout = 5.0

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        path = None if self.is_in_memory_db() else lock_path(self.settings_dict["NAME"])
        self.write_lock_path = path
        self.lock_timeout = float(conn_params.get("timeout", 5.0))
        return connection

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=LockingCursor)
        cursor.wrapper = self
        return cursor

    def write_lock(self) -> WriteLock:
        if self.write_lock_path is None:
            raise OperationalError("an in-memory database has no write lock")
        return write_lock(self.write_lock_path)

    def take_write_lock(self) -> None:
        self.write_lock().acquire(self.lock_timeout)
        self.holds_write_lock = True

    def give_back_write_lock(self) -> None:
        """Give it back once this connection is out of its transaction."""
        if self.holds_write_lock and (
            self.connection is None or not self.connection.in_transaction
        ):
            self.holds_write_lock = False
            self.write_lock().release()

    def _commit(self):
        try:
            return super()._commit()  # type: ignore[misc]  # private, missing from the stubs
        finally:
            self.give_back_write_lock()

    def _rollback(self):
        try:
            return super()._rollback()  # type: ignore[misc]  # private, missing from the stubs
        finally:
            self.give_back_write_lock()

    def _close(self):
        try:
            return super()._close()  # type: ignore[misc]  # private, missing from the stubs
        finally:
            if self.holds_write_lock:
                self.holds_write_lock = False
                self.write_lock().release()


class LockingCursor(base.SQLiteCursorWrapper):
    """Takes the write lock before a statement that writes, when its connection holds none, and
    gives it back after any statement that leaves the connection out of its transaction."""

    wrapper: DatabaseWrapper

    def _locked(self, run, query, *args):
        wrapper = self.wrapper
        if not wrapper.holds_write_lock:
            if wrapper.write_lock_path is None or not writes(query):
                return run(query, *args)
            wrapper.take_write_lock()
        try:
            return run(query, *args)
        finally:
            wrapper.give_back_write_lock()

    def execute(self, query, params=None):
        return self._locked(super().execute, query, params)

    def executemany(self, query, param_list):
        return self._locked(super().executemany, query, param_list)

    def executescript(self, script):
        return self._locked(super().executescript, script)
