"""The log viewer's server side on a big finished log: the index, a page of lines, searches and
the download, through the API (Django's test client in this process, JSON included), on SQLite
in a fresh data folder (or PostgreSQL, with OTTERWEB_DATABASE_URL set).

Run: .venv/bin/python bench/log_api.py [--lines 1000000] [--scopes 2000] [--data DIR]
         [--download]

The log is made by tests/e2e/logdata.py (through the web application's own log sink). With
--data DIR the folder is kept, and a log already stored there is used again. Prints the median of
five requests for each, and the targets of issue 12: the index within 500 ms, a search's first
page within 1 s. --download also streams the whole text download and prints its rate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INDEX_TARGET_MS = 500
SEARCH_TARGET_MS = 1000
REPEATS = 5


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--lines", type=int, default=1_000_000)
    options.add_argument("--scopes", type=int, default=2000)
    options.add_argument("--data", type=Path, help="a data folder to keep (and use again)")
    options.add_argument("--download", action="store_true", help="time the whole download too")
    args = options.parse_args()
    data = args.data or Path(tempfile.mkdtemp(prefix="otterweb-bench-log-api-"))
    data.mkdir(parents=True, exist_ok=True)
    os.environ["OTTERWEB_DATA_DIR"] = str(data)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "otterweb.settings.prod")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from otterweb.executions.models import Execution
    from tests.e2e import logdata

    call_command("migrate", verbosity=0)
    name = f"generated log: {args.lines:,} lines in {args.scopes:,} scopes"
    execution = Execution.objects.filter(job__name=name).first()
    if execution is None:
        began = time.perf_counter()
        execution = Execution.objects.get(pk=logdata.store(args.lines, args.scopes))
        print(
            f"stored {args.lines:,} lines in {args.scopes:,} scopes: {time.perf_counter() - began:.0f} s"
        )
    user, _ = get_user_model().objects.get_or_create(username="bench", is_superuser=True)
    client = Client(HTTP_HOST="localhost")  # one of the default ALLOWED_HOSTS
    client.force_login(user)
    base = f"/api/executions/{execution.pk}/log"

    def timed(label: str, path: str, target: float | None = None) -> None:
        times, size, answer = [], 0, {}
        for _ in range(REPEATS):
            began = time.perf_counter()
            response = client.get(base + path)
            assert response.status_code == 200, response.content[:300]
            size = len(response.content)
            times.append((time.perf_counter() - began) * 1000)
            answer = response.json()
        median = statistics.median(times)
        detail = f"total {answer['total']:,}" if "total" in answer else f"{size / 1e6:.2f} MB"
        verdict = "" if target is None else (" ok" if median <= target else " OVER")
        goal = f" (target {target:,.0f} ms{verdict})" if target is not None else ""
        print(f"{label:<44} {median:8.0f} ms  {detail}{goal}")

    print(f"execution {execution.pk}: {execution.log_lines:,} lines, median of {REPEATS}")
    timed("index", "/index/", INDEX_TARGET_MS)
    timed("1,000 lines from the middle", f"/lines/?after={execution.last_seq // 2}")
    needle = logdata.NEEDLE.replace(" ", "+")
    timed(f"search {logdata.NEEDLE!r}", f"/search/?q={needle}", SEARCH_TARGET_MS)
    timed("search, case-sensitive", f"/search/?q={needle}&case=1", SEARCH_TARGET_MS)
    timed("search, warnings and errors", "/search/?levels=warning,error", SEARCH_TARGET_MS)
    timed("search, text in one server's scopes", f"/search/?q={needle}&scope=1", SEARCH_TARGET_MS)
    timed("search, regex with plain text", r"/search/?regex=1&q=checksum\s%2Bmismatch")
    timed("search, regex without (\\d{9})", r"/search/?regex=1&q=\d{9}")
    if args.download:
        began = time.perf_counter()
        response = client.get(base + "/download/?format=text")
        size = sum(len(chunk) for chunk in response.streaming_content)
        seconds = time.perf_counter() - began
        print(
            f"{'download, text':<44} {seconds:8.1f} s   {size / 1e6:.0f} MB, "
            f"{execution.log_lines / seconds:,.0f} lines/s"
        )
    if not args.data:
        print(f"(data in {data}; remove it when done)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
