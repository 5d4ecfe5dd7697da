"""The log sink of executions run by the web application: records are batched (a few
milliseconds or a few hundred rows), stored in one insert per batch, then handed to
``on_batch`` (which publishes them to the execution's channel group).

PostgreSQL's text and jsonb cannot hold U+0000, which a process's output, or a value a script
made, may: what a run stores (log lines, scope names; and an execution's error and drift, which
Execution.save cleans with ``without_nul``) has each NUL replaced by U+2400 (SYMBOL FOR NULL,
``␀``), on every database alike, so a run never fails nor loses its log over one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import NamedTuple

from django.conf import settings
from django.db import connection, transaction

from engine import Level, LogRecord, RunScope
from otterweb.execution_logs import hooks
from otterweb.execution_logs.models import LogEntry, LogRun, LogScope

BATCH_ROWS = 300  # a batch is stored when this many records wait, or every BATCH_SECONDS
BATCH_SECONDS = 0.02
# When records pile up while a batch is stored, the next one takes up to this many.
CATCH_UP_ROWS = 500
# Past this many unstored records the run waits for storage (DjangoHost.pace). It bounds how far
# the log trails the run: at 20,000 lines/s, 500 records are 25 ms (bench/logs.py).
MAX_PENDING = 500


NUL, NUL_SHOWN = "\x00", "\u2400"


def without_nul(text: str) -> str:
    """``text`` with each NUL shown as U+2400 (``␀``): what a database can store."""
    return text.replace(NUL, NUL_SHOWN) if NUL in text else text


def without_nuls(value):
    """A JSON value (a drift list) with the NULs of its texts, keys too, shown as ``␀``."""
    if isinstance(value, str):
        return without_nul(value)
    if isinstance(value, list | tuple):
        return [without_nuls(item) for item in value]
    if isinstance(value, dict):
        return {without_nuls(key): without_nuls(item) for key, item in value.items()}
    return value


def _close_connection() -> None:
    connection.close()  # this thread's connection: `connection` is looked up where it is called


def _time(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


class DatabaseLogSink:
    def __init__(
        self,
        execution_id: int,
        *,
        on_batch: Callable[[list[StoredEntry], list[LogScope]], Awaitable[None]] | None = None,
    ) -> None:
        self.execution_id = execution_id
        self.on_batch = on_batch
        self.volume = LogVolume(
            line_chars=settings.OTTERWEB_MAX_LOG_LINE_CHARS,
            total_bytes=int(settings.OTTERWEB_MAX_LOG_MB * 1024 * 1024),
        )
        self._records: list[LogRecord] = []
        self._scopes: dict[int, RunScope] = {}
        # the log's last run as stored (scope id, first seq, last seq, count): the next batch
        # extends it when its first lines are of the same scope. Only the database thread uses it.
        self._last_run: LogRunRow | None = None
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()
        self._closed = False
        # one thread of its own for the database, so storage never queues behind web requests
        self._database = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=f"otterweb-log-{execution_id}"
        )

    # ---- the engine's side (synchronous, on the event loop)

    def scope_opened(self, scope: RunScope) -> None:
        self._scopes[scope.id] = scope

    def scope_closed(self, scope: RunScope) -> None:
        self._scopes[scope.id] = scope

    def record(self, record: LogRecord) -> None:
        if not self.volume.admit(record):
            return
        self._records.append(record)
        if len(self._records) >= BATCH_ROWS:
            self._wake.set()

    async def wait_for_room(self) -> None:
        """Wait while too many records are waiting to be stored."""
        while len(self._records) > MAX_PENDING and not self._closed:
            self._drained.clear()
            self._wake.set()
            await self._drained.wait()

    async def database(self, function, *args):
        """Run ``function`` on this sink's own database thread."""
        return await asyncio.get_running_loop().run_in_executor(self._database, function, *args)

    # ---- storing

    async def run(self) -> None:
        """Store batches until ``close()``; then store what is left."""
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), BATCH_SECONDS)
            self._wake.clear()
            await self.flush()
        await self.flush()
        await self.database(_close_connection)  # the thread ends: its connection goes with it
        self._database.shutdown(wait=False)

    def close(self) -> None:
        self._closed = True
        self._wake.set()

    async def flush(self) -> None:
        """Store and publish what is pending, CATCH_UP_ROWS at most at a time (the engine may have
        logged thousands of lines while the previous batch was being stored)."""
        while self._records or self._scopes:
            records, self._records = self._records[:CATCH_UP_ROWS], self._records[CATCH_UP_ROWS:]
            scopes, self._scopes = list(self._scopes.values()), {}
            entries, stored_scopes = await self.database(self._store, records, scopes)
            if len(self._records) <= MAX_PENDING:
                self._drained.set()
            if self.on_batch is not None:
                await self.on_batch(entries, stored_scopes)

    def _store(
        self, records: list[LogRecord], scopes: list[RunScope]
    ) -> tuple[list[StoredEntry], list[LogScope]]:
        entries = [
            StoredEntry(
                seq=r.seq,
                scope_id=r.scope_id,
                level=int(r.level),
                message=without_nul(r.message),
                line=r.line,
                time=_time(r.time),
            )
            for r in records
        ]
        stored_scopes = [
            LogScope(
                execution_id=self.execution_id,
                scope_id=s.id,
                parent_id=s.parent_id,
                name=without_nul(s.name[:500]),
                line=s.line,
                started=_time(s.started),
                ended=_time(s.ended) if s.ended else None,
                status=s.status,
                after_seq=s.after_seq,
            )
            for s in scopes
        ]
        last_run = self._last_run
        with transaction.atomic():
            if stored_scopes:
                LogScope.objects.bulk_create(
                    stored_scopes,
                    update_conflicts=True,
                    unique_fields=["execution_id", "scope_id"],
                    update_fields=["ended", "status"],
                )
            if entries:
                _insert(self.execution_id, entries)
                last_run = _store_runs(self.execution_id, entries, last_run)
                _count(self.execution_id, entries)
        self._last_run = last_run  # only once stored: a failed batch leaves the runs as they were
        if entries:
            from otterweb import metrics  # here: a process that stores no log writes no metrics

            metrics.LOG_LINES.inc(len(entries))
        return entries, stored_scopes


class LogVolume:
    """What an execution's log may hold. A line longer than ``line_chars`` is cut, with a
    marker saying how much; once the lines stored take ``total_bytes`` (their text, and
    ROW_BYTES each for the row), one warning says so and later lines are dropped, except
    errors (up to ERRORS_PAST_LIMIT more). ``limited`` then tells the run to end with at least
    a warning."""

    ROW_BYTES = 64
    ERRORS_PAST_LIMIT = 1000

    def __init__(self, *, line_chars: int, total_bytes: int) -> None:
        self.line_chars = line_chars
        self.total_bytes = total_bytes
        self.used = 0
        self.limited = False
        self.errors_past_limit = 0

    def admit(self, record: LogRecord) -> bool:
        """Whether to store ``record``, cut to the line limit (changed in place)."""
        if self.line_chars and len(record.message) > self.line_chars:
            cut = len(record.message) - self.line_chars
            record.message = (
                f"{record.message[: self.line_chars]} … [{cut:,} more characters cut: "
                "OTTERWEB_MAX_LOG_LINE_CHARS]"
            )
        if not self.total_bytes:
            return True
        if not self.limited:
            self.used += len(record.message) + self.ROW_BYTES
            if self.used <= self.total_bytes:
                return True
            self.limited = True
            if record.level < Level.ERROR:  # this record's seq carries the notice instead
                record.level, record.message = Level.WARNING, self.notice()
                return True
        if record.level >= Level.ERROR and self.errors_past_limit < self.ERRORS_PAST_LIMIT:
            self.errors_past_limit += 1
            return True
        return False

    def notice(self) -> str:
        size = self.total_bytes / (1024 * 1024)
        return (
            f"The log reached its limit of {size:g} MB (OTTERWEB_MAX_LOG_MB): later lines are not "
            "stored, except errors. The execution goes on, and ends with at least a warning."
        )


class StoredEntry(NamedTuple):
    """A stored log entry as the sink publishes it (LogEntry's fields, without a model)."""

    seq: int
    scope_id: int | None
    level: int
    message: str
    line: int | None
    time: datetime


def append_entries(execution_id: int, entries: list[StoredEntry]) -> None:
    """Store entries that no sink stores (the line the server adds to an execution it closes),
    with the runs and counts a sink keeps: after every stored entry, in a transaction."""
    entries = [entry._replace(message=without_nul(entry.message)) for entry in entries]
    last = (
        LogRun.objects.filter(execution_id=execution_id)
        .order_by("-first_seq")
        .values_list("scope_id", "first_seq", "last_seq", "count")
        .first()
    )
    with transaction.atomic():
        _insert(execution_id, entries)
        _store_runs(execution_id, entries, LogRunRow(*last) if last else None)
        _count(execution_id, entries)


class LogRunRow(NamedTuple):
    """A LogRun row (a stretch of stored entries in one scope), as the sink builds them and
    remembers the last one."""

    scope_id: int
    first_seq: int
    last_seq: int
    length: int  # entries stored in the run: LogRun.count


def _store_runs(execution_id: int, entries: list[StoredEntry], last: LogRunRow | None) -> LogRunRow:
    """Extend the log's runs with a batch (in seq order): the last stored run grows when the
    batch starts in its scope, and each change of scope starts a new run. Returns the last.
    Plain SQL, as _insert: the ORM's compiling took longer than the statements (bench/logs.py)."""
    runs: list[LogRunRow] = []
    for entry in entries:
        scope_id = entry.scope_id or 0
        if runs and runs[-1].scope_id == scope_id:
            runs[-1] = runs[-1]._replace(last_seq=entry.seq, length=runs[-1].length + 1)
        else:
            runs.append(LogRunRow(scope_id, entry.seq, entry.seq, 1))
    table = _table(LogRun)
    with connection.cursor() as cursor:
        if last is not None and last.scope_id == runs[0].scope_id:
            runs[0] = last._replace(last_seq=runs[0].last_seq, length=last.length + runs[0].length)
            cursor.execute(
                f"UPDATE {table} SET last_seq = %s, count = %s"
                " WHERE execution_id = %s AND first_seq = %s",
                [runs[0].last_seq, runs[0].length, execution_id, last.first_seq],
            )
            new = runs[1:]
        else:
            new = runs
        if new:
            cursor.executemany(
                f"INSERT INTO {table} (execution_id, scope_id, first_seq, last_seq, count)"
                " VALUES (%s, %s, %s, %s, %s)",
                [(execution_id, *run) for run in new],
            )
    return runs[-1]


def _count(execution_id: int, entries: list[StoredEntry]) -> None:
    """Add a batch to the execution's counts of lines, warnings and errors (through the
    executions app, whose rows hold them), and to those of each scope its lines are in."""
    scopes: dict[int, list[int]] = {}
    for entry in entries:
        counts = scopes.setdefault(entry.scope_id or 0, [0, 0, 0])
        counts[0] += 1
        if entry.level >= Level.ERROR:
            counts[2] += 1
        elif entry.level >= Level.WARNING:
            counts[1] += 1
    lines, warnings, errors = (sum(counts[i] for counts in scopes.values()) for i in range(3))
    hooks.count(
        execution_id, last_seq=entries[-1].seq, lines=lines, warnings=warnings, errors=errors
    )
    scopes.pop(0, None)  # the top level is the execution's total less its scopes'
    if scopes:
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {_table(LogScope)} SET lines = lines + %s, warnings = warnings + %s,"
                " errors = errors + %s WHERE execution_id = %s AND scope_id = %s",
                [(*counts, execution_id, scope) for scope, counts in scopes.items()],
            )


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _insert(execution_id: int, entries: list[StoredEntry]) -> None:
    """All rows in one statement: COPY on PostgreSQL, one INSERT executed for every row on
    SQLite. Several times the rows per second of bulk_create, which builds a model for each row
    and compiles SQL for each batch."""
    quote = connection.ops.quote_name
    table = quote(LogEntry._meta.db_table)
    columns = ", ".join(quote(column) for column in ("execution_id", *StoredEntry._fields))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for entry in entries:
                    copy.write_row((execution_id, *entry))
            return
        adapt = connection.ops.adapt_datetimefield_value
        places = ", ".join(["%s"] * (1 + len(StoredEntry._fields)))
        cursor.executemany(
            f"INSERT INTO {table} ({columns}) VALUES ({places})",
            [
                (execution_id, e.seq, e.scope_id, e.level, e.message, e.line, adapt(e.time))
                for e in entries
            ],
        )
