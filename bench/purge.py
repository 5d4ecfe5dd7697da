"""Retention (issue 24): purging an execution with 1,000,000 log lines while another run writes
its log, on SQLite in a fresh data folder, or with OTTERWEB_DATABASE_URL set, in a database of
its own on that PostgreSQL server (made and dropped here).

Run: .venv/bin/python bench/purge.py [--lines 1000000]
     env $(scripts/services env) .venv/bin/python bench/purge.py

The old execution's log is stored through the web application's own log sink
(tests/e2e/logdata.py); the writer stores another execution's log, 100 lines a transaction, as a
busy run's sink does (tests/purging.py). Prints how long the purge took (target: under 30 s)
and how long each of the writer's transactions took while it ran: its median, p99 and longest
(the lock wait a purge adds; the retention test holds the longest under 200 ms).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PURGE_TARGET_SECONDS = 30.0
WAIT_TARGET_MS = 200.0


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--lines", type=int, default=1_000_000)
    args = options.parse_args()
    data = Path(tempfile.mkdtemp(prefix="otterweb-bench-purge-"))
    os.environ["OTTERWEB_DATA_DIR"] = str(data)
    server = os.environ.get("OTTERWEB_DATABASE_URL")
    if server:
        own = f"otterweb_bench_purge_{os.getpid()}"
        sql(server, f"create database {own}")
        os.environ["OTTERWEB_DATABASE_URL"] = server.rsplit("/", 1)[0] + "/" + own
    try:
        return measure(args.lines)
    finally:
        shutil.rmtree(data, ignore_errors=True)
        if server:
            from django.db import connections

            connections.close_all()
            sql(server, f"drop database if exists {own} with (force)")


def sql(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(statement)


def measure(lines: int) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "otterweb.settings.prod")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from otterweb.retention import services
    from tests.purging import Writer, old_execution, percentile

    call_command("migrate", verbosity=0)
    began = time.perf_counter()
    old = old_execution(lines)
    print(f"{connection.vendor}: stored {lines:,} log lines in {time.perf_counter() - began:.0f} s")
    policy = services.Policy(days=90, failed_days=365, checks_days=30, last_per_template=0)
    writer = Writer()
    writer.start()
    time.sleep(1)  # the writer's pace without a purge
    alone = list(writer.seconds)
    began = time.perf_counter()
    purged = 0
    while going := services.purge(policy):
        purged += going
    seconds = time.perf_counter() - began
    during = writer.seconds[len(alone) :]
    writer.stop()
    assert purged == 1, f"purged {purged} executions, not the one"

    def ms(values: list[float], share: float) -> str:
        return f"{percentile(values, share) * 1000:7.1f} ms"

    print(
        f"purge of execution {old} ({lines:,} lines)          {seconds:7.1f} s  "
        f"target {PURGE_TARGET_SECONDS:g} s  {'met' if seconds < PURGE_TARGET_SECONDS else 'MISSED'}"
    )
    print(f"writer alone, {len(alone)} transactions of 100 lines: median {ms(alone, 0.5)}")
    print(
        f"writer during the purge, {len(during)} transactions: median {ms(during, 0.5)}, "
        f"p99 {ms(during, 0.99)}, longest {max(during) * 1000:.1f} ms "
        f"(target under {WAIT_TARGET_MS:g} ms: "
        f"{'met' if max(during) * 1000 < WAIT_TARGET_MS else 'MISSED'})"
    )
    return 0 if seconds < PURGE_TARGET_SECONDS and max(during) * 1000 < WAIT_TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
