"""The distributed mode for real: two Celery worker processes on PostgreSQL and Redis, each
firing due schedules from its housekeeper every 0.2 seconds. Every due time of every schedule
starts one execution, whichever worker claims it: 40 schedules made due at once, twice."""

from __future__ import annotations

import re
import time
from collections import Counter

import psycopg
import pytest

from tests.e2e.serving import DistributedSite, stop

pytestmark = pytest.mark.slow

SCHEDULES = 40
SETUP = f"""
from otterweb.executions.services import save_job_template
from otterweb.inventory.models import Server
from otterweb.rafts.models import Raft
from otterweb.rafts.services import save_item
from otterweb.schedules.models import Schedule
from otterweb.schedules.services import save_schedule

Schedule.objects.all().delete()  # the global configuration check: not this test's
item = save_item(raft=Raft.objects.create(name="ops"), name="tick", content="Log-Information $Which;")
template = save_job_template(
    name="tick", raft_item=item, targeting="servers", servers=[Server.objects.get(name="localhost")],
    prompts=[{{"name": "Which", "type": "text"}}],
)
from django.contrib.auth import get_user_model
owner = get_user_model().objects.create_superuser("owner", password="owner-pw-1")
for number in range({SCHEDULES}):
    save_schedule(name=f"s{{number}}", template=template, cron="0 0 1 1 *", variables={{"Which": f"s{{number}}"}}, user=owner)
"""


def fired(database: str) -> Counter:
    with psycopg.connect(database) as connection:
        rows = connection.execute(
            "select variables->>'Which', count(*) from executions_job group by 1"
        ).fetchall()
    return Counter(dict(rows))


def make_due(database: str) -> None:
    """Every schedule due now, at once (as after a missed run)."""
    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute("update schedules_schedule set next_run = now() - interval '1 minute'")


def wait_for(database: str, total: int, seconds: float = 60) -> Counter:
    deadline = time.monotonic() + seconds
    while sum((counts := fired(database)).values()) < total:
        assert time.monotonic() < deadline, f"only {sum(counts.values())} of {total} fired"
        time.sleep(0.2)
    time.sleep(2)  # time enough for a second firing, were there one
    return fired(database)


def test_scheduler_two_celery_workers_fire_each_due_time_once(tmp_path) -> None:
    site = DistributedSite(tmp_path, OTTERWEB_SCHEDULER_SECONDS="0.2")
    database = site.env["OTTERWEB_DATABASE_URL"]
    site.manage("shell", "-c", SETUP)
    logs = [tmp_path / "w1.log", tmp_path / "w2.log"]
    workers = []
    try:
        with open(logs[0], "wb") as first, open(logs[1], "wb") as second:
            workers = [site.worker("w1", first), site.worker("w2", second)]
            names = [f"s{number}" for number in range(SCHEDULES)]
            make_due(database)
            assert wait_for(database, SCHEDULES) == Counter(dict.fromkeys(names, 1))
            make_due(database)
            assert wait_for(database, 2 * SCHEDULES) == Counter(dict.fromkeys(names, 2))
            for worker in workers:
                stop(worker)
        with psycopg.connect(database) as connection:
            future = connection.execute(
                "select count(*) from schedules_schedule where next_run > now()"
            ).fetchone()[0]
        assert future == SCHEDULES
        claimed = [len(re.findall(r"message='claimed'", path.read_text())) for path in logs]
        assert sum(claimed) == 2 * SCHEDULES, claimed
        print(f"claimed by w1, w2: {claimed}")
    finally:
        for worker in workers:
            if worker.poll() is None:
                stop(worker)
        site.close()
