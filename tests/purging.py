"""A purge under load, for the retention test and bench/purge.py: an old execution with a big log
(made by tests/e2e/logdata.py through the log sink), and a writer that stores another run's log
meanwhile, timing each of its transactions: how long a purge makes a writer wait."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

from django.db import connection
from django.utils import timezone

WRITER_BATCH = 100  # lines a transaction, as a busy run's log sink stores them


def old_execution(lines: int, *, scopes: int = 2000, days_ago: float = 400) -> int:
    """A finished execution with a log of ``lines`` lines that ended ``days_ago`` days ago."""
    from otterweb.executions.models import Execution
    from tests.e2e import logdata

    execution_id = logdata.store(lines, scopes)
    Execution.objects.filter(pk=execution_id).update(
        ended=timezone.now() - timedelta(days=days_ago)
    )
    return execution_id


class Writer(threading.Thread):
    """Stores lines for a running execution of its own, WRITER_BATCH a transaction, until
    ``stop()``; ``seconds`` holds how long each transaction took."""

    def __init__(self) -> None:
        super().__init__(name="purge-writer", daemon=True)
        from otterweb.executions.models import Execution, Job

        job = Job.objects.create(name="writing while a purge runs", script="")
        self.execution = Execution.objects.create(job=job)
        self.execution.start(worker="tests/purging.py")
        self.seconds: list[float] = []
        self._stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        from otterweb.execution_logs.sink import StoredEntry, append_entries

        seq = 0
        try:
            while not self._stopping.is_set():
                now = timezone.now()
                entries = [
                    StoredEntry(seq + n, None, 10, f"line {seq + n} of the writer", None, now)
                    for n in range(1, WRITER_BATCH + 1)
                ]
                began = time.perf_counter()
                append_entries(self.execution.pk, entries)
                self.seconds.append(time.perf_counter() - began)
                seq += WRITER_BATCH
                time.sleep(0.005)
        except BaseException as error:  # the caller reports it
            self.error = error
        finally:
            connection.close()  # this thread's own

    def stop(self) -> None:
        self._stopping.set()
        self.join()
        if self.error is not None:
            raise self.error


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
